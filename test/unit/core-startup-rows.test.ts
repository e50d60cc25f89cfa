// The report's rows (core/startup/row.ts: figures computed without bounds) against podStartup, the
// per-pod model the unit tests pin, on generated pods and Events: every figure a row holds, the
// text report and the JSON report are the same as podStartup's for the same pod and Events. And the
// timestamp reader's own path for the API server's form against Date.parse.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { podStartup, type PhaseName, type PodLike, type PodStartup } from '../../src/core/startup/podStartup';
import { timeOf, type EventLike } from '../../src/core/startup/podEvents';
import { ownerOf, startupReport, type StartupGroup } from '../../src/core/startup/report';
import { StartupRow } from '../../src/core/startup/row';
import { formatStartup } from '../../src/core/startup/text';

/** mulberry32: the same cases on every run. */
function prng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const T0 = Date.parse('2026-12-07T10:00:00Z');
const PHASES: PhaseName[] = ['scheduling', 'sandbox', 'init', 'imagePull', 'start', 'readiness'];

/** `healthy`: every time readable, every condition True (most pods complete); else anything goes. */
function generate(seed: number, count: number, healthy: boolean): { pods: PodLike[]; events: EventLike[] } {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const maybe = (p = 0.5) => r() < p;
  const time = (): string | null | undefined => {
    const s = T0 + Math.floor(r() * 120) * 1000;
    const v = healthy ? r() * 0.75 : r();
    if (v < 0.6) return new Date(s).toISOString().replace('.000Z', 'Z');
    if (v < 0.75) return new Date(s + Math.floor(r() * 1000)).toISOString().replace('Z', `${Math.floor(r() * 1000)}Z`.padStart(4, '0'));
    if (v < 0.8) return new Date(s).toISOString().replace('Z', '+00:00');
    if (v < 0.85) return 'not a time';
    if (v < 0.9) return null;
    return undefined;
  };
  const names = ['web', 'side', 'web', 'proxy'];
  const pods: PodLike[] = [];
  const events: EventLike[] = [];
  for (let i = 0; i < count; i++) {
    const name = `app-${i % 7}-abc-${i}`;
    const namespace = pick(['a', 'b']);
    const uid = maybe(0.9) ? `uid-${i}` : undefined;
    const containers = Array.from({ length: pick([0, 1, 1, 1, 2, 3]) }, () => ({ name: pick(names) }));
    const inits = maybe(0.3) ? [{ name: 'migrate', ...(maybe(0.3) ? { restartPolicy: 'Always' } : {}) }] : [];
    const condition = (type: string) =>
      healthy || maybe(0.85) ? [{ type, status: healthy ? 'True' : pick(['True', 'True', 'True', 'False']), lastTransitionTime: time() }] : [];
    const state = () =>
      pick([
        { running: { startedAt: time() ?? undefined } },
        { running: {} },
        { terminated: { startedAt: time() ?? undefined, finishedAt: time() ?? undefined } },
        { waiting: { reason: 'ContainerCreating' } },
        undefined,
      ]);
    const pod: PodLike = {
      metadata: {
        name,
        namespace,
        ...(uid ? { uid } : {}),
        ...(maybe(0.95) ? { creationTimestamp: time() ?? undefined } : {}),
        labels: { 'pod-template-hash': 'abc' },
        ownerReferences: maybe(0.8) ? [{ kind: 'ReplicaSet', name: `app-${i % 7}-abc`, controller: true }] : [{ kind: 'Job', name: 'j' }],
      },
      spec: {
        ...(maybe(0.9) ? { nodeName: pick(['n1', 'n2', '']) } : {}),
        containers,
        ...(inits.length ? { initContainers: inits } : {}),
        ...(maybe(0.3)
          ? {
              volumes: [
                pick([
                  { name: 'v', configMap: {} },
                  { name: 'v', persistentVolumeClaim: {} },
                  { name: 'v', emptyDir: null },
                ]),
              ],
            }
          : {}),
      },
      status: {
        ...(maybe(0.9) ? { phase: pick(['Running', 'Pending', 'Succeeded', 'Failed']) } : {}),
        conditions: [...condition('PodScheduled'), ...condition('PodReadyToStartContainers'), ...condition('Initialized'), ...condition('Ready')],
        containerStatuses: containers
          .filter(() => maybe(0.9))
          .map((c) => ({ name: c.name, restartCount: pick([0, 0, 0, 1]), ...(maybe(0.95) ? { state: state() } : {}) })),
        ...(inits.length ? { initContainerStatuses: [{ name: 'migrate', state: state() }] } : {}),
      },
    };
    pods.push(pod);
    for (let k = Math.floor(r() * 9); k > 0; k--) {
      const reason = pick([
        'Scheduled',
        'FailedScheduling',
        'Pulling',
        'Pulled',
        'Pulled',
        'Created',
        'Started',
        'Failed',
        'BackOff',
        'ErrImagePull',
        'SandboxChanged',
        'FailedCreatePodSandBox',
        'Unhealthy',
        '',
      ]);
      const message = pick([
        `Successfully pulled image "nginx" in ${pick(['400ms', '1.5s', '0s', '2m3.5s'])}${maybe() ? ` (${pick(['900ms', '3s'])} including waiting)` : ''}${maybe() ? '. Image size: 12 bytes.' : ''}`,
        '(combined from similar events): Successfully pulled image "x" in 1s (2s including waiting)',
        'Container image "nginx" already present on machine',
        'Failed to pull image "nginx": not found',
        'Error: ErrImagePull',
        'Readiness probe failed: 500',
        'Startup probe failed',
        'Error: failed to start',
        '',
      ]);
      const fieldPath = pick([
        undefined,
        `spec.containers{${pick(names)}}`,
        `spec.containers{${pick(names)}}`,
        'spec.initContainers{migrate}',
        'spec.ephemeralContainers{web}',
        'spec.containers{}',
        'spec.containers{we\nb}',
        'spec.containers{a}b}',
        'spec.volumes{web}',
      ]);
      const target = maybe(0.05) ? pods[Math.floor(r() * pods.length)]! : pod;
      const byName = maybe(0.1);
      const series = maybe(0.1) ? { count: pick([2, 5]), lastObservedTime: time() ?? undefined } : undefined;
      events.push({
        metadata: { name: `${name}.${k}`, namespace },
        involvedObject: {
          kind: pick(['Pod', 'Pod', 'Pod', undefined, 'Node'])!,
          name: target.metadata!.name!,
          namespace: target.metadata!.namespace!,
          ...(!byName && target.metadata?.uid ? { uid: maybe(0.97) ? target.metadata.uid : 'another-pod' } : {}),
          ...(fieldPath !== undefined ? { fieldPath } : {}),
        },
        reason,
        message,
        type: pick(['Normal', 'Warning']),
        ...(maybe(0.8) ? { count: pick([1, 1, 3, 0]) } : {}),
        firstTimestamp: time(),
        lastTimestamp: time(),
        eventTime: maybe(0.3) ? time() : null,
        ...(series ? { series } : {}),
      } as EventLike);
    }
  }
  return { pods, events };
}

/** The report as it was made before rows (the oracle): podStartup per pod, Events by uid else namespace/name. */
function reference(pods: PodLike[], events: EventLike[]): StartupGroup[] {
  const keyOf = (e: EventLike) => e.involvedObject?.uid || `${e.involvedObject?.namespace ?? e.metadata?.namespace ?? ''}/${e.involvedObject?.name ?? ''}`;
  const byPod = new Map<string, EventLike[]>();
  for (const e of events) {
    if (e.involvedObject?.kind !== undefined && e.involvedObject.kind !== 'Pod') continue;
    byPod.set(keyOf(e), [...(byPod.get(keyOf(e)) ?? []), e]);
  }
  const groups = new Map<string, StartupGroup>();
  for (const p of pods) {
    const uid = p.metadata?.uid;
    const s = podStartup(p, [...((uid ? byPod.get(uid) : undefined) ?? []), ...(byPod.get(`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`) ?? [])]);
    const o = ownerOf(p);
    const key = `${s.namespace}\0${o.owner}\0${o.rollout ?? ''}`;
    if (!groups.has(key)) groups.set(key, { owner: o.owner, ...(o.rollout ? { rollout: o.rollout } : {}), namespace: s.namespace, pods: [], complete: 0 });
    groups.get(key)!.pods.push(s);
    if (s.complete) groups.get(key)!.complete++;
  }
  const slowest = (a: PodStartup, b: PodStartup) => (b.totalMs ?? -1) - (a.totalMs ?? -1) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const out = [...groups.values()];
  for (const g of out) g.pods.sort(slowest);
  return out.sort((a, b) => slowest(a.pods[0]!, b.pods[0]!));
}

function figures(p: PodStartup) {
  return {
    totalMs: p.totalMs,
    complete: p.complete,
    node: p.node,
    sli: p.sli,
    phases: PHASES.map((n) => {
      const ph = p.phases.find((x) => x.name === n);
      return ph ? [ph.ms, ph.retries.reduce((k, r) => k + (r.reason === 'Unhealthy' ? 0 : r.count), 0)] : '-';
    }),
  };
}

function rowFigures(p: StartupRow) {
  return {
    totalMs: p.totalMs,
    complete: p.complete,
    node: p.node,
    sli: p.sli,
    phases: PHASES.map((n) => (p.hasPhase(n) ? [p.phaseMs(n), p.phaseTries(n)] : '-')),
  };
}

describe('start-up report rows', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`holds podStartup's figures, text and JSON (generated case ${seed})`, () => {
      const { pods, events } = generate(seed, 400, seed % 2 === 0);
      const groups = startupReport(pods, events);
      const ref = reference(pods, events);
      let rows = 0;
      let complete = 0;
      for (let gi = 0; gi < groups.length; gi++) {
        for (let pi = 0; pi < groups[gi]!.pods.length; pi++) {
          const row = groups[gi]!.pods[pi]!;
          assert.ok(row instanceof StartupRow);
          const want = ref[gi]!.pods[pi]!;
          assert.equal(`${row.namespace}/${row.name}/${row.uid}`, `${want.namespace}/${want.name}/${want.uid}`);
          assert.deepEqual(rowFigures(row), figures(want), `${row.namespace}/${row.name}`);
          rows++;
          if (row.complete) complete++;
        }
      }
      assert.equal(rows, pods.length);
      assert.deepEqual(
        groups.map((g) => [g.owner, g.pods.length, g.complete]),
        ref.map((g) => [g.owner, g.pods.length, g.complete]),
      );
      assert.ok(complete > 0 && complete < rows, `a mix of complete (${complete}) and incomplete pods`);
      // The order (slowest first) came from the rows' totals: the same as podStartup's.
      assert.equal(formatStartup(groups), formatStartup(ref));
      assert.equal(formatStartup(groups, { sources: 'all' }), formatStartup(ref, { sources: 'all' }));
      assert.equal(JSON.stringify(groups), JSON.stringify(ref));
      // Every pod's bounds at once (what --json asks for): the same report.
      const bounds = startupReport(pods, events, {}, 'bounds');
      assert.ok(bounds.every((g) => g.pods.every((p) => !(p instanceof StartupRow))));
      assert.equal(JSON.stringify(bounds), JSON.stringify(ref));
      assert.equal(formatStartup(bounds), formatStartup(ref));
    });
  }

  it("reads the API server's timestamps as Date.parse does", () => {
    const r = prng(9);
    const pad = (x: number, w: number) => String(x).padStart(w, '0');
    const pick = (n: number) => Math.floor(r() * n);
    for (let i = 0; i < 50_000; i++) {
      let s = `${pad([1969, 1970, 2000, 2024, 2026, 2100, 9999][pick(7)]!, 4)}-${pad(pick(14), 2)}-${pad(pick(33), 2)}T${pad(pick(26), 2)}:${pad(pick(61), 2)}:${pad(pick(62), 2)}`;
      const f = pick(12);
      if (f > 0 && f < 11) s += `.${Array.from({ length: f }, () => pick(10)).join('')}`;
      if (f === 11) s += '.';
      s += ['Z', 'Z', 'Z', 'z', '+01:00', ''][pick(6)];
      const want = Date.parse(s);
      assert.equal(timeOf(s), Number.isNaN(want) ? undefined : want, s);
    }
  });
});
