// Sync-loop section of `npm run bench` (issue 4): events per second through the loop, how many
// changes each sync absorbed (coalescing in the pending-update slot), and whether the heap levels
// off during a long churn run. The demo cluster runs in its own process (bench/demo.ts) and the churn
// arrives over real HTTP, so the heap measured here is the loop's alone.
// Usage: node --expose-gc --import tsx bench/syncloop.ts [--pods 500] [--seconds 60] [--churn 60]
import { KubeClient } from '../src/core/kube/client';
import { ClusterSync } from '../src/core/syncloop/sources/cluster';
import { TimelineStore } from '../src/core/timeline/store';
import { requestBase } from './types';
import { startDemoProcess } from './demo';
import { benchArg } from './measure';
import * as http from 'node:http';
import * as https from 'node:https';

const arg = (name: string, dflt: number) => Number(benchArg(name, String(dflt)));
const PODS = arg('--pods', 500);
const SECONDS = arg('--seconds', 60);
const CHURN = arg('--churn', 60); // pod creates + deletes per second

function pod(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'bench', labels: { app: 'bench' } },
    spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], readinessProbe: { httpGet: { path: '/', port: 80 } } }] },
  };
}

async function main() {
  const demo = await startDemoProcess(0, 1);
  const base = await requestBase(demo.kubeconfig);
  // The demo process may serve HTTPS (token auth): speak whatever its kubeconfig says.
  const tls = base.server.protocol === 'https:';
  const agent = tls ? new https.Agent({ keepAlive: true, maxSockets: 8 }) : new http.Agent({ keepAlive: true, maxSockets: 8 });
  const call = (method: string, path: string, body?: unknown) =>
    new Promise<number>((resolve) => {
      const req = (tls ? https : http).request(
        new URL(path, base.server),
        { ...base.options, method, agent, headers: { ...(base.options.headers as object), 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(body ? JSON.stringify(body) : undefined);
    });
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  for (let i = 0; i < PODS; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, PODS - i) }, (_, k) => call('POST', '/api/v1/namespaces/bench/pods', pod(`p${i + k}`))));

  const client = await KubeClient.fromKubeconfig({ kubeconfig: demo.kubeconfig });
  const timeline = new TimelineStore(10_000);
  // The loop's iterations only: the pod workers' own marks (one per sync) share the timeline.
  let loopIterations = 0;
  timeline.subscribe((e) => {
    if (e.kind === 'iteration' && e.source !== 'podworker') loopIterations++;
  });
  const sync = new ClusterSync({ client, timeline, namespaces: ['bench'], logger: { info: () => {}, error: () => {} } });
  const ac = new AbortController();
  const t0 = performance.now();
  const running = sync.run(ac.signal);
  const live = Array.from({ length: PODS }, (_, i) => `p${i}`);
  let next = PODS;
  let changes = 0;
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const churn = setInterval(() => {
    for (let k = 0; k < CHURN / 10; k += 2) {
      const [gone] = live.splice(Math.floor(rand() * live.length), 1);
      void call('DELETE', `/api/v1/namespaces/bench/pods/${gone}?gracePeriodSeconds=0`);
      const name = `p${next++}`;
      void call('POST', '/api/v1/namespaces/bench/pods', pod(name));
      live.push(name);
      changes += 2;
    }
  }, 100);
  const heapMB: number[] = [];
  const sampler = setInterval(
    () => {
      (globalThis as { gc?: () => void }).gc?.();
      heapMB.push(process.memoryUsage().heapUsed / 2 ** 20);
    },
    Math.max(1000, (SECONDS * 1000) / 12),
  );
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  clearInterval(churn);
  clearInterval(sampler);
  await new Promise((r) => setTimeout(r, 5000)); // two housekeeping periods and then some, to converge
  const secs = (performance.now() - t0) / 1000;
  const model = [...sync.views()]
    .map((v) => v.key)
    .filter((k) => k.startsWith('bench/'))
    .sort();
  const want = live.map((n) => `bench/${n}`).sort();
  const iterations = loopIterations;
  const syncs = sync.stats().workers.syncs;
  ac.abort();
  await running;
  client.close();
  agent.destroy();
  await demo.stop();

  const third = Math.max(1, Math.floor(heapMB.length / 3));
  const mid = Math.max(...heapMB.slice(third, 2 * third));
  const last = Math.max(...heapMB.slice(2 * third));
  console.log(`\n## sync loop: ${PODS} pods, ${CHURN} pod changes/s for ${SECONDS} s (demo cluster in its own process)`);
  console.table([
    {
      'changes sent': changes,
      iterations,
      'iterations/s': (iterations / secs).toFixed(0),
      syncs,
      'changes per sync': (changes / Math.max(1, syncs)).toFixed(2),
      converged: JSON.stringify(model) === JSON.stringify(want),
    },
  ]);
  console.log(`heap after GC, MB, sampled through the run: ${heapMB.map((h) => h.toFixed(0)).join(' ')}`);
  const levels = last <= mid * 1.2 + 5;
  console.log(
    `${levels ? 'MEETS ' : 'MISSES'} heap levels off (last third's peak ${last.toFixed(0)} MB vs middle third's ${mid.toFixed(0)} MB, at most +20 %)`,
  );
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
