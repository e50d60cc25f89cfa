/**
 * The writers story on the demo cluster with its planted writers (src/demo/writers.ts: fight-a and
 * fight-b taking one annotation from each other, looping-operator rewriting a ConfigMap 13 times a
 * second): the model fed by real watches finds both, and `kubeloop writers`, run as a child
 * process, flags the fight within 10 s of starting to watch.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { realClock } from '../../src/core/clock';
import { KubeClient } from '../../src/core/kube/client';
import { watchWriters } from '../../src/core/writers/source';
import { WriterStats, type WriterFinding } from '../../src/core/writers/stats';
import { FIGHT_ANNOTATION, FIGHTERS, HOT_LOOP_MANAGER } from '../../src/demo/writers';
import { eventually } from '../support/eventually';
import { startTestCluster, type TestCluster } from './demo-support';

const root = join(__dirname, '..', '..');
const CONTESTED = 'configmaps:writers/contested';
const HOT = 'configmaps:writers/hot';

describe('writers on the demo cluster', () => {
  let tc: TestCluster;
  before(async () => {
    tc = await startTestCluster({ writers: true, objects: 300, churnPerSecond: 30 });
  });
  after(async () => {
    await tc?.close();
  });

  it('the model fed by real watches names the fight, the hot loop and the unseen writes', async () => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig: tc.kubeconfig });
    const found: WriterFinding[] = [];
    const stats = new WriterStats({ clock: realClock, onFinding: (f) => found.push(f) });
    const stop = new AbortController();
    const types = [
      { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
      { group: '', version: 'v1', resource: 'pods', namespaced: true },
      { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
    ];
    const errors: string[] = [];
    const watching = watchWriters({ client, types, stats, clock: realClock, onError: (t, m) => errors.push(`${t}: ${m}`) }, stop.signal);
    try {
      const fight = await eventually(() => found.find((f) => f.kind === 'fight'), { description: 'a fight found', timeoutMs: 30_000 });
      assert.ok(fight.kind === 'fight');
      assert.equal(fight.key, CONTESTED);
      assert.equal(fight.path, `metadata.annotations.${FIGHT_ANNOTATION}`);
      assert.deepEqual([...fight.managers].sort(), [...FIGHTERS]);
      const loop = await eventually(() => found.find((f) => f.kind === 'hotloop'), { description: 'a hot loop found', timeoutMs: 30_000 });
      assert.ok(loop.kind === 'hotloop' && loop.key === HOT && loop.manager === HOT_LOOP_MANAGER, JSON.stringify(loop));
      const snap = stats.snapshot(20);
      const managers = snap.managers.map((m) => m.key);
      for (const m of [...FIGHTERS, HOT_LOOP_MANAGER]) assert.ok(managers.includes(m), `${m} among ${managers.join(', ')}`);
      assert.equal(snap.objects[0]!.key, HOT, 'the hot-looped object writes fastest');
      assert.ok(
        snap.unseenObjects.some((o) => o.key === HOT),
        'an annotation counter changes nothing a row shows',
      );
      assert.deepEqual(errors, []);
    } finally {
      stop.abort();
      await watching;
      client.close();
    }
  });

  it('kubeloop writers flags the planted fight within 10 s of watching', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), 'writers', '--kubeconfig', tc.kubeconfig, '--json', '--seconds', '60'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const lines = () =>
        out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { at: string; t?: number; finding?: WriterFinding });
      const fight = await eventually(() => lines().find((l) => l.finding?.kind === 'fight'), {
        description: `a fight line from kubeloop writers (stdout ${out.slice(-300)}; stderr ${err.slice(-300)})`,
        timeoutMs: 60_000,
      });
      assert.ok(fight.finding?.kind === 'fight' && fight.finding.key === CONTESTED, JSON.stringify(fight));
      // The first snapshot comes 1 s after the watches were started (its t is ms since then).
      const first = lines().find((l) => l.t !== undefined)!;
      const watchedFrom = Date.parse(first.at) - first.t!;
      const tookMs = Date.parse(fight.at) - watchedFrom;
      assert.ok(tookMs <= 10_000, `flagged ${tookMs} ms after watching began`);
      console.log(`# kubeloop writers flagged the fight ${tookMs} ms after watching began`);
    } finally {
      child.kill('SIGINT');
      assert.equal(await exited, 0, err);
    }
    assert.equal(err, '', 'nothing on stderr');
  });
});
