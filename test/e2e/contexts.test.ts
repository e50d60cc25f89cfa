// A kubeconfig with several contexts, as a user with more than one cluster has it, in a real VS Code
// driven in a real browser. The cluster is a demo cluster in this test process, serving HTTPS with a
// bearer token; the kubeconfig (set as kubeloop.kubeconfig) names two contexts on it: "alpha" with
// the right token and "beta", the current-context, with a token the server refuses. Select Context
// offers both; alpha loads with its credentials; beta's 401 is said plainly, with a way out.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dump, load } from 'js-yaml';
import { paletteTitle } from '../../src/app/commandIds';
import { startDemoCluster } from '../../src/demo';
import { openOnDemoCluster, type DemoWindow } from './support/demoWindow';
import type { Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
}

describe('kubeconfig contexts in a real VS Code (code-server)', () => {
  let s: Session;
  let w: DemoWindow | undefined;

  before(async () => {
    const cluster = await startDemoCluster({ tls: true, token: 'e2e-alpha-token', kubelet: false, objects: 300, seed: 5 });
    const base = load(cluster.kubeconfig()) as Kubeconfig;
    const clusterName = base.clusters[0]!.name;
    const config = dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: base.clusters,
      users: [
        { name: 'alpha-user', user: base.users[0]!.user },
        { name: 'beta-user', user: { token: 'revoked-token' } },
      ],
      contexts: [
        { name: 'alpha', context: { cluster: clusterName, user: 'alpha-user' } },
        { name: 'beta', context: { cluster: clusterName, user: 'beta-user' } },
      ],
      'current-context': 'beta',
    });
    w = await openOnDemoCluster('contexts', cluster, (kubeconfig) => writeFileSync(kubeconfig, config));
    s = w.s;
  });

  after(() => w?.close());

  /**
   * Runs Select Context and picks the row of `name`; returns every row's text as it was offered.
   * Reads only what the context quick pick has drawn: its title (the palette's own rows share the
   * widget and can still be on screen when the command starts), every context of the kubeconfig as
   * a row, and after the pick the widget closed again.
   */
  async function pickContext(name: string): Promise<string[]> {
    await s.workbench.runCommand(paletteTitle('selectContext'));
    const widget = s.page.locator('.quick-input-widget');
    await widget.locator('.quick-input-title', { hasText: 'KubeLoop: Select Context' }).waitFor();
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    const row = (n: string) => rows.filter({ has: s.page.locator('.label-name', { hasText: new RegExp(`^${n}$`) }) }).first();
    for (const n of ['alpha', 'beta']) await row(n).waitFor();
    const texts = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    await row(name).click();
    await widget.waitFor({ state: 'hidden' });
    return texts;
  }

  it('offers every context; picking "alpha" loads that cluster with alpha\'s credentials', async () => {
    const offered = await s.step('contexts offered', () => pickContext('alpha'));
    assert.ok(
      offered.some((t) => /^alpha\b/.test(t)),
      offered.join(' | '),
    );
    assert.ok(
      offered.some((t) => /^beta\s*current-context/.test(t)),
      `beta is marked as the current-context: ${offered.join(' | ')}`,
    );
    await s.step('alpha loaded', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      await eventually(async () => ((await s.workbench.treeRows()).length > 2 ? true : undefined), { description: 'the tree to fill', timeoutMs: 120_000 });
    });
    const status = await eventually(
      async () => {
        const t = await s.workbench.statusBarText('kubeloop.status');
        return /alpha.*[\d,]+ objects/.test(t) ? t : undefined;
      },
      { description: 'the status bar to name alpha with its objects', timeoutMs: 60_000 },
    );
    assert.doesNotMatch(status, /demo/);
    assert.ok((await s.workbench.treeRows()).includes('default'), "the cluster's namespaces are in the tree");
  });

  it('picking "beta", whose token the server refuses, says so plainly and offers Select Context', async () => {
    // picking a context loads it at once
    await s.step('beta picked', () => pickContext('beta'));
    const message = await s.step('its 401 reported', () => s.workbench.waitForNotification('refused the request'));
    assert.match(message, /context "?beta"?.*401 Unauthorized|401 Unauthorized.*beta/s, message);
    assert.ok(!message.includes('revoked-token'), 'the token itself is never shown');
    // The actions of that toast, once drawn (a snapshot of every toast's buttons may be taken while
    // VS Code is still laying out the toasts: the load's progress toast closes at the same moment).
    // VS Code may redraw the toast between two reads (its buttons briefly gone), so the buttons are
    // read until a drawing of the toast shows the action.
    const toast = s.page.locator('.notifications-toasts .notification-toast', { hasText: 'refused the request' }).first();
    const actions = await eventually(
      async () => {
        const texts = await toast.locator('.monaco-button').allInnerTexts();
        return texts.some((a) => /Select Context/.test(a)) ? texts : undefined;
      },
      { description: 'the refused toast to offer Select Context', timeoutMs: UI_TIMEOUT_MS },
    );
    assert.ok(
      actions.some((a) => /Select Context/.test(a)),
      actions.join(' | '),
    );
  });
});
