// The simulator's TLS, authentication, authorization and discovery, against the shapes in
// docs/wire-reference.md §2 and §5.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call } from '../client.ts';
import { type Simulator, startSimulator } from '../../../simulator/index.ts';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({
    tokens: {
      'dev-token': {
        user: 'dev',
        rules: [
          {
            verbs: ['get'],
            apiGroups: ['template.openshift.io'],
            resources: ['templates'],
            namespaces: ['infra'],
            resourceNames: ['worker-template'],
          },
          {
            verbs: ['create'],
            apiGroups: ['template.openshift.io'],
            resources: ['processedtemplates'],
            namespaces: ['workers'],
          },
          { verbs: ['get', 'patch'], apiGroups: [''], resources: ['configmaps'], namespaces: ['workers'] },
        ],
      },
    },
  });
});
afterAll(async () => {
  await sim.close();
});

describe('TLS and authentication', () => {
  test('each start has its own CA and a server certificate for 127.0.0.1 and localhost', async () => {
    const other = await startSimulator({ seedExamples: false });
    try {
      expect(other.caCert).not.toBe(sim.caCert);
      const ca = new X509Certificate(sim.caCert);
      expect(ca.ca).toBe(true);
      await expect(call(sim, 'GET', '/version', { ca: other.caCert })).rejects.toThrow(
        /self[- ]signed|unable to verify|certificate/i,
      );
    } finally {
      await other.close();
    }
  });

  test('a missing or unknown token gets the 401 Status', async () => {
    for (const token of [null, 'nope']) {
      const res = await call(sim, 'GET', '/api/v1', { token });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
  });
});

describe('authorization', () => {
  test('a request outside the rules gets the real 403 text', async () => {
    const res = await call(sim, 'DELETE', '/api/v1/namespaces/workers/configmaps/foo', {
      token: 'dev-token',
    });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'configmaps "foo" is forbidden: User "dev" cannot delete resource "configmaps" in API group "" in the namespace "workers"',
      reason: 'Forbidden',
      details: { name: 'foo', kind: 'configmaps' },
      code: 403,
    });
  });

  test('collection verbs and grouped resources name the group', async () => {
    const res = await call(
      sim,
      'POST',
      '/apis/template.openshift.io/v1/namespaces/other/processedtemplates',
      {
        token: 'dev-token',
        body: { apiVersion: 'template.openshift.io/v1', kind: 'Template', metadata: {} },
      },
    );
    expect(res.status).toBe(403);
    expect(res.json.message).toBe(
      'processedtemplates.template.openshift.io is forbidden: User "dev" cannot create resource "processedtemplates" in API group "template.openshift.io" in the namespace "other"',
    );
    expect(res.json.details).toEqual({ group: 'template.openshift.io', kind: 'processedtemplates' });
  });

  test('resourceNames restrict a rule to those names', async () => {
    expect(
      (
        await call(sim, 'GET', '/apis/template.openshift.io/v1/namespaces/infra/templates/worker-template', {
          token: 'dev-token',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(
          sim,
          'GET',
          '/apis/template.openshift.io/v1/namespaces/infra/templates/generated-template',
          { token: 'dev-token' },
        )
      ).status,
    ).toBe(403);
  });

  test('discovery is open to every authenticated user', async () => {
    expect((await call(sim, 'GET', '/apis/kubevirt.io/v1', { token: 'dev-token' })).status).toBe(200);
  });
});

describe('discovery', () => {
  test('/api and /version', async () => {
    expect((await call(sim, 'GET', '/api')).json).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
    expect((await call(sim, 'GET', '/version')).json).toMatchObject({ major: '1', minor: '34' });
  });

  test('/apis lists every group with its preferred version', async () => {
    const groups = (await call(sim, 'GET', '/apis')).json.groups as {
      name: string;
      preferredVersion: unknown;
    }[];
    expect(groups.map((g) => g.name)).toEqual([
      'apps',
      'authorization.k8s.io',
      'autoscaling',
      'batch',
      'networking.k8s.io',
      'policy',
      'rbac.authorization.k8s.io',
      'apiextensions.k8s.io',
      'apps.openshift.io',
      'authorization.openshift.io',
      'build.openshift.io',
      'image.openshift.io',
      'route.openshift.io',
      'template.openshift.io',
      'cdi.kubevirt.io',
      'instancetype.kubevirt.io',
      'kubevirt.io',
      'monitoring.coreos.com',
    ]);
    expect(groups[0]).toEqual({
      name: 'apps',
      versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
  });

  test('core v1: subresources have an empty singular name and the parent kind; namespaces are cluster-scoped', async () => {
    const list = (await call(sim, 'GET', '/api/v1')).json;
    expect(list).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1' });
    const resources = list.resources as { name: string }[];
    expect(resources.map((r) => r.name)).toEqual([
      'configmaps',
      'endpoints',
      'events',
      'limitranges',
      'namespaces',
      'namespaces/status',
      'nodes',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'persistentvolumes',
      'pods',
      'pods/status',
      'podtemplates',
      'replicationcontrollers',
      'resourcequotas',
      'secrets',
      'serviceaccounts',
      'services',
      'services/status',
    ]);
    expect(resources.find((r) => r.name === 'endpoints')).toMatchObject({ singularName: 'endpoints' });
    expect(resources.find((r) => r.name === 'pods/status')).toEqual({
      name: 'pods/status',
      singularName: '',
      namespaced: true,
      kind: 'Pod',
      verbs: ['get', 'patch', 'update'],
    });
    expect(resources.find((r) => r.name === 'namespaces')).toEqual({
      name: 'namespaces',
      singularName: 'namespace',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
    });
  });

  test('template.openshift.io/v1 exactly as the real server lists it', async () => {
    const all = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    expect((await call(sim, 'GET', '/apis/template.openshift.io/v1')).json).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'template.openshift.io/v1',
      resources: [
        {
          name: 'brokertemplateinstances',
          singularName: 'brokertemplateinstance',
          namespaced: false,
          kind: 'BrokerTemplateInstance',
          verbs: all,
        },
        {
          name: 'processedtemplates',
          singularName: 'processedtemplate',
          namespaced: true,
          kind: 'Template',
          verbs: ['create'],
        },
        {
          name: 'templateinstances',
          singularName: 'templateinstance',
          namespaced: true,
          kind: 'TemplateInstance',
          verbs: all,
        },
        {
          name: 'templateinstances/status',
          singularName: '',
          namespaced: true,
          kind: 'TemplateInstance',
          verbs: ['get', 'patch', 'update'],
        },
        { name: 'templates', singularName: 'template', namespaced: true, kind: 'Template', verbs: all },
      ],
    });
  });

  test('kubevirt.io/v1 keeps the CRD verb order', async () => {
    const verbs = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
    expect((await call(sim, 'GET', '/apis/kubevirt.io/v1')).json).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'kubevirt.io/v1',
      resources: [
        {
          name: 'virtualmachines',
          singularName: 'virtualmachine',
          namespaced: true,
          kind: 'VirtualMachine',
          verbs,
          shortNames: ['vm', 'vms'],
          categories: ['all'],
        },
        {
          name: 'virtualmachines/status',
          singularName: '',
          namespaced: true,
          kind: 'VirtualMachine',
          verbs: ['get', 'patch', 'update'],
        },
        {
          name: 'virtualmachineinstances',
          singularName: 'virtualmachineinstance',
          namespaced: true,
          kind: 'VirtualMachineInstance',
          verbs,
          shortNames: ['vmi', 'vmis'],
          categories: ['all'],
        },
        {
          name: 'virtualmachineinstancemigrations',
          singularName: 'virtualmachineinstancemigration',
          namespaced: true,
          kind: 'VirtualMachineInstanceMigration',
          verbs,
          shortNames: ['vmim', 'vmims'],
          categories: ['all'],
        },
      ],
    });
  });

  test('the other served groups', async () => {
    const names = async (path: string): Promise<unknown[]> =>
      ((await call(sim, 'GET', path)).json.resources as { name: string; namespaced: boolean }[]).map((r) => [
        r.name,
        r.namespaced,
      ]);
    expect(await names('/apis/apps/v1')).toContainEqual(['deployments', true]);
    expect(await names('/apis/rbac.authorization.k8s.io/v1')).toEqual([
      ['clusterrolebindings', false],
      ['clusterroles', false],
      ['rolebindings', true],
      ['roles', true],
    ]);
    expect(await names('/apis/route.openshift.io/v1')).toEqual([
      ['routes', true],
      ['routes/status', true],
    ]);
    expect(await names('/apis/cdi.kubevirt.io/v1beta1')).toContainEqual(['datavolumes', true]);
    expect(await names('/apis/networking.k8s.io/v1')).toContainEqual(['ingresses', true]);
    expect(await names('/apis/networking.k8s.io/v1')).toContainEqual(['networkpolicies', true]);
    expect(await names('/apis/apiextensions.k8s.io/v1')).toContainEqual(['customresourcedefinitions', false]);
  });

  test('unknown paths get a plain-text 404', async () => {
    for (const path of ['/nope', '/apis/nope.example.com/v1', '/api/v1/namespaces/workers/widgets/x']) {
      const res = await call(sim, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.contentType).toMatch(/^text\/plain/);
      expect(res.text).toBe('404 page not found\n');
    }
  });
});
