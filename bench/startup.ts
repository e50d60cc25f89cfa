// Start-up section of `npm run bench` (issue 44): the CPU of `kubeloop startup`'s report over a
// cluster of --pods pods and about 5 Events each, shaped as the demo cluster's kubelet and scheduler
// write them (Scheduled, Pulling, Pulled "in X (Y including waiting)" or "already present", Created,
// Started; a tenth of the pods with a failed first pull: Failed, BackOff), in rollouts of 1,000 pods
// created over six hours. The inputs are built first, unmeasured, as a list's JSON.parse leaves them;
// then, --repeats times, the process's CPU (process.cpuUsage: every thread, GC included) for the
// report alone, for the report and its text, and for the report and its JSON (every pod's bounds, as
// --json makes them).
// Usage: node --import tsx bench/startup.ts [--pods 100000] [--repeats 3]
//        (add --cpu-prof to node's flags to see where the time goes)
import { benchArg } from './measure';
import { startupReport } from '../src/core/startup/report';
import { formatStartup } from '../src/core/startup/text';
import type { EventLike } from '../src/core/startup/podEvents';
import type { PodLike } from '../src/core/startup/podStartup';

const PODS = Number(benchArg('--pods', '100000'));
const REPEATS = Number(benchArg('--repeats', '3'));
const PER_ROLLOUT = 1000;
const T0 = Date.parse('2026-12-07T04:00:00Z');

let seed = 7;
/** A small deterministic generator (mulberry32): the same cluster on every run. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ts = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
const suffix = () =>
  Math.floor(random() * 36 ** 5)
    .toString(36)
    .padStart(5, '0');

function cluster(n: number): { pods: PodLike[]; events: EventLike[] } {
  const pods: PodLike[] = [];
  const events: EventLike[] = [];
  let eventNo = 0;
  for (let i = 0; i < n; i++) {
    const r = Math.floor(i / PER_ROLLOUT);
    const namespace = `team-${r % 10}`;
    const hash = (0x7d4b9c00 + r).toString(16).slice(0, 10);
    const rs = `app-${r}-${hash}`;
    const name = `${rs}-${suffix()}`;
    const uid = `${(0x10000000 + i).toString(16)}-5c1e-4a6b-9f1e-${(1e11 + i).toString(16).padStart(12, '0')}`;
    const created = T0 + r * 216_000 + random() * 60_000; // rollouts over six hours, each over a minute
    const scheduled = created + random() * 2000;
    const sandbox = scheduled + 500 + random() * 1000;
    const failed = random() < 0.1;
    const present = !failed && random() < 0.25;
    const pullStart = sandbox + (failed ? 10_000 : 0);
    const pullMs = present ? 0 : 400 + Math.floor(random() * 3000);
    const waitMs = pullMs + Math.floor(random() * 2000);
    const pulled = pullStart + waitMs;
    const started = pulled + 200 + random() * 500;
    const ready = started + 1000 + random() * 2000;
    const node = `node-${i % 1000}`;
    pods.push({
      metadata: {
        name,
        namespace,
        uid,
        creationTimestamp: ts(created),
        labels: { app: `app-${r}`, 'pod-template-hash': hash },
        ownerReferences: [{ kind: 'ReplicaSet', name: rs, controller: true }],
      },
      spec: { nodeName: node, containers: [{ name: 'web' }], volumes: [{ name: 'kube-api-access', projected: { sources: [] } }] },
      status: {
        phase: 'Running',
        conditions: [
          { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: ts(sandbox) },
          { type: 'Initialized', status: 'True', lastTransitionTime: ts(scheduled) },
          { type: 'Ready', status: 'True', lastTransitionTime: ts(ready) },
          { type: 'ContainersReady', status: 'True', lastTransitionTime: ts(ready) },
          { type: 'PodScheduled', status: 'True', lastTransitionTime: ts(scheduled) },
        ],
        containerStatuses: [{ name: 'web', restartCount: 0, state: { running: { startedAt: ts(started) } } }],
      },
    });
    const event = (reason: string, message: string, at: number, o: { container?: boolean; warning?: boolean; count?: number; scheduler?: boolean } = {}) => {
      const ev: EventLike = {
        metadata: { name: `${name}.${(0x1880000000000 + eventNo++).toString(16)}`, namespace },
        involvedObject: { kind: 'Pod', name, namespace, uid, ...(o.container ? { fieldPath: 'spec.containers{web}' } : {}) },
        reason,
        message,
        type: o.warning ? 'Warning' : 'Normal',
        count: o.count ?? 1,
        firstTimestamp: o.scheduler ? null : ts(at),
        lastTimestamp: o.scheduler ? null : ts(at + (o.count ?? 1) * 1000 - 1000),
        eventTime: o.scheduler ? micro(at) : null,
      };
      events.push(ev);
    };
    const image = `registry.example/app-${r}:1.${r % 7}`;
    event('Scheduled', `Successfully assigned ${namespace}/${name} to ${node}`, scheduled, { scheduler: true });
    if (failed) {
      event('Failed', `Failed to pull image "${image}": rpc error: code = Unknown desc = failed to pull`, sandbox + 300, { container: true, warning: true });
      event('BackOff', `Back-off pulling image "${image}"`, sandbox + 1000, { container: true, warning: true, count: 3 });
    }
    if (present) event('Pulled', `Container image "${image}" already present on machine and can be accessed by the pod`, pulled, { container: true });
    else {
      event('Pulling', `Pulling image "${image}"`, pullStart, { container: true });
      event('Pulled', `Successfully pulled image "${image}" in ${pullMs}ms (${waitMs}ms including waiting). Image size: 45112012 bytes.`, pulled, {
        container: true,
      });
    }
    event('Created', 'Created container: web', started - 100, { container: true });
    event('Started', 'Started container web', started, { container: true });
  }
  // As a list returns them: in no useful order for the report.
  for (let i = events.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [events[i], events[j]] = [events[j]!, events[i]!];
  }
  return { pods, events };
}

function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const built = Date.now();
const { pods, events } = cluster(PODS);
console.log(`## start-up report: ${pods.length.toLocaleString('en')} pods, ${events.length.toLocaleString('en')} Events (built in ${Date.now() - built} ms)`);
const gc = (globalThis as { gc?: () => void }).gc;
const ONLY = benchArg('--only', '');
const runs: Record<string, number[]> = ONLY === 'report' ? { report: [] } : { report: [], 'report + text': [], 'report + JSON': [] };
const outBytes = { text: 0, json: 0 };
for (let i = 0; i < REPEATS; i++) {
  gc?.();
  runs.report!.push(cpuMs(() => void startupReport(pods, events, {})));
  if (ONLY === 'report') continue;
  gc?.();
  runs['report + text']!.push(cpuMs(() => (outBytes.text = formatStartup(startupReport(pods, events, {})).length)));
  gc?.();
  runs['report + JSON']!.push(cpuMs(() => (outBytes.json = JSON.stringify({ groups: startupReport(pods, events, {}, 'bounds') }).length)));
}
for (const [what, xs] of Object.entries(runs))
  console.log(`${what.padEnd(14)} CPU median ${median(xs).toFixed(0)} ms  (runs: ${xs.map((x) => x.toFixed(0)).join(', ')})`);
console.log(
  `output: text ${(outBytes.text / 1e6).toFixed(1)} MB, JSON ${(outBytes.json / 1e6).toFixed(1)} MB; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
);
