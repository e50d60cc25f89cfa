/**
 * What kube-controller-manager puts in every namespace: the serviceaccount controller's `default`
 * ServiceAccount and the root-ca-cert-publisher's `kube-root-ca.crt` ConfigMap (the CA bundle every
 * pod's kube-api-access volume projects).
 *
 * Guarantees (level-triggered, per namespace): a namespace that exists and is not terminating has
 * both; one deleted is created again; a namespace being deleted gets nothing.
 */
import type { DemoObject } from '../store';
import { KCM, type ControllerContext } from './controllerContext';
import { keyOf, splitKey } from './queue';
import type { Controller } from './replicaset';

/** The demo cluster's CA bundle (a self-signed "kubernetes" CA, as kubeadm names its own). */
export const ROOT_CA_CRT =
  '-----BEGIN CERTIFICATE-----\nMIIDGzCCAgOgAwIBAgIUIMOTMGDBdNra9lgrhWqbGmXNl1wwDQYJKoZIhvcNAQEL\nBQAwFTETMBEGA1UEAwwKa3ViZXJuZXRlczAeFw0yNjEyMDcwNzAxMTJaFw0zNjEy\nMDQwNzAxMTJaMBUxEzARBgNVBAMMCmt1YmVybmV0ZXMwggEiMA0GCSqGSIb3DQEB\nAQUAA4IBDwAwggEKAoIBAQCQy2LZxVtXs5DJpO9jEu87MFk4AgedM6zxgXLMVgWX\nTrEYJiI55deLN242oSOQl7lSN3VOBLZch8zvP8DaN214afYHmkXR54VYju2+tjpV\nBHWKPSUVhgxRyrosneoXPmFydyjt/s7Au6+9m3kGUt0T5oLlhV/oEoiEQ/QgpQvS\noku2Pvg/InWR6UwTRTO0s+U8/PeWjxPxX0aWmAnclDtcfQqfyp5jJpJ+Sz34f4eZ\nIWlxSXhkHbHY96+gqIeEdyc1esspibJEmMbuxm9L1Dh59a1ZqW6xz82P2Htjhjfd\nW/xQ4S1jEZvJcWWYhZn8u8FVOfhnG0cd5rQb/myoqu0BAgMBAAGjYzBhMB0GA1Ud\nDgQWBBQV9eT/m95WK/QHHM7lELm7cAKUQjAfBgNVHSMEGDAWgBQV9eT/m95WK/QH\nHM7lELm7cAKUQjAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwICpDANBgkq\nhkiG9w0BAQsFAAOCAQEAYRMNbpu9Ocv2FoaTRTUQVBqSFDHcO1P6A6s+napHhzMd\nQSiDOfCGuPpW1Lcac41ruoo7nvqPt3wRY+6LiMyunbn52BkmI2b4/uGvNqWG2alx\nKqYnEpNmn3rgKi/gvqCUciZt6r0IIMelk6CzXdCIK5FblgX/Jm5yPpMeSZRTy+fZ\nuKUZzA/cmE1QXT5Y6C8Cl1cnHScHrhj8TVqNlMxwiOJtpwJn9zBpG3LQWj2mNHGT\nJbgRCNLUBO1m+89TaD/5GXAprKdxiuJhW51D5sCA7vVeMwHmjYVV+a2Ly6hXXM7Z\ndaUiRwLLN7IAbo+7s0pCbcSnmsDynO+4GMVuER6x8g==\n-----END CERTIFICATE-----\n';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** The objects of namespace `ns` the two controllers keep. */
export function namespaceDefaults(ns: string): { group: string; resource: string; object: DemoObject }[] {
  return [
    { group: '', resource: 'serviceaccounts', object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: ns } } },
    {
      group: '',
      resource: 'configmaps',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace: ns, annotations: { 'kubernetes.io/description': DESCRIPTION } },
        data: { 'ca.crt': ROOT_CA_CRT },
      },
    },
  ];
}

export function startNamespaceDefaults(ctx: ControllerContext, which: 'serviceaccount' | 'root-ca-cert-publisher'): Controller {
  const { store } = ctx;
  const resource = which === 'serviceaccount' ? 'serviceaccounts' : 'configmaps';
  const queue = ctx.queue(which, 'syncNamespace', reconcile, 'namespaces');

  function reconcile(key: string): void {
    const ns = splitKey(key).name;
    const namespace = store.get('', 'namespaces', undefined, ns);
    if (!namespace || namespace.metadata.deletionTimestamp || !store.type('', resource)) return;
    for (const d of namespaceDefaults(ns)) {
      if (d.resource !== resource || store.get(d.group, d.resource, ns, d.object.metadata.name)) continue;
      store.create(d.group, d.resource, d.object, { manager: KCM });
    }
  }

  const wanted = namespaceDefaults('').find((d) => d.resource === resource)!.object.metadata.name;
  const unsubscribe = store.subscribe((e) => {
    if (e.group !== '') return;
    if (e.resource === 'namespaces' && e.type !== 'DELETED') queue.add(keyOf(undefined, e.object.metadata.name));
    else if (e.resource === resource && e.type === 'DELETED' && e.object.metadata.name === wanted) queue.add(keyOf(undefined, e.object.metadata.namespace!));
  });
  for (const n of ctx.list('', 'namespaces')) queue.add(keyOf(undefined, n.metadata.name));
  return {
    name: which,
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}
