/**
 * Where a rollout's start-up time went, on a real control plane with real kubelets: a 100-replica
 * Deployment is scheduled by kube-scheduler onto two hollow kubelets (the real kubelet over a fake
 * runtime: ../../lab/hollowkubelet.ts) and made Ready by their real probers. Within 1 s of the
 * rollout settling, the report read as `kubeloop startup` reads it (one list of pods, one of pod
 * Events, against the kube-apiserver) has every phase of at least 95 % of the pods; every known
 * bound has exactly the time of the status field or Event it names (read again here, by the test's
 * own client); and our kubelet SLI sits beside the one the kubelet itself logs for the same pod
 * ("Observed pod startup duration", pod_startup_latency_tracker.go). `kubeloop sync --record` runs
 * through the same rollout: the report read from its recording is the live one, pod by pod and bound
 * by bound, and so its SLI sits beside the kubelets' as well.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { startControllerManagerAndScheduler, type Components } from '../../lab/components';
import { startHollowKubelets, type HollowKubelets } from '../../lab/hollowkubelet';
import { KubeClient } from '../../src/core/kube/client';
import { readStartupLive } from '../../src/app/startup/readStartup';
import type { Bound } from '../../src/core/startup/podStartup';
import type { StartupGroup } from '../../src/core/startup/report';
import { Api } from './support';
import { eventually } from '../support/eventually';
import { assertRecordingAgrees, boundsOf, deploymentOf, pullsOf, rolloutGroup, rolloutSettled, startRecorder } from '../support/startupRollout';

const NODES = ['hk-a', 'hk-b']; // 110 pods each at most (the kubelet's default max-pods)
const NS = 'rollout';
const REPLICAS = 100;
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.47';
const SELECTION = { namespace: NS, target: { kind: 'deployment', name: 'shop' } };
const never = new AbortController().signal;

let cp: ControlPlane;
let components: Components | undefined;
let kubelets: HollowKubelets | undefined;
let api: Api;
let dir: string;
let recorder: Awaited<ReturnType<typeof startRecorder>> | undefined;
const recording = () => path.join(dir, 'rollout.klr');

/** What the kubelet logged of a pod it measured. */
interface KubeletObserved {
  /** podStartSLOduration, ms. */
  sliMs: number;
  /** watchObservedRunningTime, epoch ms: its "running", the time it saw the status it wrote. */
  runningAt: number;
  line: string;
}

/** A Go time.Time as klog prints it ("2026-12-07 19:31:59.123456789 +0000 UTC m=+1.2"), in epoch ms. */
function goTime(s: string): number {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d{1,3})?\d* ([+-]\d\d)(\d\d) /.exec(s);
  return m ? Date.parse(`${m[1]}T${m[2]}${m[3] ?? ''}${m[4]}:${m[5]}`) : NaN;
}

/** What the kubelets logged for each pod they measured ("Observed pod startup duration"), by `NS/NAME`. */
function kubeletSliFromLogs(): Map<string, KubeletObserved> {
  const out = new Map<string, KubeletObserved>();
  for (const k of kubelets!.nodes) {
    for (const m of k.log().matchAll(/"Observed pod startup duration" pod="([^"]+)" podStartSLOduration=([\d.e+-]+).*?watchObservedRunningTime="([^"]+)"/g))
      out.set(m[1]!, { sliMs: Number(m[2]) * 1000, runningAt: goTime(m[3]!), line: m[0] });
  }
  return out;
}

/**
 * GET on a kubelet's own server. The hollow kubelet is given no TLS options and no authenticator
 * (kubemark's deps), so its server speaks plain HTTP with no auth filter.
 */
function kubeletGet(port: number, p: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
    req.on('error', (e) => resolve({ error: e.message }));
  });
}

/** The time a bound's source names, read from the objects as the server holds them now. */
function timeAtSource(b: Bound, pod: any, eventsByName: Map<string, any>): number | undefined {
  const cond = /^status\.conditions\[(\w+)\]\.lastTransitionTime$/.exec(b.source);
  if (cond) return Date.parse(pod.status.conditions.find((c: any) => c.type === cond[1]).lastTransitionTime);
  const cs = /^status\.containerStatuses\[([\w-]+)\]\.state\.(running|terminated)\.startedAt$/.exec(b.source);
  if (cs) return Date.parse(pod.status.containerStatuses.find((s: any) => s.name === cs[1]).state[cs[2]!].startedAt);
  if (b.source === 'metadata.creationTimestamp') return Date.parse(pod.metadata.creationTimestamp);
  const ev = /^Event (\w+) ([\w-]+)\/([\w.-]+) (firstTimestamp|lastTimestamp|eventTime)$/.exec(b.source);
  if (ev) {
    const e = eventsByName.get(`${ev[2]}/${ev[3]}`);
    assert.ok(e, `${b.source}: no such Event`);
    assert.equal(e.reason, ev[1]);
    assert.equal(e.involvedObject.uid, pod.metadata.uid, `${b.source} is about ${pod.metadata.name}`);
    return Date.parse(e[ev[4]!]);
  }
  return undefined;
}

/**
 * Our SLI beside the kubelet's (`theirs`, from its log) for every pod of the group both have. The
 * two differ by where "running" is read: ours is the containers' startedAt (truncated to the
 * second), the kubelet's its watch of the status it wrote (watchObservedRunningTime, which it
 * logs), later by that write and watch, seconds on a loaded machine. With that delay taken out they
 * agree: both start at the same creationTimestamp, and the image pulls subtracted are the same
 * pulls (ours from the Pulled Events, ms in their messages; the kubelet's from its own clock).
 */
function assertSliBesideKubelets(g: StartupGroup, theirs: Map<string, KubeletObserved>, what: string, t: { diagnostic(m: string): void }): void {
  const diffs: number[] = [];
  const rest: number[] = [];
  for (const p of g.pods) {
    const k = theirs.get(`${NS}/${p.name}`);
    if (k === undefined || p.sli.ms === undefined) continue;
    assert.ok(Number.isFinite(k.runningAt), `watchObservedRunningTime read from: ${k.line}`);
    // Ours runs from creation to the one container's startedAt (its start phase's end, checked at its source above).
    const ourRunning = p.phases[0]!.from.at! + p.sli.e2eMs!;
    assert.equal(ourRunning, p.phases.find((ph) => ph.name === 'start')!.to.at, `${p.name} (${what}): our SLI runs to the container's start`);
    const d = k.sliMs - p.sli.ms;
    diffs.push(d);
    rest.push(d - (k.runningAt - ourRunning));
    // Our running is startedAt truncated: never after the kubelet saw it running.
    assert.ok(k.runningAt >= ourRunning, `${p.name} (${what}): the kubelet saw it running at ${k.runningAt}, before our ${ourRunning}`);
  }
  const range = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `min ${s[0]?.toFixed(0)} ms, median ${s[s.length >> 1]?.toFixed(0)} ms, max ${s[s.length - 1]?.toFixed(0)} ms`;
  };
  t.diagnostic(`kubelet SLI minus ours (${what}) over ${diffs.length} pods: ${range(diffs)}; less the kubelet's watch delay: ${range(rest)}`);
  assert.ok(diffs.length >= 95, `${diffs.length} pods with both SLIs (${what})`);
  for (const r of rest) assert.ok(Math.abs(r) < 100, `kubelet SLI minus ours, less its watch delay (${what}): ${r} ms`);
}

describe('kubeloop startup: a 100-pod rollout on kube-apiserver with real kubelets', { timeout: 600_000 }, () => {
  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp);
    components = await startControllerManagerAndScheduler(cp);
    // v=2: the kubelet's start-up line is at v=0; the sync loop's v=4 lines are not needed here.
    kubelets = await startHollowKubelets(cp, { nodes: NODES, v: 2 });
    await api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeloop-startup-rollout-'));
    recorder = await startRecorder(cp.kubeconfigPath, NS, recording());
  });

  after(async () => {
    recorder?.kill();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await kubelets?.stop();
    await components?.stop();
    api?.close();
    await cp?.stop();
  });

  it('has the phases of >= 95 % of the pods within 1 s of settling, each bound at its source, the kubelet SLI beside ours; the recording says the same', async (t) => {
    await api.must(
      'POST',
      `/apis/apps/v1/namespaces/${NS}/deployments`,
      deploymentOf(NS, 'shop', REPLICAS, {
        image: AGNHOST,
        args: ['netexec', '--http-port=8080'],
        readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 },
      }),
    );
    // The reader's client made beforehand: the clock below is the report's own lists and work.
    const client = await KubeClient.fromKubeconfig({ kubeconfig: cp.kubeconfigPath });
    const t0 = performance.now();
    await rolloutSettled(() => api.must('GET', `/apis/apps/v1/namespaces/${NS}/deployments/shop`), REPLICAS, 300_000);
    const settled = performance.now();
    const live = await readStartupLive(client, SELECTION, never);
    const elapsed = performance.now() - settled;
    const g = rolloutGroup(live, elapsed, REPLICAS);
    t.diagnostic(
      `rollout settled in ${((settled - t0) / 1000).toFixed(1)} s; report read ${elapsed.toFixed(0)} ms after; ${g.complete} of ${REPLICAS} pods with every phase`,
    );
    assert.ok(g.complete >= 95, `${g.complete} of ${REPLICAS} pods with every phase: ${JSON.stringify(g.pods.find((p) => !p.complete))}`);

    // Every known bound is the time its source holds (the server's objects, read again here).
    const pods = new Map<string, any>(((await api.must('GET', `/api/v1/namespaces/${NS}/pods`)).items as any[]).map((p) => [p.metadata.name, p]));
    const events = (await api.must('GET', `/api/v1/namespaces/${NS}/events`)).items as any[];
    const eventsByName = new Map(events.map((e) => [`${e.metadata.namespace}/${e.metadata.name}`, e]));
    const seen = new Map<string, number>();
    for (const p of g.pods) {
      const pod = pods.get(p.name);
      assert.ok(pod, `${p.name} is listed`);
      for (const b of boundsOf(p)) {
        if (b.how === 'unknown') continue;
        const at = timeAtSource(b, pod, eventsByName);
        assert.notEqual(at, undefined, `${p.name} ${b.name}: an unknown kind of source: ${b.source}`);
        assert.equal(b.at, at, `${p.name} ${b.name} is the time of ${b.source}`);
        const kind = `${b.name} <- ${b.how === 'inferred' ? 'inferred: ' : ''}${b.source.replace(/ [\w-]+\/[\w.-]+ /, ' ').replace(/\[[\w-]+\]/, '[]')}`;
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
      }
    }
    t.diagnostic(`bounds by source: ${[...seen].map(([k, n]) => `${k} x${n}`).join('; ')}`);
    // The image pulls, as the real kubelet words them over the fake runtime's image service.
    const pulls = pullsOf(g);
    t.diagnostic(`pulls: ${pulls.filter((x) => x.pulled).length} pulled, ${pulls.filter((x) => !x.pulled).length} already present`);
    assert.equal(pulls.length, REPLICAS, 'one Pulled Event per pod, each read');
    assert.ok(pulls.every((x) => x.image === AGNHOST));
    for (const x of pulls.filter((p) => p.pulled))
      assert.ok(x.pullMs !== undefined && x.withWaitingMs !== undefined, `a pull's times read: ${JSON.stringify(x)}`);

    // The kubelet's own SLI (its log line per pod) beside ours.
    const theirs = await eventually(
      () => {
        const m = kubeletSliFromLogs();
        if (m.size >= REPLICAS * 0.95) return m;
        throw new Error(`${m.size} pods in the kubelets' logs`);
      },
      { description: "the kubelets' Observed pod startup duration lines", timeoutMs: 30_000, maxIntervalMs: 250 },
    );
    const unlogged = g.pods.filter((p) => !theirs.has(`${NS}/${p.name}`));
    t.diagnostic(
      `the kubelets logged ${theirs.size} pods; not: ${unlogged.map((p) => `${p.name} on ${p.node} (sli ${p.sli.ms ?? p.sli.excluded}, pulled ${p.phases.find((ph) => ph.name === 'imagePull')!.pulls?.[0]?.pulled})`).join(', ') || 'none'}`,
    );
    assertSliBesideKubelets(g, theirs, 'live', t);

    // The same figures in the kubelet's histogram, on its own server's /metrics.
    for (const name of NODES) {
      const node = await api.must('GET', `/api/v1/nodes/${name}`);
      const m = await kubeletGet(node.status.daemonEndpoints.kubeletEndpoint.Port as number, '/metrics');
      assert.ok('body' in m && m.status === 200, `${name} /metrics: ${JSON.stringify(m).slice(0, 300)}`);
      const metric = (suffix: string) => Number(new RegExp(`^kubelet_pod_start_sli_duration_seconds_${suffix}(?:\\{\\})? (\\S+)$`, 'm').exec(m.body)?.[1]);
      const logged = g.pods.filter((p) => p.node === name && theirs.has(`${NS}/${p.name}`)).map((p) => theirs.get(`${NS}/${p.name}`)!.sliMs);
      t.diagnostic(`${name} /metrics: pod_start_sli_duration_seconds count ${metric('count')}, sum ${metric('sum')} s; ${logged.length} pods logged`);
      assert.equal(metric('count'), logged.length, `${name}: one SLI observation per pod it logged`);
      assert.ok(Math.abs(metric('sum') * 1000 - logged.reduce((a, b) => a + b, 0)) < logged.length, `${name}: the histogram's sum is the logged SLIs'`);
    }

    // From the recording the sync loop wrote all along: once it has written what the server holds
    // now, the same report (every pod's phases and bounds), and so the same SLI beside the kubelets'.
    await recorder!.stop();
    const recorded = await assertRecordingAgrees(recording(), SELECTION, [g]);
    assertSliBesideKubelets(recorded[0]!, theirs, 'recorded', t);
  });
});
