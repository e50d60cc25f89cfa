/**
 * The sync loop for a user with rights to one namespace (demo cluster RBAC, --grant): with no
 * namespaces chosen, one list+watch access review at start decides where each source watches, as
 * the loader's review decides where it lists. The team-a user's loop sees its pod (config ADD, PLEG
 * ContainerStarted) without one cluster-wide pods request; a type it may not watch anywhere is
 * reported once (warning, one housekeeping error on the timeline) and never requested; without the
 * reviews a cluster-wide 403 narrows the watch to the context namespace once; `list` without
 * `watch` is not enough; `kubeloop sync` with pods forbidden says so and exits 3. The extension's
 * sync runner (as Start Sync Loop wires it) keeps the tree live for team-a.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runSync } from '../../src/cli/sync';
import { KubeClient, loadKubeContext } from '../../src/core/kube';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { TimelineStore } from '../../src/core/timeline/store';
import { startKubelet, type Kubelet } from '../../src/demo/kubelet';
import type { DemoObject } from '../../src/demo/store';
import { createLogger } from '../../src/app/logger';
import { runLoad as runExtensionLoad } from '../../src/app/load/loadRunner';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { defaultSettings } from '../../src/app/settings';
import { informerTypes } from '../../src/app/sync/informerTypes';
import { SyncRunner } from '../../src/app/sync/syncRunner';
import { demo, type Fixture } from './loader-helpers';
import { eventually } from '../support/eventually';
import { startSync } from '../support/syncLoop';

const GRANTS = [
  // alice: a Role with get/list/watch of everything, bound in team-a only.
  'alice:team-a:get,list,watch:*:*',
  // erin: pods (and configmaps) in team-a only: Events are forbidden everywhere.
  'erin:team-a:get,list,watch::pods',
  'erin:team-a:get,list,watch::configmaps',
  // dave: may list in team-a, but not watch.
  'dave:team-a:get,list:*:*',
];

const iterations = (tl: TimelineStore) => tl.toArray().filter((e): e is SyncIterationEvent => e.kind === 'iteration');

function pod(name: string): DemoObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team-a' },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  } as unknown as DemoObject;
}

describe('the sync loop with limited rights (demo cluster RBAC)', () => {
  let fx: Fixture;
  let kubelet: Kubelet;
  const kc: Record<string, string> = {};

  before(async () => {
    fx = await demo(0, { grants: GRANTS, tls: true });
    const store = fx.cluster.store;
    store.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } } as DemoObject);
    store.create('', 'pods', { ...pod('elsewhere'), metadata: { name: 'elsewhere', namespace: 'default' } } as DemoObject);
    for (const user of ['alice', 'erin', 'dave']) {
      kc[user] = join(fx.dir, `kubeconfig-${user}`);
      await fx.cluster.writeKubeconfig(kc[user]!, { user, namespace: 'team-a' });
    }
    kubelet = startKubelet(fx.cluster.store, { speed: 10 });
  });
  after(async () => {
    kubelet.stop();
    await fx.stop();
  });

  /** Requests by "verb resource@namespace" since `before`. */
  const since = (before: Record<string, number>) =>
    Object.fromEntries(Object.entries(fx.cluster.stats.requestsByScope).flatMap(([k, n]) => (n - (before[k] ?? 0) > 0 ? [[k, n - (before[k] ?? 0)]] : [])));
  const forbiddenAnswers = () => fx.cluster.stats.responsesByCode['403'] ?? 0;

  async function running(user: string, opts: { review: boolean; types?: { group: string; version: string; resource: string }[] }) {
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: kc[user] }));
    const r = await startSync(
      { client },
      {
        housekeepingPeriodMs: 200,
        ...(opts.review ? { reviewer: client } : {}),
        contextNamespace: client.context.namespace,
        ...(opts.types ? { types: opts.types } : {}),
        ready: false,
      },
    );
    return { ...r, close: r.stop };
  }

  it('alice (team-a only): the review scopes pods and Events to team-a; its pod is added and started; no cluster-wide pods request', async () => {
    const before = { ...fx.cluster.stats.requestsByScope };
    const refused = forbiddenAnswers();
    const r = await running('alice', { review: true });
    try {
      await eventually(() => r.sync.allSourcesReady() && r.sync.running.every((x) => x.reflector.state === 'watching'), {
        description: 'sources watching',
        timeoutMs: 20_000,
      });
      fx.cluster.store.create('', 'pods', pod('web-1'));
      await eventually(() => iterations(r.timeline).some((e) => e.source === 'config' && e.op === 'ADD' && e.key === 'team-a/web-1'), {
        description: 'config ADD of team-a/web-1',
        timeoutMs: 20_000,
      });
      await eventually(() => iterations(r.timeline).some((e) => e.source === 'pleg' && e.op === 'ContainerStarted' && e.key === 'team-a/web-1'), {
        description: 'PLEG ContainerStarted for team-a/web-1',
        timeoutMs: 20_000,
      });
      const asked = since(before);
      for (const k of Object.keys(asked)) {
        assert.ok(!/^(list|watch) (pods|events)@\*$/.test(k), `a cluster-wide request was made: ${k} (${JSON.stringify(asked)})`);
      }
      assert.ok((asked['watch pods@team-a'] ?? 0) >= 1 && (asked['watch events@team-a'] ?? 0) >= 1, JSON.stringify(asked));
      assert.equal(forbiddenAnswers() - refused, 0, 'no request was refused');
      // The reviews, once per start: one SSAR per verb (list, watch), rules in team-a and in the probe namespace.
      const reviews = (r: string) =>
        Object.entries(asked)
          .filter(([k]) => k.startsWith(`create ${r}.authorization.k8s.io@`))
          .reduce((n, [, v]) => n + v, 0);
      assert.deepEqual([reviews('selfsubjectaccessreviews'), reviews('selfsubjectrulesreviews')], [2, 2], JSON.stringify(asked));
      assert.ok(!iterations(r.timeline).some((e) => e.key === 'default/elsewhere'), 'a pod outside team-a is not seen');
      assert.deepEqual(r.sync.forbidden, []);
      assert.equal(r.sync.watchScope({ group: '', resource: 'pods' }), 'team-a');
      assert.ok(
        r.lines.some((l) => l.startsWith('Watching in the context namespace only') && l.includes('type="pods"')),
        r.lines.join('\n'),
      );
    } finally {
      await r.close();
    }
  });

  it('erin (pods in team-a, no Events): Events are reported forbidden once, never requested; the loop goes on with pods', async () => {
    const before = { ...fx.cluster.stats.requestsByScope };
    const refused = forbiddenAnswers();
    const r = await running('erin', { review: true, types: [{ group: '', version: 'v1', resource: 'configmaps' }] });
    try {
      await eventually(() => r.sync.allSourcesReady(), { description: 'sources ready', timeoutMs: 20_000 });
      const hk = () => iterations(r.timeline).filter((e) => e.source === 'housekeeping');
      await eventually(() => hk().some((e) => e.outcome === 'error'), { description: 'a housekeeping error', timeoutMs: 20_000 });
      const at = hk().length;
      await eventually(() => hk().length >= at + 5, { description: 'five more housekeeping iterations', timeoutMs: 20_000 });
      const errors = hk().filter((e) => e.outcome === 'error');
      assert.equal(errors.length, 1, 'reported on the timeline once');
      assert.match(
        errors[0]!.message ?? '',
        /Not watching events: events is forbidden: the user may not list and watch events across all namespaces, nor in the namespace "team-a"/,
      );
      const warnings = r.lines.filter((l) => l.startsWith('W '));
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0]!, /type="events" namespace="\(all namespaces\)"/);
      assert.deepEqual(
        r.sync.forbidden.map((f) => [f.gvr.resource, f.by]),
        [['events', 'review']],
      );
      const asked = since(before);
      assert.ok(!Object.keys(asked).some((k) => k.includes(' events@')), `Events were requested: ${JSON.stringify(asked)}`);
      assert.ok((asked['watch configmaps@team-a'] ?? 0) >= 1 && !asked['watch configmaps@*'], JSON.stringify(asked));
      assert.equal(forbiddenAnswers() - refused, 0, 'no request was refused');
      fx.cluster.store.create('', 'pods', pod('erin-1'));
      await eventually(() => iterations(r.timeline).some((e) => e.source === 'pleg' && e.op === 'ContainerStarted' && e.key === 'team-a/erin-1'), {
        description: 'PLEG ContainerStarted for team-a/erin-1',
        timeoutMs: 20_000,
      });
    } finally {
      await r.close();
    }
  });

  it('without the reviews: a cluster-wide 403 narrows pods to team-a once; Events, forbidden there too, are reported once and not retried', async () => {
    const before = { ...fx.cluster.stats.requestsByScope };
    const r = await running('erin', { review: false });
    try {
      await eventually(() => r.sync.allSourcesReady() && r.sync.forbidden.length === 1, {
        description: 'pods listed in team-a, Events forbidden',
        timeoutMs: 20_000,
      });
      fx.cluster.store.create('', 'pods', pod('erin-2'));
      await eventually(() => iterations(r.timeline).some((e) => e.source === 'config' && e.op === 'ADD' && e.key === 'team-a/erin-2'), {
        description: 'config ADD of team-a/erin-2',
        timeoutMs: 20_000,
      });
      const hk = () => iterations(r.timeline).filter((e) => e.source === 'housekeeping');
      const at = hk().length;
      await eventually(() => hk().length >= at + 5, { description: 'five more housekeeping iterations', timeoutMs: 20_000 });
      const asked = since(before);
      // One refused cluster-wide watch-list each, one refused team-a one for Events, nothing retried.
      assert.equal(asked['watch pods@*'], 1, JSON.stringify(asked));
      assert.equal(asked['watch events@*'], 1, JSON.stringify(asked));
      assert.equal(asked['watch events@team-a'], 1, JSON.stringify(asked));
      assert.ok(!asked['list pods@*'] && !asked['list events@*'] && !asked['list events@team-a'], JSON.stringify(asked));
      assert.equal(r.sync.running.find((x) => x.source === 'api')!.reflector.narrowed, 1);
      assert.equal(r.sync.watchScope({ group: '', resource: 'pods' }), 'team-a');
      assert.deepEqual(
        r.sync.forbidden.map((f) => [f.gvr.resource, f.namespace, f.by]),
        [['events', 'team-a', 'request']],
      );
      assert.equal(hk().filter((e) => e.outcome === 'error').length, 1, 'reported on the timeline once');
      assert.equal(r.lines.filter((l) => l.startsWith('W ') && l.includes('narrowing')).length, 2, r.lines.join('\n'));
      assert.equal(r.lines.filter((l) => l.startsWith('W Reflector forbidden, not retrying')).length, 1, r.lines.join('\n'));
      assert.ok(!r.lines.some((l) => l.startsWith('E Reflector failed')), 'no 403 was retried with backoff');
    } finally {
      await r.close();
    }
  });

  it('dave (list but no watch): pods are forbidden; kubeloop sync says so on stderr and exits 3 at once', async () => {
    const before = { ...fx.cluster.stats.requestsByScope };
    const out: string[] = [];
    const err: string[] = [];
    const started = Date.now();
    const code = await runSync(['--kubeconfig', kc.dave!, '--json', '--duration', '60'], { stdout: (l) => out.push(l), stderr: (l) => err.push(l) });
    assert.equal(code, 3, err.join('\n'));
    assert.ok(Date.now() - started < 30_000, 'ended at once, not at --duration');
    const text = err.join('\n');
    assert.match(
      text,
      /may not list and watch pods .*nothing to sync: pods is forbidden: the user may not list and watch pods across all namespaces, nor in the namespace "team-a"/,
    );
    assert.equal(err.filter((l) => l.includes('type="pods"')).length, 1, text);
    assert.ok(!Object.keys(since(before)).some((k) => k.startsWith('watch ') || k.startsWith('list ')), JSON.stringify(since(before)));
  });

  it("kubeloop sync --json as alice: its pod's config ADD, no 403 on stderr, exit 0", async () => {
    fx.cluster.store.create('', 'pods', pod('cli-1'));
    const out: string[] = [];
    const err: string[] = [];
    const stop = new AbortController();
    const p = runSync(['--kubeconfig', kc.alice!, '--json'], { stdout: (l) => out.push(l), stderr: (l) => err.push(l), signal: stop.signal });
    try {
      // The first SET's ADD names every pod already there in one iteration (keys joined by commas).
      const added = () =>
        out
          .map((l) => JSON.parse(l))
          .filter((e) => e.source === 'config' && e.op === 'ADD')
          .flatMap((e) => String(e.key).split(','));
      await eventually(() => added().includes('team-a/cli-1'), { description: 'config ADD of team-a/cli-1', timeoutMs: 20_000 });
      assert.ok(!added().some((k) => !k.startsWith('team-a/')), added().join(' '));
    } finally {
      stop.abort();
    }
    assert.equal(await p, 0, err.join('\n'));
    assert.ok(!err.some((l) => /forbidden|403/i.test(l)), err.join('\n'));
  });

  it("the extension's sync runner as alice (Start Sync Loop): the tree stays live for team-a, nothing cluster-wide is asked, nothing refused", async () => {
    const ctx = loadKubeContext({ kubeconfig: kc.alice });
    const client = await KubeClient.connect(ctx);
    const lines: string[] = [];
    const log = createLogger(
      {
        trace: () => undefined,
        debug: () => undefined,
        info: (m) => lines.push(`info ${m}`),
        warn: (m) => lines.push(`warn ${m}`),
        error: (m) => lines.push(`error ${m}`),
      },
      () => 'info',
    );
    const model = new ResourceModel();
    const store = fx.cluster.store;
    for (let i = 0; i < 3; i++)
      store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `ext-cm-${i}`, namespace: 'team-a' }, data: {} } as DemoObject);
    await runExtensionLoad({
      client,
      contextName: 'alice@kubeloop-demo',
      settings: defaultSettings(),
      model,
      timeline: new TimelineStore(),
      log,
      origin: 0,
      loadId: 't',
      signal: new AbortController().signal,
    });
    assert.equal(model.bucket('team-a', 'configmaps')?.objects.size, 3);
    // The types as the SyncController passes them: loaded, watchable, not failed, with their scope.
    const types = informerTypes(model);
    assert.ok(types.length > 5 && types.some((t) => t.resource === 'configmaps'), JSON.stringify(types));
    const before = { ...fx.cluster.stats.requestsByScope };
    const refused = forbiddenAnswers();
    const runner = new SyncRunner({
      client,
      contextName: 'alice@kubeloop-demo',
      namespaces: [],
      types,
      reviewer: client,
      ...(ctx.namespace ? { contextNamespace: ctx.namespace } : {}),
      syncPeriodSeconds: 10,
      pageSize: 500,
      model,
      timeline: new TimelineStore(),
      log,
      origin: 0,
      reconcileEveryMs: 200,
    });
    try {
      await eventually(() => runner.sourcesReady(), { description: 'every source to list', timeoutMs: 20_000 });
      store.create('', 'pods', pod('ext-1'));
      await eventually(() => !!model.object('team-a', 'pods', 'ext-1'), { description: 'the new pod in the tree', timeoutMs: 20_000 });
      await eventually(() => model.object('team-a', 'pods', 'ext-1')?.view.status === 'Running', {
        description: 'the pod Running in the tree',
        timeoutMs: 20_000,
      });
      store.delete('', 'configmaps', 'team-a', 'ext-cm-0');
      await eventually(() => !model.object('team-a', 'configmaps', 'ext-cm-0'), { description: 'the deleted ConfigMap to leave the tree', timeoutMs: 20_000 });
      assert.ok(!!model.object('team-a', 'configmaps', 'ext-cm-1'), 'the others stay');
      const asked = since(before);
      assert.ok(!Object.keys(asked).some((k) => /^(list|watch) .*@\*$/.test(k)), `cluster-wide requests: ${JSON.stringify(asked)}`);
      assert.equal(forbiddenAnswers() - refused, 0, 'no request was refused');
      assert.ok(!lines.some((l) => l.startsWith('error ') || l.startsWith('warn ')), lines.filter((l) => !l.startsWith('info ')).join('\n'));
    } finally {
      await runner.stop();
      client.close();
    }
  });
});
