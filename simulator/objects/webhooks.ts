// Validating admission webhooks as kube-apiserver calls them (k8s.io/apiserver pkg/admission/
// plugin/webhook/validating/dispatcher.go): every matching webhook sees the create or update,
// dry runs too; one whose `sideEffects` are neither None nor NoneOnDryRun cannot take a dry run,
// which is refused with 400 `admission webhook "NAME" does not support dry run` before it is
// called (errors/statuserror.go NewDryRunUnsupportedErr); a denial is a 400 whose message says
// who denied it (ToStatusErr). admissionregistration.k8s.io/v1 accepts only None and
// NoneOnDryRun, so the others stand for configurations created through v1beta1 on clusters
// upgraded since; the simulator's tests configure them here rather than through the API.
import type { ResourceInfo } from '../types.ts';
import type { JsonObject } from './fields.ts';
import { StatusError } from './status.ts';

/** What a webhook is called with: the write's kind, where, the object, and its operation. */
export interface WebhookCall {
  group: string;
  resource: string;
  namespace: string;
  object: JsonObject;
  operation: 'CREATE' | 'UPDATE';
  dryRun: boolean;
}

/** A validating webhook the simulator calls, in the order added. */
export interface Webhook {
  /** Its name in the configuration, which every refusal quotes. */
  name: string;
  /** Default `None`. `Some` or `Unknown`: the webhook does not support dry runs. */
  sideEffects?: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  /** Which writes it is called for (its rules and selectors); default every create and update. */
  matches?: (call: WebhookCall) => boolean;
  /** The message of a denial, or `undefined` to allow; default allows everything. */
  deny?: (call: WebhookCall) => string | undefined;
}

/**
 * Runs the webhooks that match a write: the first that cannot take a dry run, or that denies it,
 * refuses the request.
 *
 * @example
 * admitWebhooks([{ name: 'deny.example.com', deny: () => 'no' }], info, { namespace: 'workers', object, operation: 'CREATE', dryRun: false });
 */
export function admitWebhooks(
  webhooks: readonly Webhook[],
  info: ResourceInfo,
  write: Omit<WebhookCall, 'group' | 'resource'>,
): void {
  const call: WebhookCall = { ...write, group: info.group, resource: info.name };
  for (const webhook of webhooks) {
    if (webhook.matches !== undefined && !webhook.matches(call)) continue;
    const sideEffects = webhook.sideEffects ?? 'None';
    if (call.dryRun && sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun')
      throw new StatusError(
        400,
        'BadRequest',
        `admission webhook "${webhook.name}" does not support dry run`,
      );
    const denial = webhook.deny?.(call);
    if (denial !== undefined)
      throw new StatusError(400, '', `admission webhook "${webhook.name}" denied the request: ${denial}`);
  }
}
