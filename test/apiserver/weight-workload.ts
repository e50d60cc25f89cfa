/**
 * One small workload, created the same way on a real kube-apiserver (the lab) and on the demo
 * cluster, so the objects each side makes of it can be weighed against each other: a Deployment of
 * REPLICAS pods, a Job whose pod ends at once, a Service selecting the Deployment's pods (so the
 * endpoint controllers write Endpoints and an EndpointSlice), ConfigMaps and Secrets. Writes carry
 * kubectl's User-Agent, so both servers name the field manager the way kubectl's writes are named.
 */
import type { Api } from '../../lab/api';

export const WEIGHT_NS = 'weigh';
export const REPLICAS = 4;
const UA = { 'User-Agent': 'kubectl/v1.36.3 (linux/amd64) kubernetes/abcdef0' };

const container = {
  name: 'web',
  image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
  args: ['netexec', '--http-port=8080'],
  ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
  env: [
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'REGION', value: 'eu-west-1' },
  ],
  readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '128Mi' } },
};

export async function createWeightWorkload(api: Api): Promise<void> {
  const ns = WEIGHT_NS;
  const post = (p: string, body: unknown) => api.must('POST', p, body, [201], UA);
  await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const labels = { app: 'web', 'app.kubernetes.io/part-of': 'shop' };
  await post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels },
    spec: { replicas: REPLICAS, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels }, spec: { containers: [container] } } },
  });
  await post(`/apis/batch/v1/namespaces/${ns}/jobs`, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'report' },
    spec: {
      template: {
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'echo building the report; sleep 1'] }] },
      },
    },
  });
  await post(`/api/v1/namespaces/${ns}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', labels },
    spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  });
  for (let i = 0; i < 3; i++) {
    await post(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `web-config-${i}`, labels: { app: 'web' } },
      data: { 'application.yaml': `port: 8080\ntimeout: ${10 + i}s\nfeatures: [search, cart]\n`, LOG_LEVEL: 'info' },
    });
    await post(`/api/v1/namespaces/${ns}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `web-credentials-${i}`, labels: { app: 'web' } },
      type: 'Opaque',
      stringData: { username: 'shop', password: `s3cret-${i}-0123456789abcdef` },
    });
  }
}

/** The kinds weighed, with the collection each is listed from (namespaced kinds in WEIGHT_NS only, but Events). */
export const WEIGHED: { kind: string; path: string }[] = [
  { kind: 'Pod', path: `/api/v1/namespaces/${WEIGHT_NS}/pods` },
  { kind: 'ReplicaSet', path: `/apis/apps/v1/namespaces/${WEIGHT_NS}/replicasets` },
  { kind: 'Deployment', path: `/apis/apps/v1/namespaces/${WEIGHT_NS}/deployments` },
  { kind: 'Job', path: `/apis/batch/v1/namespaces/${WEIGHT_NS}/jobs` },
  { kind: 'Service', path: `/api/v1/namespaces/${WEIGHT_NS}/services` },
  { kind: 'ConfigMap', path: `/api/v1/namespaces/${WEIGHT_NS}/configmaps` },
  { kind: 'Secret', path: `/api/v1/namespaces/${WEIGHT_NS}/secrets` },
  { kind: 'Namespace', path: `/api/v1/namespaces/${WEIGHT_NS}` },
  { kind: 'ServiceAccount', path: `/api/v1/namespaces/${WEIGHT_NS}/serviceaccounts` },
  { kind: 'Event', path: '/api/v1/events' },
  { kind: 'Node', path: '/api/v1/nodes' },
];

export interface Weight {
  count: number;
  /** Mean bytes of one object's compact JSON (apiVersion and kind left out: list items of kube-apiserver carry neither). */
  mean: number;
}

/** Bytes of an object's compact JSON as a list item (without apiVersion and kind). */
export function itemBytes(o: Record<string, unknown>): number {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  return Buffer.byteLength(JSON.stringify(rest));
}

export async function weigh(api: Api): Promise<Record<string, Weight>> {
  const out: Record<string, Weight> = {};
  for (const w of WEIGHED) {
    const body = await api.must('GET', w.path, undefined, [200]);
    const items = (Array.isArray(body.items) ? body.items : [body]) as Record<string, unknown>[];
    const total = items.reduce((s, o) => s + itemBytes(o), 0);
    out[w.kind] = { count: items.length, mean: items.length ? total / items.length : 0 };
  }
  return out;
}
