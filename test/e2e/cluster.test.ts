// The packaged extension in a real VS Code (code-server) driven in a real browser (Chromium), on the
// embedded demo cluster it starts itself: what a user does, step by step, with a screenshot of each.
//
// One code-server for the whole file. The demo cluster is started by the extension with:
//   KUBELOOP_DEMO_FAULTS  the first four lists hang for a minute (the load a user cancels), and every
//                         list takes 250 ms (so a load lasts long enough to watch it fill the tree);
//   KUBELOOP_DEMO_FORBID  controller revisions are forbidden to the extension's user (an error node with 403).
// The test itself writes, as another API client, a Role named with HTML, a ConfigMap with HTML in an
// annotation and an Event with HTML in its message; no alert dialog may ever open.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { paletteTitle } from '../../src/app/commandIds';
import { startVsCode, type Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

const XSS = '<img src=x onerror=alert(1)>';
const SECRET_VALUE = 'hunter2-e2e-do-not-show';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const HANG_MS = 60_000;

/** The demo cluster's API server URL, from the kubeconfig the extension wrote into its global storage. */
function demoServer(s: Session): string {
  const path = join(s.userDataDir, 'User', 'globalStorage', 'kubeloop.kubeloop', 'demo', 'kubeconfig');
  const kc = load(readFileSync(path, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  return kc.clusters[0]!.cluster.server;
}

async function create(server: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${server}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
}

/** Every element of every frame (the workbench and webviews) that an injected <img> would be. */
async function injectedImages(s: Session): Promise<number> {
  let n = 0;
  for (const f of s.page.frames())
    n += await f
      .locator('img[src="x"]')
      .count()
      .catch(() => 0);
  return n;
}

/**
 * Clicks an object's row and waits for its YAML editor. A failure says what the window said about
 * the open: the workbench's console errors since the click (a tree command VS Code could not run is
 * reported only there) and KubeLoop's log lines about YAML documents.
 */
async function openYaml(s: Session, label: string, patterns: RegExp[], timeoutMs = UI_TIMEOUT_MS): Promise<{ tab: string; text: string }> {
  const errorsBefore = s.consoleErrors.length;
  await s.workbench.treeRow(label).first().click();
  try {
    return await s.workbench.waitForEditor(`${label}.yaml`, patterns, timeoutMs);
  } catch (err) {
    const errors = s.consoleErrors.slice(errorsBefore);
    const log = await s.workbench.outputChannel().then(
      (o) => o.text.split('\n').filter((l) => /yaml|open resource/i.test(l)),
      (e: Error) => [`(the output channel could not be read: ${e.message})`],
    );
    throw new Error(
      `the YAML of "${label}" did not open. Workbench console errors since the click: ${errors.length ? errors.join(' | ') : 'none'}. ` +
        `KubeLoop log lines about YAML: ${log.length ? log.join(' | ') : 'none'}`,
      { cause: err },
    );
  }
}

describe('KubeLoop on the embedded demo cluster, in a real VS Code, in a real browser', () => {
  let s: Session;
  const dialogs: string[] = [];

  before(async () => {
    s = await startVsCode({
      name: 'cluster',
      // Exactly four lanes: the first four lists hang, so the slow load's "0 objects" holds only if
      // every lane is one of them. By RTT a busy loopback can widen the pool (one tier run: 1,207
      // objects listed beside the hung lists before the notification, shown after 0.5 s, was read).
      settings: { 'kubeloop.concurrency': 4 },
      env: {
        KUBELOOP_DEMO_OBJECTS: '1500',
        KUBELOOP_DEMO_CHURN: '1',
        KUBELOOP_DEMO_FAULTS: `latency,verb=list,ms=${HANG_MS},times=4;latency,verb=list,ms=250`,
        KUBELOOP_DEMO_FORBID: 'apps/controllerrevisions',
      },
    });
    s.page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
    await s.workbench.openViewContainer('KubeLoop');
  });

  after(async () => {
    await s?.close();
  });

  it('"Start Demo Cluster" starts the demo cluster in the extension host and offers to load it', async () => {
    const msg = await s.step('demo cluster started', async () => {
      await s.workbench.runCommand(paletteTitle('startDemoCluster'));
      return s.workbench.waitForNotification('demo cluster running at');
    });
    assert.match(
      msg,
      /KubeLoop: demo cluster running at http:\/\/127\.0\.0\.1:\d+ \(1,500 objects, 1 change\(s\)\/s, 2 fault rule\(s\) from KUBELOOP_DEMO_FAULTS, forbidden: apps\/controllerrevisions\)/,
    );
    assert.match(demoServer(s), /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('a load against a slow cluster shows its progress and stops at once when cancelled', async (t) => {
    const toast = s.page.locator('.notifications-toasts .notification-toast', { hasText: 'KubeLoop: loading' });
    await s.step('slow load in progress', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      await toast.waitFor({ state: 'visible' });
      // Nothing listed yet (the first lists hang); a forbidden type may already count as done.
      await toast.filter({ hasText: /\d+\/\d+ types, 0 objects/ }).waitFor({ timeout: UI_TIMEOUT_MS });
    });
    const started = Date.now();
    const cancelled = await s.step('load cancelled', async () => {
      await toast.locator('.monaco-button', { hasText: 'Cancel' }).click();
      return s.workbench.waitForNotification('load cancelled');
    });
    const ms = Date.now() - started;
    t.diagnostic(`cancel to "load cancelled" message: ${ms} ms (the cluster holds each list for ${HANG_MS / 1000} s)`);
    assert.ok(ms < 10_000, `cancelling took ${ms} ms`);
    assert.match(cancelled, /load cancelled/);
    await toast.waitFor({ state: 'hidden' });
  });

  it('"Load Cluster Resources": the progress notification counts types and objects while the tree fills in', async (t) => {
    // Objects with HTML where the API allows it, written before the load so the load brings them.
    const server = demoServer(s);
    await create(server, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: XSS },
      rules: [],
    });
    await create(server, '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'html-annotated', annotations: { note: XSS } },
      data: { html: XSS },
    });
    await create(server, '/api/v1/namespaces/default/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'html-event' },
      reason: 'Hostile',
      message: `message with ${XSS}`,
      type: 'Warning',
      involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'html-annotated' },
    });
    // A second Event in default that the filter test's "html-" does not match: whether the demo's
    // kubelet had written Events there by the time of the load was a matter of timing (seen once:
    // the kind row read "1", all of one, instead of "1 of N").
    await create(server, '/api/v1/namespaces/default/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e2e-plain-event' },
      reason: 'Plain',
      message: 'an Event the filter does not match',
      type: 'Normal',
      involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'html-annotated' },
    });

    await create(server, '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'e2e-secret', annotations: { [LAST_APPLIED]: `{"stringData":{"password":"${SECRET_VALUE}"}}` } },
      type: 'Opaque',
      data: { password: Buffer.from(SECRET_VALUE).toString('base64') },
    });

    const toast = s.page.locator('.notifications-toasts .notification-toast', { hasText: 'KubeLoop: loading' });
    let filledWhileLoading = false;
    const progress = await s.step('load in progress', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      return eventually(
        async () => {
          const text = await toast.innerText({ timeout: 1000 });
          const m = /(\d+)\/(\d+) types, ([\d,]+) objects/.exec(text);
          return m && Number(m[1]) > 0 ? m[0] : undefined;
        },
        { description: 'the progress to count finished types', timeoutMs: UI_TIMEOUT_MS },
      );
    });
    t.diagnostic(`progress seen: ${progress}`);
    await s.step('tree filling during the load', async () => {
      await eventually(
        async () => {
          const rows = await s.workbench.treeRows();
          if (rows.some((r) => /-prod|default|kube-system/.test(r)) && (await toast.isVisible())) return (filledWhileLoading = true);
          return (await toast.isVisible()) ? undefined : true; // finished first: checked below
        },
        { description: 'a namespace row while the load still runs', timeoutMs: UI_TIMEOUT_MS },
      );
    });
    assert.ok(filledWhileLoading, 'rows appeared before the last type finished');
    const warning = await s.step('load finished with one forbidden type', async () => {
      await toast.waitFor({ state: 'hidden', timeout: 120_000 });
      return s.workbench.waitForNotification('type(s) failed');
    });
    assert.match(warning, /KubeLoop: loaded [\d,]+ objects; 1 type\(s\) failed: controllerrevisions\.apps \(403 Forbidden\)/);
    const rows = await s.workbench.treeRows();
    assert.ok(
      rows.some((r) => r.startsWith('kubeloop-demo')),
      `rows: ${rows.join(' | ')}`,
    );
    assert.deepEqual(await s.workbench.treeRowText('Failed to load (1)'), { label: 'Failed to load (1)', description: '' });
    assert.deepEqual(await s.workbench.treeRowText('ControllerRevision (controllerrevisions.apps)'), {
      label: 'ControllerRevision (controllerrevisions.apps)',
      description: '403 Forbidden',
    });
    // The status bar and the toast are drawn from separate messages: wait for the status it ends with.
    await eventually(async () => /kubeloop-demo \(demo\) · [\d,]+ objects/.test(await s.workbench.statusBarText('kubeloop.status')), {
      description: 'the status bar to count the loaded objects',
      timeoutMs: UI_TIMEOUT_MS,
    });
  });

  let prodNamespace = '';

  it('browsing: expand a namespace, its core group and Pod, find a pod with its status, open its YAML', async () => {
    prodNamespace = (await s.workbench.treeRows()).find((r) => /^[a-z]+-prod$/.test(r)) ?? '';
    assert.ok(prodNamespace, 'a generated -prod namespace is in the tree');
    const pod = await s.step(`pods of ${prodNamespace}`, async () => {
      await s.workbench.expandTreeRow(prodNamespace);
      await s.workbench.expandTreeRow('core');
      await s.workbench.expandTreeRow('Pod');
      const row = s.page.locator('.part.sidebar .monaco-list-row', { hasText: /Running · Ready \d+\/\d+/ }).first();
      await row.waitFor();
      return { row, name: (await row.locator('.label-name').innerText()).trim(), description: (await row.locator('.label-description').innerText()).trim() };
    });
    assert.match(pod.description, /^Running · Ready (\d+)\/\1/);
    const editor = await s.step('pod YAML opened', () => openYaml(s, pod.name, [/kind: Pod/]));
    assert.ok(editor.text.startsWith(`# pods ${prodNamespace}/${pod.name} in context "kubeloop-demo"`), editor.text);
    assert.match(editor.text, new RegExp(`name: ${pod.name}`));
    assert.match(editor.text, new RegExp(`namespace: ${prodNamespace}`));
    assert.ok(!/^\s*managedFields:/m.test(editor.text), 'managedFields are dropped');
  });

  it('an object named with HTML, and HTML in an annotation and an Event, render as text everywhere', async () => {
    await s.step(`collapse ${prodNamespace}`, async () => {
      await s.workbench.treeRow(prodNamespace).first().click(); // collapses it
    });
    const role = await s.step('role named with HTML', async () => {
      await s.workbench.expandTreeRow('default');
      await s.workbench.expandTreeRow('rbac.authorization.k8s.io');
      await s.workbench.expandTreeRow('Role');
      return s.workbench.treeRowText(XSS);
    });
    assert.equal(role.label, XSS, 'the name shows as its characters');
    const roleYaml = await s.step('its YAML', async () => {
      return openYaml(s, XSS, [/kind: Role/]);
    });
    assert.equal(roleYaml.tab, `${XSS}.yaml`);
    assert.ok(roleYaml.text.includes(`name: ${XSS}`), roleYaml.text);

    await s.workbench.expandTreeRow('core');
    await s.workbench.expandTreeRow('ConfigMap');
    const cm = await s.step('configmap with an HTML annotation', async () => {
      return openYaml(s, 'html-annotated', [/kind: ConfigMap/]);
    });
    assert.ok(cm.text.includes(`note: ${XSS}`), cm.text);
    await s.workbench.expandTreeRow('Event');
    const ev = await s.step('event with an HTML message', async () => {
      return openYaml(s, 'html-event', [/kind: Event/]);
    });
    assert.ok(ev.text.includes(`message: message with ${XSS}`), ev.text);
    assert.deepEqual(dialogs, [], 'no alert dialog');
    assert.equal(await injectedImages(s), 0, 'no <img src=x> element in any frame');
  });

  it('a Secret opens with every value masked, its size shown, and the last-applied annotation masked too', async () => {
    await s.workbench.expandTreeRow('Secret');
    const doc = await s.step('secret YAML, masked', async () => {
      return openYaml(s, 'e2e-secret', [/kind: Secret/, /data:/]);
    });
    assert.match(doc.text, /Secret values are masked/);
    assert.match(doc.text, new RegExp(`password: '<masked: ${SECRET_VALUE.length} bytes>'`));
    assert.match(doc.text, /kubectl\.kubernetes\.io\/last-applied-configuration: '<masked: \d+ bytes>'/);
    assert.ok(!doc.text.includes(SECRET_VALUE) && !doc.text.includes(Buffer.from(SECRET_VALUE).toString('base64')), 'no secret value in the document');
  });

  it('"Start Sync Loop": the KubeLoop output channel shows the sync loop\'s handler log lines', async () => {
    await s.step('sync loop started', async () => {
      await s.workbench.runCommand(paletteTitle('startSyncLoop'));
      await eventually(async () => (/syncing/.test(await s.workbench.statusBarText('kubeloop.status')) ? true : undefined), {
        description: 'the status bar to say syncing',
        timeoutMs: 60_000,
      });
    });
    const out = await s.step('handler log in the output channel', async () => {
      await s.workbench.runCommand(paletteTitle('showLogs'));
      return eventually(
        async () => {
          const o = await s.workbench.outputChannel();
          return /SyncLoop \S+.*handler="Handle\w+"/.test(o.text) ? o : undefined;
        },
        { description: 'a handler line in the output', timeoutMs: 60_000 },
      );
    });
    assert.equal(out.channel, 'KubeLoop');
    assert.match(out.text, /\[info\] SyncLoop (ADD|UPDATE|RECONCILE|REMOVE|DELETE|\(PLEG\)|\(probe\)).*handler="Handle\w+"/);
    const timeline = await s.step("timeline with the loop's iterations", async () => {
      await s.workbench.runCommand(paletteTitle('showTimeline'));
      return s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
    });
    await eventually(async () => (Number(await timeline.locator('#timeline-root').getAttribute('data-events')) > 0 ? true : undefined), {
      description: 'events in the timeline',
      timeoutMs: UI_TIMEOUT_MS,
    });
    assert.deepEqual(dialogs, [], 'no alert dialog');
    assert.equal(await injectedImages(s), 0, 'no <img src=x> element in any frame');
    await s.step('sync loop stopped', () => s.workbench.runCommand(paletteTitle('stopSyncLoop')));
  });

  it('an open YAML document follows its object: a change made in the cluster shows up while the sync loop runs', async () => {
    const server = demoServer(s);
    const doc = await s.step('configmap YAML open', async () => {
      const row = s.workbench.treeRow('html-annotated').first();
      if (!(await row.isVisible())) {
        await s.workbench.expandTreeRow('default');
        await s.workbench.expandTreeRow('core');
        await s.workbench.expandTreeRow('ConfigMap');
      }
      return openYaml(s, 'html-annotated', [/kind: ConfigMap/]);
    });
    assert.ok(!doc.text.includes('live-e2e'), 'the label is not there before the change');
    await s.step('sync loop started', async () => {
      await s.workbench.runCommand(paletteTitle('startSyncLoop'));
      await eventually(async () => (/syncing/.test(await s.workbench.statusBarText('kubeloop.status')) ? true : undefined), {
        description: 'the status bar to say syncing',
        timeoutMs: 60_000,
      });
    });
    try {
      // another API client changes the object; the extension itself never writes to the cluster
      const res = await fetch(`${server}/api/v1/namespaces/default/configmaps/html-annotated`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ metadata: { labels: { 'kubeloop-e2e': 'live-e2e' } } }),
      });
      assert.equal(res.status, 200, await res.text());
      const after = await s.step('the document shows the change', () => s.workbench.waitForEditor('html-annotated.yaml', [/kubeloop-e2e: live-e2e/], 60_000));
      assert.ok(after.text.includes(`note: ${XSS}`), 'the rest of the object is still there');
    } finally {
      await s.step('sync loop stopped', () => s.workbench.runCommand(paletteTitle('stopSyncLoop')));
    }
  });

  it('"Reveal in Timeline" on a tree object opens the timeline filtered to that object\'s sync-loop iterations', async () => {
    const key = 'configmaps:default/html-annotated'; // the sync loop saw it change in the test before
    await s.step('object selected', async () => {
      await s.workbench.treeRow('html-annotated').first().click();
    });
    const frame = await s.step('timeline filtered to it', async () => {
      await s.workbench.runCommand(paletteTitle('revealInTimeline'));
      const f = await s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
      await eventually(async () => ((await f.locator('#timeline-filter').inputValue()) === key ? true : undefined), {
        description: 'the name filter to be the object key',
        timeoutMs: UI_TIMEOUT_MS,
      });
      return f;
    });
    const status = await eventually(
      async () => {
        const text = (await frame.locator('#timeline-status').innerText()).trim();
        const m = /^(\d+) of (\d+) events/.exec(text);
        return m && Number(m[1]) > 0 && Number(m[1]) < Number(m[2]) ? text : undefined;
      },
      { description: 'matching iterations', timeoutMs: UI_TIMEOUT_MS },
    );
    assert.match(status, /^\d+ of \d+ events/);
    for (const b of await frame.locator('#timeline-sources button').all()) assert.equal(await b.getAttribute('aria-pressed'), 'true', 'every source shown');
    // leave the timeline as the other tests expect it: no filter
    await frame.locator('#timeline-filter').fill('');
  });

  it('"Filter Resources" narrows the tree to matching objects and says so; "Clear Resource Filter" brings everything back', async () => {
    const rows = await s.step('filtered by "html-"', async () => {
      await s.workbench.runCommand(paletteTitle('filter'));
      const input = s.page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible' });
      await input.fill('html-');
      await s.page.keyboard.press('Enter');
      return eventually(
        async () => {
          const r = await s.workbench.treeRows();
          return r.some((x) => x.startsWith('html-annotated')) && !r.some((x) => x === prodNamespace) ? r : undefined;
        },
        { description: 'the filtered tree', timeoutMs: UI_TIMEOUT_MS },
      );
    });
    try {
      assert.ok(
        rows.some((r) => r.startsWith('html-event')),
        rows.join(' | '),
      );
      assert.match((await s.workbench.treeRowText('Event')).description, /^1 of \d+$/);
      assert.match(await s.page.locator('.part.sidebar').innerText(), /Filter: "html-" \(name, kind or namespace\)/);
    } finally {
      await s.step('filter cleared', async () => {
        await s.workbench.runCommand(paletteTitle('clearFilter'));
        await eventually(async () => ((await s.workbench.treeRows()).includes(prodNamespace) ? true : undefined), {
          description: 'every namespace again',
          timeoutMs: UI_TIMEOUT_MS,
        });
      });
    }
  });

  it('"Select Context" offers the running demo cluster', async (t) => {
    const items = await s.step('context quick pick', async () => {
      const rows = s.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
      const open = async (timeout?: number) => {
        await s.page.keyboard.press('Escape');
        await s.workbench.runCommand(paletteTitle('selectContext'));
        // The context pick's own title and the demo cluster's row, not the palette's rows.
        await s.page.locator('.quick-input-widget .quick-input-title', { hasText: 'KubeLoop: Select Context' }).waitFor();
        await rows
          .filter({ hasText: /embedded demo cluster/ })
          .first()
          .waitFor(timeout ? { timeout } : {});
      };
      try {
        await open(10_000);
      } catch (e) {
        // Seen once in about ten runs (a full e2e tier, cause not found): the pick drew its title,
        // then its list stayed hidden, as when the quick pick is dismissed by a focus change. Say
        // what had focus, and ask once more: what this test checks is what the pick offers.
        const active = await s.page.evaluate(() => {
          const a = document.activeElement;
          return a ? `${a.tagName}.${a.className}` : 'none';
        });
        t.diagnostic(`the context pick's rows stayed hidden (${(e as Error).message.split('\n')[0]}); focus on ${active}; asking again`);
        await open();
      }
      return (await rows.allInnerTexts()).map((x) => x.replace(/\s+/g, ' ').trim());
    });
    await s.page.keyboard.press('Escape');
    assert.ok(
      items.some((t) => /^kubeloop-demo ?embedded demo cluster, http:\/\/127\.0\.0\.1:\d+/.test(t)),
      items.join(' | '),
    );
  });

  it('"Select Namespaces" lists the cluster\'s namespaces; picking one reloads the tree with only it', async () => {
    await s.step('namespaces quick pick', async () => {
      await s.workbench.runCommand(paletteTitle('selectNamespaces'));
      const row = s.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: prodNamespace }).first();
      await row.waitFor();
      await row.click(); // toggles its checkbox
      await s.page.locator('.quick-input-widget', { hasText: /1 Selected/ }).waitFor({ timeout: UI_TIMEOUT_MS });
      await s.page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' }).first().click();
    });
    const rows = await s.step('tree of one namespace', () =>
      eventually(
        async () => {
          const r = await s.workbench.treeRows();
          // the cluster-scoped group too: its types are listed after the namespaced ones
          return r.includes(prodNamespace) && r.includes('Cluster-scoped') && !r.includes('default') && !r.includes('kube-system') ? r : undefined;
        },
        { description: 'only the picked namespace, and the cluster-scoped group', timeoutMs: 60_000 },
      ),
    );
    assert.ok(rows.includes('Cluster-scoped'), rows.join(' | '));
    assert.deepEqual(dialogs, [], 'no alert dialog');
  });
});
