/**
 * Who wrote each version, in a recording the sync loop made: `kubeloop sync --record` during the
 * demo's planted fight (src/demo/writers.ts) keeps the fight's managers (the loop's watches keep
 * managedFields in their compact form while recording), so `kubeloop writers --recording` names the
 * fight's object, field and two managers from the file, not "(unknown)". A recording started and
 * stopped while the loop runs (the extension's Start Recording) switches the watches to keep the
 * managers and back, without a list.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSync } from '../../src/cli/sync';
import { KubeClient } from '../../src/core/kube/client';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { ClusterSync } from '../../src/core/syncloop/sources/cluster';
import { TimelineStore } from '../../src/core/timeline/store';
import { runWriters } from '../../src/cli/writers';
import { FIGHT_ANNOTATION, FIGHTERS } from '../../src/demo/writers';
import { eventually } from '../support/eventually';
import { startTestCluster, type TestCluster } from './demo-support';

const FIGHT_LINE = new RegExp(`^FIGHT configmaps:writers/contested metadata\\.annotations\\.${FIGHT_ANNOTATION.replace(/\./g, '\\.')}: `);

/** `kubeloop writers --recording FILE` in-process: its exit code and lines. */
async function replay(path: string): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runWriters(['--recording', path], { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
  return { code, out, err };
}

describe('writers from a sync loop recording', () => {
  let tc: TestCluster;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-sync-writers-'));
    tc = await startTestCluster({ writers: true, objects: 50 });
  });
  after(async () => {
    await tc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubeloop sync --record keeps the managers: kubeloop writers --recording names the fight', async () => {
    const path = join(dir, 'sync.klr');
    const stop = new AbortController();
    const err: string[] = [];
    const sync = runSync(['--kubeconfig', tc.kubeconfig, '--namespace', 'writers', '--watch', 'configmaps', '--record', path], {
      stdout: () => {},
      stderr: (l) => err.push(l),
      signal: stop.signal,
    });
    try {
      // The recording is read while the loop writes it (flushed every second) until it shows the fight.
      await eventually(async () => existsSync(path) && (await replay(path)).out.some((l) => FIGHT_LINE.test(l)), {
        description: 'the sync loop recording shows the fight',
        timeoutMs: 90_000,
      });
    } finally {
      stop.abort();
    }
    assert.equal(await sync, 0, err.join('\n'));

    const r = await replay(path);
    assert.equal(r.code, 0, r.err.join('\n'));
    const fights = r.out.filter((l) => FIGHT_LINE.test(l));
    assert.equal(fights.length, 1, r.out.join('\n'));
    const managers = /: (\S+) <-> (\S+) /.exec(fights[0]!)!.slice(1).sort();
    assert.deepEqual(managers, [...FIGHTERS].sort());
    for (const m of FIGHTERS)
      assert.ok(
        r.out.some((l) => l.trimStart().startsWith(`${m} `)),
        `manager ${m} in the report:\n${r.out.join('\n')}`,
      );
  });

  it("keepManagers switches a running loop's watches to the compact managers and back, without a list", async () => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig: tc.kubeconfig });
    const seen: StoredObject[] = [];
    const sync = new ClusterSync({
      client,
      timeline: new TimelineStore(1000),
      namespaces: ['writers'],
      types: [{ group: '', version: 'v1', resource: 'configmaps', namespaced: true }],
      observer: { replace: () => {}, apply: (_s, _t, e, o) => void (e === 'MODIFIED' && o.metadata.name === 'contested' && seen.push(o)) },
    });
    const stop = new AbortController();
    const running = sync.run(stop.signal);
    try {
      await eventually(() => sync.allSourcesReady() && sync.allWatching(), { description: 'sources listed and watching', timeoutMs: 20_000 });
      const configMaps = sync.running.find((r) => r.reflector.opts.gvr.resource === 'configmaps')!.reflector;
      const lists = configMaps.stats.lists;
      const managersOf = (o: StoredObject | undefined) => (o?.metadata.managedFields as { manager: string }[] | undefined)?.map((m) => m.manager).sort();
      let n = seen.length;
      const next = await eventually(() => seen[n], { description: 'a write of the fight', timeoutMs: 20_000 });
      assert.equal(managersOf(next), undefined, 'no managers kept before keepManagers(true)');

      sync.keepManagers(true);
      n = seen.length;
      // Each fighter's write names it (the other one's entry may go with the field it lost).
      const managersSince = (from: number) => new Set(seen.slice(from).flatMap((o) => managersOf(o) ?? []));
      await eventually(() => FIGHTERS.every((m) => managersSince(n).has(m)), { description: 'writes naming both fighters as managers', timeoutMs: 20_000 });
      for (const e of seen[seen.length - 1]!.metadata.managedFields as Record<string, unknown>[])
        assert.ok(!('apiVersion' in e) && !('fieldsType' in e) && typeof e.fieldsV1 === 'object', `compact form: ${JSON.stringify(e)}`);

      sync.keepManagers(false);
      n = seen.length;
      await eventually(() => seen.slice(n + 1).some((o) => managersOf(o) === undefined), { description: 'writes without managers again', timeoutMs: 20_000 });
      assert.equal(configMaps.stats.lists, lists, 'no list: the watch was reopened from where it was');
    } finally {
      stop.abort();
      await running;
      client.close();
    }
  });
});
