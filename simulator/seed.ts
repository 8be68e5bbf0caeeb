// The example Templates every simulator start is seeded with.
import { readFileSync } from 'node:fs';
import type { JsonObject } from './objects/fields.ts';
import type { Rule } from './types.ts';

/** `worker-template` from the README: a ConfigMap, a Secret with stringData and a KubeVirt VM. */
export function workerTemplate(namespace = 'infra'): JsonObject {
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: 'worker-template', namespace },
    message: 'Worker ${VM_NAME} renders image tag ${IMAGE_TAG}.',
    labels: { 'app.kubernetes.io/managed-by': 'mini-scheduler', worker: '${VM_NAME}' },
    parameters: [
      { name: 'VM_NAME', description: 'Name of the worker VM and its objects', required: true },
      { name: 'IMAGE_TAG', description: 'Container disk image tag', value: 'latest' },
      { name: 'MEMORY', description: 'Guest memory', value: '1Gi' },
      { name: 'API_KEY', description: 'Secret handed to the worker', value: 'change-me' },
    ],
    objects: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: '${VM_NAME}-config' },
        data: { 'image-tag': '${IMAGE_TAG}', 'worker.conf': 'name=${VM_NAME}\nmemory=${MEMORY}\n' },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: '${VM_NAME}-credentials' },
        type: 'Opaque',
        stringData: { 'api-key': '${API_KEY}' },
      },
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: '${VM_NAME}' },
        spec: {
          runStrategy: 'Halted',
          template: {
            metadata: { labels: { 'kubevirt.io/vm': '${VM_NAME}' } },
            spec: {
              domain: {
                devices: { disks: [{ name: 'containerdisk', disk: { bus: 'virtio' } }] },
                memory: { guest: '${MEMORY}' },
              },
              volumes: [
                {
                  name: 'containerdisk',
                  containerDisk: { image: 'quay.io/containerdisks/fedora:${IMAGE_TAG}' },
                },
              ],
            },
          },
        },
      },
    ],
  };
}

/** A Template with a random generator: refused by create and delete unless overridden. */
export function generatorTemplate(namespace = 'infra'): JsonObject {
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: 'generated-template', namespace },
    parameters: [
      { name: 'NAME', value: 'gen' },
      { name: 'PASSWORD', generate: 'expression', from: '[a-zA-Z0-9]{16}' },
    ],
    objects: [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: '${NAME}-password' },
        stringData: { password: '${PASSWORD}' },
      },
    ],
  };
}

export function exampleObjects(): JsonObject[] {
  return [workerTemplate(), generatorTemplate()];
}

/** One identity of simulator/identities.json, the file the real tier's RBAC is made from too. */
export interface FileIdentity {
  context: string;
  user: string;
  rules: Rule[];
}

/** The identities both test servers know, besides the admin. */
export function fileIdentities(): FileIdentity[] {
  const text = readFileSync(new URL('identities.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { identities: FileIdentity[] }).identities;
}

/** A user who may do everything the workflow needs except delete: for the live suite's 403 check. */
export function limitedRules(): Rule[] {
  const limited = fileIdentities().find((identity) => identity.user === 'limited');
  if (!limited) throw new Error('simulator/identities.json has no "limited" identity');
  return limited.rules;
}
