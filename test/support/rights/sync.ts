/**
 * The sync loop with limited rights, written once and run on the demo cluster (integration tier)
 * and on a real kube-apiserver (apiserver tier). With no namespaces chosen, one list+watch access
 * review at start decides where each source watches, as the loader's review decides where it lists.
 * The team-a user's loop sees its pod (config ADD, PLEG ContainerStarted) and nothing elsewhere; a
 * type it may not watch anywhere is reported once (warning, one housekeeping error on the timeline)
 * and never requested; without the reviews a cluster-wide 403 narrows the watch to the context
 * namespace once; `list` without `watch` is not enough: `kubeloop sync` with pods forbidden says so
 * and exits 3. The extension's sync runner (as Start Sync Loop wires it) keeps the tree live for
 * team-a. What was asked of the server is checked where the server counts it (the demo cluster).
 */
import { it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { runSync } from '../../../src/cli/sync';
import { KubeClient, loadKubeContext } from '../../../src/core/kube';
import type { SyncIterationEvent } from '../../../src/core/timeline/events';
import { TimelineStore } from '../../../src/core/timeline/store';
import { createLogger } from '../../../src/app/logger';
import { ResourceModel } from '../../../src/app/model/resourceModel';
import { informerTypes } from '../../../src/app/sync/informerTypes';
import { SyncRunner } from '../../../src/app/sync/syncRunner';
import { eventually } from '../eventually';
import { startSync } from '../syncLoop';
import { extensionLoad, requestsSince, type RightsServer } from './server';

const iterations = (tl: TimelineStore) => tl.toArray().filter((e): e is SyncIterationEvent => e.kind === 'iteration');
/** The object keys an iteration names (the first SET's ADD names every pod in one, joined by commas). */
const keysOf = (key: string | undefined) => String(key ?? '').split(',');
/** Keys of objects outside team-a that a team-a user's loop named. */
const outsideTeamA = (keys: string[]) => keys.filter((k) => k.includes('/') && !k.startsWith('team-a/'));

/** `kubeloop sync --json` in-process until stopped: its iterations (parsed), its stderr, its exit status. */
function cliSync(kubeconfig: string) {
  const out: any[] = [];
  const err: string[] = [];
  const stop = new AbortController();
  const code = runSync(['--kubeconfig', kubeconfig, '--json'], { stdout: (l) => out.push(JSON.parse(l)), stderr: (l) => err.push(l), signal: stop.signal });
  const has = (source: string, op: string, key: string) => out.some((e) => e.source === source && e.op === op && keysOf(e.key).includes(key));
  const housekeeping = () => out.filter((e) => e.source === 'housekeeping').length;
  return { out, err, has, housekeeping, stop: async () => (stop.abort(), code) };
}

type Scenario = [name: string, run: (s: RightsServer, t: TestContext) => Promise<void>];
const SCENARIOS: Scenario[] = [];
const scenario = (name: string, run: Scenario[1]) => void SCENARIOS.push([name, run]);

async function running(s: RightsServer, user: string, opts: { review: boolean; types?: { group: string; version: string; resource: string }[] }) {
  const client = await KubeClient.connect(loadKubeContext({ kubeconfig: await s.kubeconfig(user) }));
  return startSync(
    { client },
    {
      housekeepingPeriodMs: 200,
      ...(opts.review ? { reviewer: client } : {}),
      contextNamespace: client.context.namespace,
      ...(opts.types ? { types: opts.types } : {}),
      ready: false,
    },
  );
}

scenario(
  'alice (team-a only): the review scopes pods and Events to team-a; its pod is added and started; nothing elsewhere, no cluster-wide pods request',
  async (s) => {
    const before = s.counters?.byScope() ?? {};
    const refused = s.counters?.refused() ?? 0;
    const r = await running(s, 'alice', { review: true });
    try {
      await eventually(() => r.sync.allSourcesReady() && r.sync.allWatching(), {
        description: 'sources watching',
        timeoutMs: 20_000,
      });
      await s.runPod('team-a', 'web-1');
      await eventually(() => iterations(r.timeline).some((e) => e.source === 'config' && e.op === 'ADD' && keysOf(e.key).includes('team-a/web-1')), {
        description: 'config ADD of team-a/web-1',
        timeoutMs: 20_000,
      });
      await eventually(() => iterations(r.timeline).some((e) => e.source === 'pleg' && e.op === 'ContainerStarted' && e.key === 'team-a/web-1'), {
        description: 'PLEG ContainerStarted for team-a/web-1',
        timeoutMs: 20_000,
      });
      // Freshness marks name a watched type (`pods:team-a/*`), not a pod: the pods' iterations are what this reads.
      const podIterations = iterations(r.timeline).filter((e) => e.source !== 'freshness');
      assert.deepEqual(outsideTeamA(podIterations.flatMap((e) => keysOf(e.key))), [], 'a pod outside team-a is not seen');
      assert.deepEqual(r.sync.forbidden, []);
      assert.equal(r.sync.watchScope({ group: '', resource: 'pods' }), 'team-a');
      assert.ok(
        r.lines.some((l) => l.startsWith('Watching in the context namespace only') && l.includes('type="pods"')),
        r.lines.join('\n'),
      );
      assert.ok(!r.lines.some((l) => l.startsWith('E Reflector failed')), r.lines.join('\n'));
      if (s.counters) {
        const asked = requestsSince(s.counters, before);
        for (const k of Object.keys(asked)) {
          assert.ok(!/^(list|watch) (pods|events)@\*$/.test(k), `a cluster-wide request was made: ${k} (${JSON.stringify(asked)})`);
        }
        assert.ok((asked['watch pods@team-a'] ?? 0) >= 1 && (asked['watch events@team-a'] ?? 0) >= 1, JSON.stringify(asked));
        assert.equal(s.counters.refused() - refused, 0, 'no request was refused');
        // The reviews, once per start: one SSAR per verb (list, watch), rules in team-a and in the probe namespace.
        const reviews = (kind: string) =>
          Object.entries(asked)
            .filter(([k]) => k.startsWith(`create ${kind}.authorization.k8s.io@`))
            .reduce((n, [, v]) => n + v, 0);
        assert.deepEqual([reviews('selfsubjectaccessreviews'), reviews('selfsubjectrulesreviews')], [2, 2], JSON.stringify(asked));
      }
    } finally {
      await r.stop();
    }
  },
);

scenario('erin (pods and configmaps in team-a, no Events): Events are reported forbidden once, never requested; the loop goes on with pods', async (s) => {
  const before = s.counters?.byScope() ?? {};
  const refused = s.counters?.refused() ?? 0;
  const r = await running(s, 'erin', { review: true, types: [{ group: '', version: 'v1', resource: 'configmaps' }] });
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
    assert.equal(r.sync.watchScope({ group: '', resource: 'configmaps' }), 'team-a');
    if (s.counters) {
      const asked = requestsSince(s.counters, before);
      assert.ok(!Object.keys(asked).some((k) => k.includes(' events@')), `Events were requested: ${JSON.stringify(asked)}`);
      assert.ok((asked['watch configmaps@team-a'] ?? 0) >= 1 && !asked['watch configmaps@*'], JSON.stringify(asked));
      assert.equal(s.counters.refused() - refused, 0, 'no request was refused');
    }
    await s.runPod('team-a', 'erin-1');
    await eventually(() => iterations(r.timeline).some((e) => e.source === 'pleg' && e.op === 'ContainerStarted' && e.key === 'team-a/erin-1'), {
      description: 'PLEG ContainerStarted for team-a/erin-1',
      timeoutMs: 20_000,
    });
  } finally {
    await r.stop();
  }
});

scenario(
  'erin without the reviews: a cluster-wide 403 narrows pods to team-a once; Events, forbidden there too, are reported once and not retried',
  async (s) => {
    const before = s.counters?.byScope() ?? {};
    const r = await running(s, 'erin', { review: false });
    try {
      await eventually(() => r.sync.allSourcesReady() && r.sync.forbidden.length === 1, {
        description: 'pods listed in team-a, Events forbidden',
        timeoutMs: 20_000,
      });
      await s.runPod('team-a', 'erin-2');
      await eventually(() => iterations(r.timeline).some((e) => e.source === 'config' && e.op === 'ADD' && keysOf(e.key).includes('team-a/erin-2')), {
        description: 'config ADD of team-a/erin-2',
        timeoutMs: 20_000,
      });
      const hk = () => iterations(r.timeline).filter((e) => e.source === 'housekeeping');
      const at = hk().length;
      await eventually(() => hk().length >= at + 5, { description: 'five more housekeeping iterations', timeoutMs: 20_000 });
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
      if (s.counters) {
        const asked = requestsSince(s.counters, before);
        // One refused cluster-wide watch-list each, one refused team-a one for Events, nothing retried.
        assert.equal(asked['watch pods@*'], 1, JSON.stringify(asked));
        assert.equal(asked['watch events@*'], 1, JSON.stringify(asked));
        assert.equal(asked['watch events@team-a'], 1, JSON.stringify(asked));
        assert.ok(!asked['list pods@*'] && !asked['list events@*'] && !asked['list events@team-a'], JSON.stringify(asked));
      }
    } finally {
      await r.stop();
    }
  },
);

scenario('dave (list but no watch): pods are forbidden; kubeloop sync says so on stderr and exits 3 at once', async (s) => {
  const before = s.counters?.byScope() ?? {};
  const out: string[] = [];
  const err: string[] = [];
  const started = Date.now();
  const code = await runSync(['--kubeconfig', await s.kubeconfig('dave'), '--json', '--duration', '60'], {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
  });
  assert.equal(code, 3, err.join('\n'));
  assert.ok(Date.now() - started < 30_000, 'ended at once, not at --duration');
  const text = err.join('\n');
  assert.match(
    text,
    /may not list and watch pods .*nothing to sync: pods is forbidden: the user may not list and watch pods across all namespaces, nor in the namespace "team-a"/,
  );
  assert.equal(err.filter((l) => l.includes('type="pods"')).length, 1, text);
  if (s.counters) {
    const asked = requestsSince(s.counters, before);
    assert.ok(!Object.keys(asked).some((k) => k.startsWith('watch ') || k.startsWith('list ')), JSON.stringify(asked));
  }
});

scenario(
  "kubeloop sync --json as alice: its pod's config ADD and ContainerStarted, nothing outside team-a, no error, no 403 and no retry loop, exit 0",
  async (s) => {
    const cli = cliSync(await s.kubeconfig('alice'));
    try {
      await s.runPod('team-a', 'cli-1');
      await eventually(() => cli.has('config', 'ADD', 'team-a/cli-1'), { description: 'config ADD of team-a/cli-1', timeoutMs: 30_000 });
      await eventually(() => cli.has('pleg', 'ContainerStarted', 'team-a/cli-1'), { description: 'PLEG ContainerStarted for team-a/cli-1', timeoutMs: 30_000 });
      // Several housekeeping periods (2 s each): a 403 retried with backoff would have shown by now.
      const at = cli.housekeeping();
      await eventually(() => cli.housekeeping() >= at + 2, { description: 'two more housekeeping iterations', timeoutMs: 30_000 });
    } finally {
      assert.equal(await cli.stop(), 0, cli.err.join('\n'));
    }
    const added = cli.out.filter((e) => e.source === 'config' && e.op === 'ADD').flatMap((e) => keysOf(e.key));
    assert.ok(!added.some((k) => !k.startsWith('team-a/')), added.join(' '));
    assert.deepEqual(outsideTeamA(cli.out.flatMap((e) => keysOf(e.key))), [], 'a pod outside team-a was seen');
    assert.ok(!cli.out.some((e) => e.outcome === 'error'), JSON.stringify(cli.out.filter((e) => e.outcome === 'error')));
    assert.deepEqual(
      cli.err.filter((l) => /forbidden|403|Reflector failed/i.test(l)),
      [],
    );
  },
);

scenario('kubeloop sync --json as erin (no Events): Events reported once on stderr and on the timeline; pods still sync', async (s) => {
  const cli = cliSync(await s.kubeconfig('erin'));
  try {
    await s.runPod('team-a', 'erin-3');
    await eventually(() => cli.has('pleg', 'ContainerStarted', 'team-a/erin-3'), { description: 'PLEG ContainerStarted for team-a/erin-3', timeoutMs: 30_000 });
    const at = cli.housekeeping();
    await eventually(() => cli.housekeeping() >= at + 2, { description: 'two more housekeeping iterations', timeoutMs: 30_000 });
  } finally {
    assert.equal(await cli.stop(), 0, cli.err.join('\n'));
  }
  const warnings = cli.err.filter((l) => l.includes('forbidden'));
  assert.equal(warnings.length, 1, cli.err.join('\n'));
  assert.match(warnings[0]!, /^W Reflector forbidden, not watched type="events" namespace="\(all namespaces\)"/);
  const errors = cli.out.filter((e) => e.source === 'housekeeping' && e.outcome === 'error');
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.match(errors[0].message, /Not watching events/);
  assert.ok(!cli.err.some((l) => l.includes('Reflector failed')), cli.err.join('\n'));
});

scenario(
  "the extension's sync runner as alice (Start Sync Loop): the tree stays live for team-a, nothing cluster-wide is asked, nothing refused",
  async (s) => {
    const ctx = loadKubeContext({ kubeconfig: await s.kubeconfig('alice') });
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
    for (let i = 0; i < 3; i++) await s.createConfigMap('team-a', `ext-cm-${i}`);
    await extensionLoad(s, 'alice', client, model, log);
    assert.equal(model.bucket('team-a', 'configmaps')?.objects.size, await s.count('', 'v1', 'configmaps', 'team-a'));
    assert.ok(!!model.object('team-a', 'configmaps', 'ext-cm-0'));
    // The types as the SyncController passes them: loaded, watchable, not failed, with their scope.
    const types = informerTypes(model);
    assert.ok(types.length > 5 && types.some((t) => t.resource === 'configmaps'), JSON.stringify(types));
    const before = s.counters?.byScope() ?? {};
    const refused = s.counters?.refused() ?? 0;
    const runner = new SyncRunner({
      client,
      contextName: s.contextName('alice'),
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
      await s.runPod('team-a', 'ext-1');
      await eventually(() => !!model.object('team-a', 'pods', 'ext-1'), { description: 'the new pod in the tree', timeoutMs: 20_000 });
      await eventually(() => model.object('team-a', 'pods', 'ext-1')?.view.status === 'Running', {
        description: 'the pod Running in the tree',
        timeoutMs: 20_000,
      });
      await s.deleteConfigMap('team-a', 'ext-cm-0');
      await eventually(() => !model.object('team-a', 'configmaps', 'ext-cm-0'), { description: 'the deleted ConfigMap to leave the tree', timeoutMs: 20_000 });
      assert.ok(!!model.object('team-a', 'configmaps', 'ext-cm-1'), 'the others stay');
      assert.ok(!lines.some((l) => l.startsWith('error ') || l.startsWith('warn ')), lines.filter((l) => !l.startsWith('info ')).join('\n'));
      if (s.counters) {
        const asked = requestsSince(s.counters, before);
        assert.ok(!Object.keys(asked).some((k) => /^(list|watch) .*@\*$/.test(k)), `cluster-wide requests: ${JSON.stringify(asked)}`);
        assert.equal(s.counters.refused() - refused, 0, 'no request was refused');
      }
    } finally {
      await runner.stop();
      client.close();
    }
  },
);

/** Registers the sync-loop scenarios; `server()` is the running server (set up in the caller's `before`, with pods run). */
export function syncRightsScenarios(server: () => RightsServer): void {
  for (const [name, run] of SCENARIOS) it(name, (t) => run(server(), t));
}
