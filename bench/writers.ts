// The writers story's cost (issue 44: "at 500 writes/s over 100k objects, top writers refreshed
// every second for at most 5 % extra extension-host CPU"), measured two ways:
//   model  in this process on a FakeClock: 500 watch events a second over 100,000 objects (pods
//          with a kubelet status entry, deployments and configmaps, managedFields as the demo's API
//          server writes them), each JSON.parse'd from its wire text as the watch does, observed,
//          and one top-writers snapshot a second; CPU ms per simulated second = share of one core.
//   view   the same events, with what the extension adds each second while the Top Writers view is
//          open (src/app/writers): every write counted for the writer lanes, the snapshot with each
//          manager's kinds, namespaces and objects, the lanes' events appended to a TimelineStore and
//          the view's rows made (the TreeItems VS Code then draws are not in it: a few dozen).
//   live   `kubeloop demo-cluster --objects 100000 --churn 500 --writers` in a child process and
//          watchWriters + WriterStats here, over every type, for 30 s after a 10 s warm-up: this
//          process's CPU (the watches' JSON, the model, the snapshots), from process.cpuUsage.
// Run: node --expose-gc --import tsx bench/writers.ts [model|view|live] (WRITERS_BENCH_SECONDS=200 model: every object written, 100,000 versions kept)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock, realClock } from '../src/core/clock';
import { KubeClient } from '../src/core/kube/client';
import { listableResources } from '../src/core/kube/discovery/parse';
import { watchWriters } from '../src/core/writers/source';
import { WriterStats } from '../src/core/writers/stats';
import { TimelineStore } from '../src/core/timeline/store';
import { WritesLane } from '../src/app/writers/lane';
import { writerRows } from '../src/app/writers/rows';
import { withUpdateEntry } from '../src/demo/server/managed-fields';
import type { DemoObject } from '../src/demo/store';

const OBJECTS = 100_000;
const PER_SECOND = 500;

const time = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString().replace(/\.\d+Z$/, 'Z');

function pod(i: number, gen: number, ms: number): DemoObject {
  const base: DemoObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${i}`, namespace: `ns-${i % 500}`, uid: `u-${i}`, resourceVersion: '1', labels: { app: `a-${i % 50}` } },
    spec: { nodeName: `n-${i % 100}`, containers: [{ name: 'app', image: 'app:1', ports: [{ containerPort: 8080 }], env: [{ name: 'X', value: '1' }] }] },
    status: {},
  };
  const created = withUpdateEntry(undefined, base, { manager: 'kube-controller-manager', apiVersion: 'v1', time: time(0) }, true);
  const next = {
    ...created,
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: gen % 7 ? 'True' : 'False', lastTransitionTime: time(ms) }],
      containerStatuses: [{ name: 'app', ready: true, restartCount: gen % 3, image: 'app:1', state: { running: { startedAt: time(0) } } }],
    },
  } as DemoObject;
  return withUpdateEntry(created, next, { manager: 'kubelet', apiVersion: 'v1', time: time(ms), subresource: 'status' }, true);
}

function configMap(i: number, gen: number, ms: number): DemoObject {
  const base: DemoObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `c-${i}`, namespace: `ns-${i % 500}`, uid: `u-${i}`, resourceVersion: '1' },
    data: { k: '0' },
  };
  const created = withUpdateEntry(undefined, base, { manager: 'helm', apiVersion: 'v1', time: time(0) }, false);
  return withUpdateEntry(created, { ...created, data: { k: String(gen) } }, { manager: gen % 2 ? 'argocd' : 'helm', apiVersion: 'v1', time: time(ms) }, false);
}

async function model(view = false): Promise<void> {
  const clock = new FakeClock();
  const seconds = Number(process.env.WRITERS_BENCH_SECONDS ?? 60);
  // The wire text of each event, built ahead (building it is the server's cost, not ours).
  const wire: string[][] = [];
  let rv = 2;
  for (let s = 0; s < seconds; s++) {
    const batch: string[] = [];
    for (let e = 0; e < PER_SECOND; e++) {
      const i = (s * PER_SECOND + e * 211) % OBJECTS;
      const o = i % 3 === 2 ? configMap(i, s, s * 1000) : pod(i, s, s * 1000);
      o.metadata.resourceVersion = String(rv++);
      batch.push(JSON.stringify({ type: 'MODIFIED', object: o }));
    }
    wire.push(batch);
  }
  const pods = { group: '', resource: 'pods' };
  const cms = { group: '', resource: 'configmaps' };
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const stats = new WriterStats({ clock });
  const lane = new WritesLane(0);
  const timeline = new TimelineStore();
  let rows = 0;
  const start = process.cpuUsage();
  let snapshotMs = 0;
  for (const batch of wire) {
    for (const line of batch) {
      const ev = JSON.parse(line) as { type: 'MODIFIED'; object: DemoObject };
      const w = stats.observe(ev.type, ev.object.kind === 'Pod' ? pods : cms, ev.object);
      if (view && w) lane.count(w.manager, w.kind);
    }
    const t0 = process.cpuUsage();
    if (view) {
      const snap = stats.snapshot(20, 10);
      for (const e of lane.flush(clock.now(), snap)) timeline.append(e);
      rows += writerRows(snap).length;
    } else stats.snapshot(10);
    const t1 = process.cpuUsage(t0);
    snapshotMs += (t1.user + t1.system) / 1000;
    await clock.advance(1000);
  }
  const used = process.cpuUsage(start);
  const perSecondMs = (used.user + used.system) / 1000 / seconds;
  gc?.();
  const heap = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  console.log(
    `${view ? `view (${(rows / seconds).toFixed(1)} manager rows a second, ${timeline.length} lane events)` : 'model'}: ${PER_SECOND} events/s over ${OBJECTS} objects, ${seconds} s: ${perSecondMs.toFixed(1)} ms CPU per second (${(perSecondMs / 10).toFixed(2)} % of one core), ${view ? 'snapshot with breakdown + lanes + rows' : 'snapshot'} ${(snapshotMs / seconds).toFixed(2)} ms CPU, kept ${stats.snapshot().keptObjects} versions (${stats.snapshot().keptFieldObjects} with field paths), the model's heap ${heap.toFixed(0)} MiB${gc ? '' : ' (run with --expose-gc for a true figure)'}`,
  );
}

async function live(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-writers-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const demo = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'demo-cluster',
      '--objects',
      String(OBJECTS),
      '--churn',
      String(PER_SECOND),
      '--writers',
      '--no-kubelet',
      '--kubeconfig-out',
      kubeconfig,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      demo.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (/kubeconfig/.test(out) && /demo cluster: \S+/.test(out)) resolve();
      });
      demo.on('exit', (c) => reject(new Error(`demo exited ${c}: ${out}`)));
    });
    const client = await KubeClient.fromKubeconfig({ kubeconfig });
    const types = listableResources(await client.discover({}))
      .filter((r) => r.verbs.includes('watch') && !(r.group === 'events.k8s.io'))
      .map(({ group, version, resource, namespaced }) => ({ group, version, resource, namespaced }));
    const stats = new WriterStats({ clock: realClock });
    const stop = new AbortController();
    const tick = setInterval(() => stats.snapshot(10), 1000);
    const errors: string[] = [];
    const watching = watchWriters({ client, types, stats, clock: realClock, onError: (t, m) => errors.push(`${t}: ${m}`) }, stop.signal);
    await new Promise((r) => setTimeout(r, 10_000));
    const start = process.cpuUsage();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 30_000));
    const used = process.cpuUsage(start);
    const wall = performance.now() - t0;
    const snap = stats.snapshot(5);
    clearInterval(tick);
    stop.abort();
    await watching;
    client.close();
    const share = ((used.user + used.system) / 1000 / wall) * 100;
    console.log(
      `live: ${types.length} types watched, ${snap.perSecond.toFixed(0)} writes/s seen, ${share.toFixed(2)} % of one core over ${(wall / 1000).toFixed(0)} s (watches' JSON, model, snapshots); fights ${snap.fights.length}, hot loops ${snap.hotLoops.length}; watch errors ${errors.length}${errors.length ? ` (first: ${errors[0]})` : ''}`,
    );
  } finally {
    demo.kill('SIGINT');
    rmSync(dir, { recursive: true, force: true });
  }
}

const which = process.argv[2] ?? 'model';
void (which === 'live' ? live() : model(which === 'view')).catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
