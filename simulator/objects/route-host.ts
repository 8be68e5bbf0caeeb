// openshift-apiserver's Route host assignment, which is Go code, not schema data (the Route's
// OpenAPI document says nothing of it): a Route created without a host, a subdomain or the
// Subdomain wildcard policy gets `<name with dots as dashes>-<namespace>.<routing subdomain>` and
// the annotation openshift.io/host.generated: "true" (library-go pkg/route/hostassignment
// assignment.go AllocateHost, plugin.go SimpleAllocationPlugin.GenerateHostname, called from the
// Route strategy's Validate in openshift-apiserver pkg/route/apiserver/registry/route/strategy.go,
// so dry runs get it too and no manager owns it), and an update that clears the host keeps the old
// one (the strategy's PrepareForUpdate). Modelled because a caller reads the host off the object it
// created: it is the Route's address.
import type { ResourceInfo } from '../types.ts';
import { isObject, type JsonObject, meta, str } from './fields.ts';

/** The routing subdomain (openshift-apiserver's routingConfig.subdomain); the tier's is the same. */
export const ROUTE_SUBDOMAIN = 'apps.otc-test.example';

/** library-go hostassignment's HostGeneratedAnnotationKey. */
const HOST_GENERATED = 'openshift.io/host.generated';

const isRoute = (info: ResourceInfo): boolean =>
  info.group === 'route.openshift.io' && info.name === 'routes';

/** AllocateHost on a Route being created (`object` is changed in place). */
export function allocateRouteHost(info: ResourceInfo, namespace: string, object: JsonObject): void {
  if (!isRoute(info)) return;
  if (!isObject(object.spec)) object.spec = {};
  const spec = object.spec;
  if (spec.wildcardPolicy === 'Subdomain' || str(spec.subdomain) !== '' || str(spec.host) !== '') return;
  const metadata = meta(object);
  const name = str(metadata.name);
  spec.host =
    name === '' || namespace === '' ? '' : `${name.replaceAll('.', '-')}-${namespace}.${ROUTE_SUBDOMAIN}`;
  metadata.annotations = {
    ...(isObject(metadata.annotations) ? metadata.annotations : {}),
    [HOST_GENERATED]: 'true',
  };
}

/** PrepareForUpdate: an update of a Route's spec that clears its host keeps the stored one. */
export function keepRouteHost(info: ResourceInfo, live: JsonObject, object: JsonObject): void {
  if (!isRoute(info) || !isObject(live.spec)) return;
  const old = str(live.spec.host);
  if (old === '') return;
  if (!isObject(object.spec)) object.spec = {};
  const spec = object.spec;
  if (str(spec.host) === '') spec.host = old;
}
