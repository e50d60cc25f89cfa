// Several contexts side by side in a real VS Code (code-server in Chromium). Three demo clusters in
// this test process (alpha, bravo, charlie) and a server that accepts connections and never answers
// ("dead"), all in one kubeconfig whose current-context is alpha; kubeloop.contexts lists bravo and
// dead. What a user sees:
// - listed contexts are rows of their own, "not loaded" until expanded: nothing is asked of their
//   clusters before (the demo servers' connection counts stay 0), not even by the palette's load;
// - expanded, bravo shows its namespaces and its exact object count on its row, and dead shows
//   "unreachable" with core's reason within seconds, without holding bravo;
// - Add Context... adds charlie (again not loaded until expanded), Remove Context removes it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { paletteTitle } from '../../src/app/commandIds';
import { KubeClient } from '../../src/core/kube';
import { ClusterLoader } from '../../src/core/loader';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { startVsCode, type Session } from './support/session';
import { eventually } from '../support/eventually';

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
}

/** What a load of the whole cluster finds, as `kubeloop load` would: its objects and namespaces. */
async function contents(kubeconfig: string, context: string): Promise<{ objects: number; namespaces: string[] }> {
  const client = await KubeClient.fromKubeconfig({ kubeconfig, context });
  try {
    const { summary, results } = await new ClusterLoader(client, {}).load(AbortSignal.timeout(60_000));
    assert.equal(summary.outcome, 'ok', `loading ${context} for the expected counts`);
    const ns = results.find((r) => r.task.gvr.resource === 'namespaces' && r.task.gvr.group === '');
    return { objects: summary.objects, namespaces: (ns?.items ?? []).map((o) => o.metadata.name!).sort() };
  } finally {
    client.close();
  }
}

describe('several contexts in a real VS Code (code-server)', () => {
  let s: Session;
  const clusters: Record<'alpha' | 'bravo' | 'charlie', DemoCluster | undefined> = { alpha: undefined, bravo: undefined, charlie: undefined };
  let dead: Server | undefined;
  const deadSockets = new Set<Socket>();
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    const [alpha, bravo, charlie] = await Promise.all([
      startDemoCluster({ kubelet: false, objects: 120, seed: 11 }),
      startDemoCluster({ kubelet: false, objects: 90, seed: 12 }),
      startDemoCluster({ kubelet: false, objects: 60, seed: 13 }),
    ]);
    Object.assign(clusters, { alpha, bravo, charlie });
    // accepts every connection and never answers a byte: the worst kind of dead cluster
    dead = createServer((sock) => {
      deadSockets.add(sock);
      sock.on('close', () => deadSockets.delete(sock));
      sock.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => dead!.listen(0, '127.0.0.1', resolve));
    const deadPort = (dead.address() as { port: number }).port;

    dir = mkdtempSync(join(tmpdir(), 'kubeloop-e2e-multicontext-'));
    kubeconfig = join(dir, 'config');
    const entries = Object.entries({ alpha, bravo, charlie }).map(([name, c]) => {
      const k = load(c.kubeconfig()) as Kubeconfig;
      return { name, cluster: k.clusters[0]!.cluster, user: k.users[0]!.user };
    });
    entries.push({ name: 'dead', cluster: { server: `http://127.0.0.1:${deadPort}` }, user: {} });
    writeFileSync(
      kubeconfig,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: entries.map((e) => ({ name: `${e.name}-cluster`, cluster: e.cluster })),
        users: entries.map((e) => ({ name: `${e.name}-user`, user: e.user })),
        contexts: entries.map((e) => ({ name: e.name, context: { cluster: `${e.name}-cluster`, user: `${e.name}-user` } })),
        'current-context': 'alpha',
      }),
    );
    s = await startVsCode({
      name: 'multicontext',
      settings: { 'kubeloop.kubeconfig': kubeconfig, 'kubeloop.contexts': ['bravo', 'dead'], 'kubeloop.discoveryCache': false },
    });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
    await s.workbench.openViewContainer('KubeLoop');
  });

  after(async () => {
    await s?.close();
    for (const sock of deadSockets) sock.destroy();
    await new Promise((resolve) => (dead ? dead.close(resolve) : resolve(undefined)));
    await Promise.all(Object.values(clusters).map((c) => c?.stop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The row's description once it matches `pattern` (as drawn). */
  async function rowSays(label: string, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    return eventually(
      async () => {
        const { description } = await s.workbench.treeRowText(label);
        return pattern.test(description) ? description : undefined;
      },
      { description: `the "${label}" row to say ${pattern}`, timeoutMs },
    );
  }

  async function firstRootLabel(): Promise<string> {
    return (await s.page.locator('.part.sidebar .monaco-list-row').first().locator('.label-name').innerText()).trim();
  }

  it('shows the listed contexts, not loaded, and asks nothing of their clusters, not even on a palette load', async () => {
    await s.step('listed rows drawn', async () => {
      await rowSays('bravo', /^not loaded$/);
      await rowSays('dead', /^not loaded$/);
    });
    await s.step('current context loaded', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      await eventually(
        async () => {
          const t = await s.workbench.statusBarText('kubeloop.status');
          return /alpha.*[\d,]+ objects/.test(t) && !/loading/i.test(t) ? t : undefined;
        },
        { description: 'the status bar to name alpha with its objects, loaded', timeoutMs: 120_000 },
      );
    });
    // the status bar can say so a tree refresh (~220 ms) before the tree draws the new root
    await eventually(async () => ((await firstRootLabel()) === 'alpha' ? true : undefined), {
      description: 'the current context, alpha, drawn as the first root',
      timeoutMs: 30_000,
    });
    assert.equal((await s.workbench.treeRowText('bravo')).description, 'not loaded');
    assert.equal(clusters.bravo!.stats.totalConnections, 0, 'bravo was never connected to');
    assert.equal(deadSockets.size, 0, 'dead was never connected to');
  });

  it('expanded: the dead context is unreachable within seconds with its reason, bravo shows its namespaces and exact count', async () => {
    const t0 = Date.now();
    await s.step('dead and bravo expanded', async () => {
      await s.workbench.expandTreeRow('dead');
      await s.workbench.expandTreeRow('bravo');
    });
    const reason = await s.step('dead unreachable', () => rowSays('dead', /^unreachable: /, 30_000));
    const tookMs = Date.now() - t0;
    assert.match(reason, /no answer from context "dead" within 4 s/, reason);
    assert.ok(tookMs < 20_000, `the dead context was reported after ${tookMs} ms`);
    const expected = await contents(kubeconfig, 'bravo');
    const count = await s.step('bravo loaded', () => rowSays('bravo', /^[\d,]+ objects?/));
    assert.equal(count, `${expected.objects.toLocaleString('en')} objects`, 'the exact count of bravo on its row');
    // its namespaces are drawn under its row (read until drawn: the children may come a refresh after the row)
    await eventually(
      async () => {
        const rows = await s.workbench.treeRows();
        const under = rows.slice(rows.findIndex((r) => /^bravo\b/.test(r)) + 1);
        return expected.namespaces.every((ns) => under.includes(ns)) ? true : undefined;
      },
      { description: `bravo's namespaces ${expected.namespaces.join(', ')} under its row`, timeoutMs: 30_000 },
    );
    assert.equal(await firstRootLabel(), 'alpha', 'the current context still leads');
  });

  it('Add Context... adds charlie, not loaded until expanded; Remove Context removes it', async () => {
    await s.step('charlie added', async () => {
      await s.workbench.runCommand(paletteTitle('addContext'));
      const widget = s.page.locator('.quick-input-widget');
      await widget.locator('.quick-input-title', { hasText: 'KubeLoop: Add Context' }).waitFor();
      const row = widget.locator('.quick-input-list .monaco-list-row').filter({ has: s.page.locator('.label-name', { hasText: /^charlie$/ }) });
      await row.first().click();
      await widget.waitFor({ state: 'hidden' });
      await rowSays('charlie', /^not loaded$/);
    });
    assert.equal(clusters.charlie!.stats.totalConnections, 0, 'added, but not connected to until opened');
    await s.workbench.expandTreeRow('charlie');
    const expected = await contents(kubeconfig, 'charlie');
    const count = await s.step('charlie loaded', () => rowSays('charlie', /^[\d,]+ objects?/));
    assert.equal(count, `${expected.objects.toLocaleString('en')} objects`);

    await s.step('charlie removed', async () => {
      await s.workbench.runCommand(paletteTitle('removeContext'));
      const widget = s.page.locator('.quick-input-widget');
      await widget.locator('.quick-input-title', { hasText: 'KubeLoop: Remove Context' }).waitFor();
      const row = widget.locator('.quick-input-list .monaco-list-row').filter({ has: s.page.locator('.label-name', { hasText: /^charlie$/ }) });
      await row.first().click();
      await widget.waitFor({ state: 'hidden' });
      await eventually(async () => ((await s.workbench.treeRow('charlie').count()) === 0 ? true : undefined), {
        description: 'the charlie row to go',
        timeoutMs: 30_000,
      });
    });
    // the others stay as they were
    await rowSays('bravo', /^[\d,]+ objects$/);
    await rowSays('dead', /^unreachable: /);
  });

  it("Filter Resources narrows every context's tree", async () => {
    const rowsUnder = (rows: string[], root: string) => {
      const i = rows.findIndex((r) => r.startsWith(root));
      const next = rows.findIndex((r, j) => j > i && /^(alpha|bravo|dead)/.test(r));
      return rows.slice(i + 1, next < 0 ? undefined : next);
    };
    const rows = await s.step('filtered to kube-public', async () => {
      await s.workbench.runCommand(paletteTitle('filter'));
      const input = s.page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible' });
      await input.fill('kube-public');
      await s.page.keyboard.press('Enter');
      return eventually(
        async () => {
          const r = await s.workbench.treeRows();
          const a = rowsUnder(r, 'alpha');
          const b = rowsUnder(r, 'bravo');
          // kube-public stays, the other namespaces go (alpha's matches are revealed below it: rows of their own)
          const others = ['default', 'kube-system', 'kube-node-lease', 'payments-prod'];
          const only = (x: string[]) => x.includes('kube-public') && !x.some((y) => others.includes(y));
          return only(a) && only(b) ? r : undefined;
        },
        { description: 'only kube-public under alpha and under bravo', timeoutMs: 30_000 },
      );
    });
    assert.ok(!rows.includes('payments-prod'), rows.join(' | '));
    await s.step('filter cleared', async () => {
      await s.workbench.runCommand(paletteTitle('clearFilter'));
      await eventually(async () => (rowsUnder(await s.workbench.treeRows(), 'bravo').includes('payments-prod') ? true : undefined), {
        description: "bravo's namespaces back",
        timeoutMs: 30_000,
      });
    });
  });

  it("the timeline shows every cluster's loader lanes, grouped by cluster, and filters to one", async () => {
    await s.workbench.runCommand(paletteTitle('showTimeline'));
    const frame = await s.workbench.webviewFrame('#timeline-lanes li[data-lane^="worker:"]');
    const workerLanes = async () => (await frame.locator('#timeline-lanes li[data-lane^="worker:"]').allInnerTexts()).map((t) => t.trim());
    const lanes = await s.step('timeline of three clusters', () =>
      eventually(
        async () => {
          const l = await workerLanes();
          return ['alpha', 'bravo', 'charlie'].every((c) => l.includes(`${c} worker 0`)) ? l : undefined;
        },
        { description: 'worker lanes of alpha, bravo and charlie', timeoutMs: 30_000 },
      ),
    );
    // grouped: each cluster's lanes together
    const order = lanes.map((l) => l.split(' ')[0]!);
    assert.deepEqual(
      order,
      [...order].sort((a, b) => order.indexOf(a) - order.indexOf(b)),
      `grouped by cluster: ${lanes.join(' | ')}`,
    );
    for (const c of ['alpha', 'bravo', 'charlie'])
      assert.equal(order.lastIndexOf(c) - order.indexOf(c) + 1, order.filter((o) => o === c).length, `${c}'s lanes together: ${lanes.join(' | ')}`);
    const select = frame.locator('#timeline-cluster');
    await select.waitFor({ state: 'visible' });
    assert.deepEqual(
      (await select.locator('option').allInnerTexts()).map((t) => t.trim()),
      ['All clusters', 'alpha', 'bravo', 'charlie'],
    );
    await s.step('filtered to bravo', async () => {
      await select.selectOption('bravo');
      await eventually(
        async () => {
          const l = await workerLanes();
          return l.length > 0 && l.every((x) => x.startsWith('bravo worker ')) ? true : undefined;
        },
        { description: "only bravo's worker lanes", timeoutMs: 30_000 },
      );
    });
    assert.deepEqual(
      s.consoleErrors.filter((e) => /Content Security Policy|Refused to/i.test(e)),
      [],
      'no CSP violation',
    );
  });
});
