/**
 * Issue 4's acceptance scenario: the study guide's probe-me pod, created with the guide's own kubectl
 * command against the demo cluster (kubelet simulation at 10x), seen through the sync loop wired
 * to real watches: the config ADD handled by HandlePodAdditions, the PLEG ContainerStarted, the
 * liveness failures handled as probe syncs, the restarts in the model, and on deletion the REMOVE
 * and housekeeping cleaning up. Then `kubeloop sync` itself, in --json and text modes.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startKubelet, type Kubelet } from '../../src/demo/kubelet';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { runSync } from '../../src/cli/sync';
import { startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';
import { startSync } from '../support/syncLoop';

const OVERRIDES =
  '{"spec":{"nodeName":"pair-worker","containers":[{"name":"probe-me","image":"registry.k8s.io/e2e-test-images/agnhost:2.47","args":["netexec","--http-port=8080"],"livenessProbe":{"httpGet":{"path":"/healthz","port":8081},"periodSeconds":5,"failureThreshold":2}}]}}';
const RUN_PROBE_ME = ['-n', 'default', 'run', 'probe-me', '--image=registry.k8s.io/e2e-test-images/agnhost:2.47', `--overrides=${OVERRIDES}`];

describe('the sync loop on the demo cluster: the study guide probe-me pod', () => {
  let t: TestCluster;
  let kubelet: Kubelet;
  before(async () => {
    t = await startTestCluster({ kubelet: false });
    kubelet = startKubelet(t.cluster.store, { speed: 10 });
  });
  after(async () => {
    kubelet.stop();
    await t.close();
  });

  it('shows config ADD, PLEG ContainerStarted, liveness failures as probe syncs, restarts, REMOVE and housekeeping', async () => {
    const { sync, timeline, lines, stop } = await startSync(t.kubeconfig);
    const restarts: number[] = [];
    sync.onViewChange((key, _o, n) => {
      if (key === 'default/probe-me' && n) restarts.push(n.restarts ?? 0);
    });
    try {
      await t.kubectlOk(RUN_PROBE_ME);

      await eventually(() => lines.includes('SyncLoop ADD source="api" pods=["default/probe-me"] handler="HandlePodAdditions"'), {
        description: 'config ADD',
        timeoutMs: 20_000,
      });
      await eventually(
        () =>
          lines.some((l) =>
            /^SyncLoop \(PLEG\): event for pod pod="default\/probe-me" event=\{"ID":"[^"]+","Type":"ContainerStarted","Data":"[^"]+"\} handler="HandlePodSyncs"$/.test(
              l,
            ),
          ),
        { description: 'PLEG ContainerStarted', timeoutMs: 20_000 },
      );
      const probeLine = 'SyncLoop (probe) probe="liveness" status="unhealthy" pod="default/probe-me" handler="HandlePodSyncs"';
      await eventually(() => lines.filter((l) => l === probeLine).length >= 1, { description: 'a liveness failure', timeoutMs: 30_000 });
      await eventually(() => (sync.view('default/probe-me')?.restarts ?? 0) >= 2, { description: 'two restarts in the model', timeoutMs: 60_000 });
      const view = sync.view('default/probe-me')!;
      assert.equal(view.kind, 'Pod');
      assert.equal(view.ready?.endsWith('/1'), true);

      const mineNow = () => (timeline.toArray() as SyncIterationEvent[]).filter((e) => e.key === 'default/probe-me');
      await eventually(() => mineNow().some((e) => e.source === 'pleg' && e.op === 'ContainerDied'), {
        description: 'PLEG ContainerDied after the restart',
        timeoutMs: 20_000,
      });
      const mine = mineNow();
      assert.ok(mine.some((e) => e.source === 'config' && e.op === 'ADD' && e.handler === 'HandlePodAdditions' && e.outcome === 'ok'));
      assert.ok(mine.some((e) => e.source === 'pleg' && e.op === 'ContainerStarted' && e.handler === 'HandlePodSyncs'));
      assert.ok(mine.some((e) => e.source === 'pleg' && e.op === 'ContainerDied' && e.handler === 'HandlePodSyncs'));
      // One liveness result per threshold crossing (failureThreshold 2): one per container the
      // kubelet killed, not one per Unhealthy Event (the kubelet sends two of those, and a Killing).
      const failures = mine.filter((e) => e.source === 'probe' && e.op === 'liveness' && e.handler === 'HandlePodSyncs');
      const restartsNow = sync.view('default/probe-me')!.restarts!;
      assert.ok(failures.length >= restartsNow && failures.length <= restartsNow + 1, `${failures.length} liveness results for ${restartsNow} restarts`);
      const ev = await t.kubectlOk(['-n', 'default', 'get', 'events', '--field-selector', 'involvedObject.name=probe-me,reason=Unhealthy', '-o', 'json']);
      const unhealthy = (JSON.parse(ev).items as { count?: number }[]).reduce((n, e) => n + (e.count ?? 1), 0);
      assert.ok(unhealthy >= 2 * restartsNow, `${unhealthy} Unhealthy occurrences`);
      assert.ok(failures.length < unhealthy, 'fewer results than failed attempts');
      assert.ok(Math.max(...restarts) >= 1);

      await t.kubectlOk(['-n', 'default', 'delete', 'pod', 'probe-me', '--now']);
      await eventually(() => lines.includes('SyncLoop REMOVE source="api" pods=["default/probe-me"] handler="HandlePodRemoves"'), {
        description: 'config REMOVE',
        timeoutMs: 20_000,
      });
      await eventually(() => sync.view('default/probe-me') === undefined, { description: 'gone from the model', timeoutMs: 20_000 });
      // terminated means the containers stopped: the kubelet's terminal status write showed it (the
      // API delete follows it), so the transition is seen, not inferred.
      const transition = (timeline.toArray() as SyncIterationEvent[]).find(
        (e) => e.source === 'podworker' && e.key === 'default/probe-me' && e.message?.startsWith('terminating -> terminated'),
      );
      assert.ok(transition, 'the worker went terminating -> terminated');
      assert.equal(transition.inferred, undefined, JSON.stringify(transition));
      await eventually(() => lines.some((l) => l.startsWith('SyncLoop (housekeeping) end') && l.includes('forgotten=["default/probe-me"]')), {
        description: 'housekeeping cleanup',
        timeoutMs: 6_000,
      });
      assert.equal(sync.workerCount, 0);
      assert.ok(!lines.some((l) => l.startsWith('E ')), lines.filter((l) => l.startsWith('E ')).join('\n'));
    } finally {
      await stop();
    }
  });
});

describe('kubeloop sync', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ kubelet: false });
    await t.kubectlOk(['-n', 'default', 'run', 'web', '--image=nginx']);
  });
  after(async () => {
    await t.close();
  });

  it('--json prints one object per iteration with at, t, source, op, key, handler, durationMs, outcome (then message, node, uid, data, inferred when present)', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runSync(['--kubeconfig', t.kubeconfig, '--namespace', 'default', '--duration', '2.5', '--json'], {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
    });
    assert.equal(code, 0, err.join('\n'));
    const objs = out.map((l) => JSON.parse(l));
    const fields = ['at', 't', 'source', 'op', 'key', 'handler', 'durationMs', 'outcome'];
    for (const o of objs) {
      assert.deepEqual(Object.keys(o).slice(0, 8), fields);
      assert.deepEqual(
        Object.keys(o).slice(8),
        ['message', 'node', 'uid', 'data', 'inferred'].filter((k) => k in o),
      );
      assert.match(o.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'a wall-clock ISO time');
    }

    assert.ok(
      objs.some((o) => o.key === 'default/web' && typeof o.uid === 'string'),
      "a single pod's iterations carry its UID",
    );
    assert.ok(!objs.some((o) => o.source === 'podworker'), 'iterations only');
    assert.ok(objs.some((o) => o.source === 'config' && o.op === 'ADD' && o.key === 'default/web' && o.handler === 'HandlePodAdditions'));
    assert.ok(objs.some((o) => o.source === 'sync' && o.op === 'tick'));
    assert.ok(objs.some((o) => o.source === 'housekeeping' && o.outcome === 'ok'));
    const ts = objs.map((o) => o.t);
    assert.deepEqual(
      ts,
      [...ts].sort((a, b) => a - b),
    );
  });

  it('prints the handler log lines without --json, and stops on its signal', async () => {
    const out: string[] = [];
    const stop = new AbortController();
    const run = runSync(['--kubeconfig', t.kubeconfig], { stdout: (l) => out.push(l), stderr: () => undefined, signal: stop.signal });
    await eventually(() => out.includes('SyncLoop ADD source="api" pods=["default/web"] handler="HandlePodAdditions"'), {
      description: 'ADD line',
      timeoutMs: 20_000,
    });
    stop.abort();
    assert.equal(await run, 0);
  });

  it('exits 1 for an unusable kubeconfig or flag, 2 when the API server is never reached', async () => {
    const err: string[] = [];
    const io = { stdout: () => undefined, stderr: (l: string) => err.push(l) };
    assert.equal(await runSync(['--kubeconfig', `${t.dir}/missing`], io), 1);
    assert.match(err.join('\n'), /file not found/);
    assert.equal(await runSync(['--duration', 'soon'], io), 1);
    const dead = `${t.dir}/dead-kubeconfig`;
    await writeFile(dead, (await readFile(t.kubeconfig, 'utf8')).replace(/server: .*/, 'server: http://127.0.0.1:9'));
    assert.equal(await runSync(['--kubeconfig', dead, '--duration', '1'], io), 2);
    assert.match(err.join('\n'), /Reflector failed, retrying reflector="api"/);
    assert.equal(await runSync(['--bogus'], io), 1);
  });
});
