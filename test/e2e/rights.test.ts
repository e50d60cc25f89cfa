// A namespace-limited user in a real VS Code (code-server) driven in a real browser (issue 9). The
// cluster is a demo cluster in this test process, serving HTTPS with tokens; user "alice" has an
// RBAC-style Role of get/list/watch on everything in team-a only, and her kubeconfig context (set as
// kubeloop.kubeconfig) names `namespace: team-a`. Before the fix the tree stayed empty (every
// namespaced type failed with a cluster-wide 403); now it shows team-a's objects, forbidden types
// are error nodes saying 403 Forbidden, and Select Namespaces offers team-a without listing
// namespaces (which she may not) and lets her type another. A second context, carol's, has no rights
// where it points: one message says so.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dump, load } from 'js-yaml';
import { paletteTitle } from '../../src/app/commandIds';
import { startDemoCluster } from '../../src/demo';
import type { DemoObject } from '../../src/demo/store';
import { openOnDemoCluster, type DemoWindow } from './support/demoWindow';
import type { Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

interface Kubeconfig {
  users: unknown[];
  contexts: unknown[];
}

describe('a namespace-limited user in a real VS Code (code-server)', () => {
  let s: Session;
  let w: DemoWindow | undefined;

  before(async () => {
    const cluster = await startDemoCluster({
      tls: true,
      token: 'e2e-admin-token',
      kubelet: false,
      objects: 300,
      seed: 9,
      grants: ['alice:team-a:get,list,watch:*:*', 'carol:elsewhere:get,list,watch:*:*'],
    });
    const store = cluster.store;
    store.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } } as DemoObject);
    for (let i = 0; i < 40; i++)
      store.create('', 'configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${String(i).padStart(2, '0')}`, namespace: 'team-a' },
        data: { i: String(i) },
      } as DemoObject);
    // Two contexts: alice's (current) and carol's, who has rights only in a namespace that is not hers.
    const alice = load(cluster.kubeconfig({ user: 'alice', namespace: 'team-a' })) as Kubeconfig;
    const carol = load(cluster.kubeconfig({ user: 'carol', namespace: 'team-a' })) as Kubeconfig;
    const both = { ...alice, users: [...alice.users, ...carol.users], contexts: [...alice.contexts, ...carol.contexts] };
    w = await openOnDemoCluster('rights', cluster, (kubeconfig) => writeFileSync(kubeconfig, dump(both), { mode: 0o600 }));
    s = w.s;
  });

  after(() => w?.close());

  it("the tree shows team-a's objects and the forbidden types as 403 Forbidden error nodes", async () => {
    const warning = await s.step('loaded', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      return s.workbench.waitForNotification('type(s) failed');
    });
    assert.match(warning, /KubeLoop: loaded [\d,]+ objects; \d+ type\(s\) failed: .*\(403 Forbidden\)/);
    const failedRow = await eventually(async () => (await s.workbench.treeRows()).find((r) => /^Failed to load \(\d+\)$/.test(r)), {
      description: 'the failures group',
      timeoutMs: 60_000,
    });
    assert.deepEqual(await s.workbench.treeRowText('APIService (apiservices.apiregistration.k8s.io)'), {
      label: 'APIService (apiservices.apiregistration.k8s.io)',
      description: '403 Forbidden',
    });
    await s.step('failures folded', async () => {
      const row = s.workbench.treeRow(failedRow).first();
      if ((await row.getAttribute('aria-expanded')) === 'true') await row.click();
      await row.and(s.page.locator('[aria-expanded="false"]')).waitFor({ timeout: UI_TIMEOUT_MS });
    });
    const rows = await s.workbench.treeRows();
    assert.ok(rows.includes('team-a'), `team-a is in the tree: ${rows.join(' | ')}`);
    assert.ok(!rows.some((r) => /-prod$|^kube-system$/.test(r)), `only namespaces the user may see: ${rows.join(' | ')}`);
    await s.step('team-a expanded', async () => {
      await s.workbench.expandTreeRow('team-a');
      await s.workbench.expandTreeRow('core');
    });
    assert.deepEqual(await s.workbench.treeRowText('ConfigMap'), { label: 'ConfigMap', description: '40' });
  });

  it('Select Namespaces offers the context namespace without listing namespaces, and takes a typed one', async () => {
    await s.workbench.runCommand(paletteTitle('selectNamespaces'));
    const input = s.page.locator('.quick-input-widget');
    const rows = input.locator('.quick-input-list .monaco-list-row');
    // The namespaces pick's own title and row, not the palette's rows that share the widget.
    await input.locator('.quick-input-title', { hasText: /Select Namespaces/ }).waitFor();
    await rows
      .filter({ hasText: /team-a/ })
      .first()
      .waitFor();
    const offered = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.equal(offered.length, 1, offered.join(' | '));
    assert.match(offered[0]!, /^team-a\s*context namespace$/);
    const title = await input.locator('.quick-input-title').innerText();
    assert.match(title, /may not list namespaces .*403 Forbidden/);
    await s.step('a typed namespace offered', async () => {
      await s.page.keyboard.type('team-b');
      await eventually(async () => ((await rows.allInnerTexts()).some((t) => /team-b\s*add this namespace/.test(t)) ? true : undefined), {
        description: 'the typed namespace row',
        timeoutMs: UI_TIMEOUT_MS,
      });
    });
    await s.page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden' });
  });

  it('a user with no rights: one message says who, in which context, and what they may not do', async () => {
    await s.workbench.runCommand(paletteTitle('selectContext'));
    const row = s.page
      .locator('.quick-input-widget .quick-input-list .monaco-list-row', { has: s.page.locator('.label-name', { hasText: /^carol@kubeloop-demo$/ }) })
      .first();
    await row.click(); // picking a context loads it at once
    const message = await s.step('no rights reported', () => s.workbench.waitForNotification('may not list any resource type'));
    assert.match(
      message,
      /user "carol" \(context "carol@kubeloop-demo", server https:\/\/127\.0\.0\.1:\d+\) may not list any resource type across all namespaces nor in the namespace "team-a"/,
    );
    // The actions of that toast, once drawn (see contexts.test.ts).
    const toast = s.page.locator('.notifications-toasts .notification-toast', { hasText: 'may not list any resource type' }).first();
    await toast.locator('.monaco-button', { hasText: 'Select Context' }).waitFor();
    const actions = await toast.locator('.monaco-button').allInnerTexts();
    assert.ok(
      actions.some((a) => /Select Context/.test(a)),
      actions.join(' | '),
    );
  });
});
