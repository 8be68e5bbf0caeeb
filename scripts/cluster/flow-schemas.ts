// API Priority and Fairness for the simulator's own requests, as OpenShift configures it for
// openshift-apiserver (cluster-openshift-apiserver-operator manifests/09_flowschema.yaml): its
// SubjectAccessReviews and TokenReviews are exempt, everything else it sends runs at
// workload-high. Without them its reviews share global-default with the callers' requests that
// wait on them, and a burst holds every seat there while the reviews queue behind it, a priority
// inversion OpenShift does not have. OpenShift names the ServiceAccount the real server runs as
// here too; the simulator is a User, named beside it.
import { SIMULATOR_USER } from './material.ts';
import { OPENSHIFT_SERVICE_ACCOUNT } from './openshift.ts';

type KubeObject = Record<string, unknown>;

const subjects = [
  { kind: 'ServiceAccount', serviceAccount: { ...OPENSHIFT_SERVICE_ACCOUNT } },
  { kind: 'User', user: { name: SIMULATOR_USER } },
];
const everywhere = { clusterScope: true, namespaces: ['*'], verbs: ['*'] };

function flowSchema(name: string, precedence: number, priorityLevel: string, rules: unknown[]): KubeObject {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name },
    spec: {
      distinguisherMethod: { type: 'ByUser' },
      matchingPrecedence: precedence,
      priorityLevelConfiguration: { name: priorityLevel },
      rules,
    },
  };
}

/** openshift-apiserver-sar (precedence 2, exempt) and openshift-apiserver (1000, workload-high). */
export function simulatorFlowSchemas(): KubeObject[] {
  return [
    flowSchema('openshift-apiserver-sar', 2, 'exempt', [
      {
        subjects,
        resourceRules: [
          { ...everywhere, apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'] },
          { ...everywhere, apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'] },
        ],
      },
    ]),
    flowSchema('openshift-apiserver', 1000, 'workload-high', [
      { subjects, resourceRules: [{ ...everywhere, apiGroups: ['*'], resources: ['*'] }] },
    ]),
  ];
}
