/**
 * Who wrote each version, in a recording the sync loop made: `kubeloop sync --record` during the
 * demo's planted fight (src/demo/writers.ts, on a ConfigMap) and a second fight on a Pod keeps both
 * fights' managers, so `kubeloop writers --recording` names each fight's object, field and two
 * managers from the file, not "(unknown)". The pods' watch is protobuf (seen on the wire, through a
 * recording proxy): the walker reads managedFields in their compact form itself
 * (kube/protobuf/managedFields.ts); the full ConfigMaps' watch is JSON, compacted by compactItem.
 * A recording started and stopped while the loop runs (the extension's Start Recording) switches the
 * watches to keep the managers and back, without a list, its ConfigMaps watched as the extension
 * watches them: metadata only, in protobuf.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSync } from '../../src/cli/sync';
import { KubeClient } from '../../src/core/kube/client';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { ClusterSync } from '../../src/core/syncloop/sources/cluster';
import { TimelineStore } from '../../src/core/timeline/store';
import { runWriters } from '../../src/cli/writers';
import type { DemoObject } from '../../src/demo/store';
import { FIGHT_ANNOTATION, FIGHTERS, WRITERS_NAMESPACE } from '../../src/demo/writers';
import { eventually } from '../support/eventually';
import { PROTOBUF, wireProxy, type Seen } from '../support/wireProxy';
import { startTestCluster, type TestCluster } from './demo-support';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const fightLine = (key: string) => new RegExp(`^FIGHT ${escape(key)} metadata\\.annotations\\.${escape(FIGHT_ANNOTATION)}: `);
const CONFIGMAP_FIGHT = fightLine(`configmaps:${WRITERS_NAMESPACE}/contested`);
const POD_FIGHT = fightLine(`${WRITERS_NAMESPACE}/contested-pod`);

/** `kubeloop writers --recording FILE` in-process: its exit code and lines. */
async function replay(path: string): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runWriters(['--recording', path], { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
  return { code, out, err };
}

/** The watches of `resource` seen on the wire (a watch-list's initial events included). */
const watchesOf = (seen: Seen[], resource: string) => seen.filter((s) => s.url.includes(`/${resource}?`) && /[?&]watch=(1|true)/.test(s.url));

/**
 * A second fight, on a Pod (a kind the loop always watches in protobuf): the demo's two fighters
 * take the same annotation from each other every `periodMs`, through the demo's store (so
 * managedFields name each writer as kube-apiserver's would).
 */
function podFight(tc: TestCluster, periodMs: number): () => void {
  const store = tc.cluster.store;
  const name = 'contested-pod';
  store.create(
    '',
    'pods',
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: WRITERS_NAMESPACE },
      spec: { nodeName: 'demo-node-1', containers: [{ name: 'c', image: 'nginx:1.27' }] },
      status: { phase: 'Pending' },
    } as unknown as DemoObject,
    { manager: 'test' },
  );
  let i = 0;
  const timer = setInterval(() => {
    const manager = FIGHTERS[i++ % 2]!;
    const p = store.get('', 'pods', WRITERS_NAMESPACE, name)!;
    const annotations = { ...((p.metadata.annotations as Record<string, string> | undefined) ?? {}), [FIGHT_ANNOTATION]: manager };
    store.update('', 'pods', { ...p, metadata: { ...p.metadata, annotations } }, { manager });
  }, periodMs);
  return () => clearInterval(timer);
}

describe('writers from a sync loop recording', () => {
  let tc: TestCluster;
  let dir: string;
  let proxy: Awaited<ReturnType<typeof wireProxy>>;
  let kubeconfig: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-sync-writers-'));
    tc = await startTestCluster({ writers: true, objects: 50 });
    assert.ok(tc.cluster.url.startsWith('http://'), 'the demo cluster serves plain HTTP here');
    proxy = await wireProxy(tc.cluster.url);
    kubeconfig = join(dir, 'via-proxy');
    writeFileSync(kubeconfig, readFileSync(tc.kubeconfig, 'utf8').split(tc.cluster.url).join(proxy.url));
    await eventually(() => tc.cluster.store.get('', 'namespaces', undefined, WRITERS_NAMESPACE), { description: 'the writers namespace', timeoutMs: 20_000 });
  });
  after(async () => {
    await proxy?.close();
    await tc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubeloop sync --record keeps the managers: kubeloop writers --recording names both fights, the pods watched in protobuf', async () => {
    const path = join(dir, 'sync.klr');
    const stop = new AbortController();
    const err: string[] = [];
    const stopPodFight = podFight(tc, 300);
    proxy.seen.length = 0;
    const sync = runSync(['--kubeconfig', kubeconfig, '--namespace', WRITERS_NAMESPACE, '--watch', 'configmaps', '--record', path], {
      stdout: () => {},
      stderr: (l) => err.push(l),
      signal: stop.signal,
    });
    try {
      // The recording is read while the loop writes it (flushed every second) until it shows both fights.
      await eventually(
        async () => {
          if (!existsSync(path)) return false;
          const out = (await replay(path)).out;
          return out.some((l) => CONFIGMAP_FIGHT.test(l)) && out.some((l) => POD_FIGHT.test(l));
        },
        { description: 'the sync loop recording shows the ConfigMap fight and the Pod fight', timeoutMs: 90_000 },
      );
    } finally {
      stop.abort();
      stopPodFight();
    }
    assert.equal(await sync, 0, err.join('\n'));

    const pods = watchesOf(proxy.seen, 'pods');
    assert.ok(pods.length > 0, `the pods were watched: ${JSON.stringify(proxy.seen.map((s) => s.url))}`);
    for (const w of pods)
      assert.ok(w.accept.startsWith(PROTOBUF) && w.contentType.startsWith(PROTOBUF), `pods watch ${w.url}: asked ${w.accept}, answered ${w.contentType}`);
    const configMaps = watchesOf(proxy.seen, 'configmaps');
    assert.ok(configMaps.length > 0 && configMaps.every((w) => w.contentType.startsWith('application/json')), 'full ConfigMaps are watched in JSON');

    const r = await replay(path);
    assert.equal(r.code, 0, r.err.join('\n'));
    for (const line of [CONFIGMAP_FIGHT, POD_FIGHT]) {
      const fights = r.out.filter((l) => line.test(l));
      assert.equal(fights.length, 1, r.out.join('\n'));
      const managers = /: (\S+) <-> (\S+) /.exec(fights[0]!)!.slice(1).sort();
      assert.deepEqual(managers, [...FIGHTERS].sort(), fights[0]);
    }
    for (const m of FIGHTERS)
      assert.ok(
        r.out.some((l) => l.trimStart().startsWith(`${m} `)),
        `manager ${m} in the report:\n${r.out.join('\n')}`,
      );
  });

  it("keepManagers switches a running loop's protobuf watches to the compact managers and back, without a list", async () => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig });
    const seen: StoredObject[] = [];
    // ConfigMaps as the extension's loop watches them (app/sync/informerTypes.ts): metadata only.
    const sync = new ClusterSync({
      client,
      timeline: new TimelineStore(1000),
      namespaces: [WRITERS_NAMESPACE],
      types: [{ group: '', version: 'v1', resource: 'configmaps', namespaced: true, metadataOnly: true, kind: 'ConfigMap' }],
      observer: { replace: () => {}, apply: (_s, _t, e, o) => void (e === 'MODIFIED' && o.metadata.name === 'contested' && seen.push(o)) },
    });
    const stop = new AbortController();
    proxy.seen.length = 0;
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
      type Set3 = Record<string, Record<string, Record<string, object>> | undefined>;
      const fought = (seen[seen.length - 1]!.metadata.managedFields as { fieldsV1: Set3 }[]).some(
        (e) => e.fieldsV1['f:metadata']?.['f:annotations']?.[`f:${FIGHT_ANNOTATION}`] !== undefined,
      );
      assert.ok(fought, "the fought-over annotation is in a manager's field set");

      sync.keepManagers(false);
      n = seen.length;
      await eventually(() => seen.slice(n + 1).some((o) => managersOf(o) === undefined), { description: 'writes without managers again', timeoutMs: 20_000 });
      assert.equal(configMaps.stats.lists, lists, 'no list: the watch was reopened from where it was');

      const watches = watchesOf(proxy.seen, 'configmaps');
      assert.ok(watches.length >= 3, `a watch, one reopened with managers and one without: ${JSON.stringify(watches)}`);
      for (const w of watches) assert.ok(w.contentType.startsWith(PROTOBUF), `configmaps watch ${w.url}: answered ${w.contentType}`);
    } finally {
      stop.abort();
      await running;
      client.close();
    }
  });
});
