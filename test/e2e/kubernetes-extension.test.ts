// KubeLoop next to the Kubernetes extension, in a real VS Code (code-server) in a real browser. The
// Kubernetes extension is a stand-in built by this test with the real one's id and API shape
// (support/standinKubernetes.ts); its kubeconfig path reaches KubeLoop only through that API
// ($STANDIN_KUBECONFIG; KubeLoop's own kubeconfig setting is unset and $KUBECONFIG names no file).
// The cluster is a demo cluster in this test process with two contexts, alpha (current) and beta.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { paletteTitle } from '../../src/app/commandIds';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { startVsCode, type Session } from './support/session';
import { buildStandinKubernetesExtension } from './support/standinKubernetes';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
}

/** Every file under `dir` whose name ends with `suffix`. */
function findFiles(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findFiles(p, suffix));
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out;
}

describe('following the Kubernetes extension, in a real VS Code (code-server)', () => {
  let s: Session;
  let cluster: DemoCluster;
  let dir: string;
  let kubeconfig: string;
  let other: string;
  let evil: string;

  /** The KubeLoop output channel's whole log, as the extension host wrote it to disk. */
  const kubeloopLog = () =>
    findFiles(join(s.userDataDir, 'logs'), 'KubeLoop.log')
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
  const rootRow = async () => (await s.workbench.treeRows())[0] ?? '';

  before(async () => {
    cluster = await startDemoCluster({ tls: true, token: 'e2e-k8s-ext-token', kubelet: false, objects: 300, seed: 7 });
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-e2e-k8sext-'));
    const base = load(cluster.kubeconfig()) as Kubeconfig;
    kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: base.clusters,
        users: base.users,
        contexts: [
          { name: 'alpha', context: { cluster: base.clusters[0]!.name, user: base.users[0]!.name } },
          { name: 'beta', context: { cluster: base.clusters[0]!.name, user: base.users[0]!.name, namespace: 'kube-system' } },
        ],
        'current-context': 'alpha',
      }),
    );
    evil = join(dir, 'workspace-chosen-config');
    writeFileSync(
      evil,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: base.clusters,
        users: base.users,
        contexts: [{ name: 'evil', context: { cluster: base.clusters[0]!.name, user: base.users[0]!.name } }],
        'current-context': 'evil',
      }),
    );
    // a second kubeconfig the user switches to in the Kubernetes extension (its knownKubeconfigs)
    other = join(dir, 'other-config');
    writeFileSync(
      other,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: base.clusters,
        users: base.users,
        contexts: [{ name: 'gamma', context: { cluster: base.clusters[0]!.name, user: base.users[0]!.name } }],
        'current-context': 'gamma',
      }),
    );
    const standin = await buildStandinKubernetesExtension({ contexts: ['alpha', 'beta'], namespaces: ['team-a'] });
    s = await startVsCode({
      name: 'k8sext',
      extensions: [standin],
      env: { KUBECONFIG: '/nonexistent/kubeloop-e2e/kubeconfig', STANDIN_KUBECONFIG: kubeconfig },
      settings: { 'vs-kubernetes': { 'vs-kubernetes.knownKubeconfigs': [kubeconfig, other] } },
      // a cloned repository's settings must not choose a kubeconfig (it could name an exec plugin)
      files: { '.vscode/settings.json': JSON.stringify({ 'vs-kubernetes': { 'vs-kubernetes.kubeconfig': evil, 'vs-kubernetes.knownKubeconfigs': [evil] } }) },
    });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
    await s.workbench.openViewContainer('KubeLoop');
  });

  after(async () => {
    await s?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Sets kubeloop.followKubernetesExtension as a user does: the Settings editor, found by its id, its checkbox. */
  async function setFollowing(on: boolean): Promise<void> {
    await s.step(`setting ${on ? 'on' : 'off'}`, async () => {
      await s.workbench.runCommand('Preferences: Open Settings (UI)');
      const search = s.page.locator('.settings-editor .suggest-input-container textarea, .settings-editor .settings-header input').first();
      await search.waitFor({ state: 'visible' });
      await search.fill('@id:kubeloop.followKubernetesExtension');
      await s.page.locator('.settings-editor .setting-item-bool', { hasText: 'Follow Kubernetes Extension' }).first().waitFor({ state: 'visible' });
      const checkbox = s.page.locator('.settings-editor .setting-item-bool .setting-value-checkbox').first();
      assert.equal(await checkbox.getAttribute('aria-checked'), String(!on), `the setting is ${on ? 'off' : 'on'} before`);
      const changed = async () => ((await checkbox.getAttribute('aria-checked')) === String(on) ? true : undefined);
      await checkbox.click();
      // A click the Settings editor swallowed while it was still laying out (seen once, under load
      // 6-9) leaves the box as it was: click once more, only if it still reads the old value.
      const first = await eventually(changed, { description: 'the checkbox to change', timeoutMs: 10_000 }).catch(() => undefined);
      if (!first && (await checkbox.getAttribute('aria-checked')) === String(!on)) await checkbox.click();
      await eventually(changed, { description: 'the checkbox to change', timeoutMs: UI_TIMEOUT_MS });
    });
  }

  it('loads the kubeconfig the Kubernetes extension reports through its configuration API', async () => {
    await s.step('loaded through the followed kubeconfig', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      await eventually(async () => ((await rootRow()).startsWith('alpha') && (await s.workbench.treeRows()).length > 2 ? true : undefined), {
        description: 'the tree to fill with context alpha',
        timeoutMs: 120_000,
      });
    });
    const followedLine = new RegExp(
      `Kubernetes extension 1\\.3\\.99: following its configuration API v1_1; kubeconfig ${kubeconfig.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`,
    );
    await eventually(async () => (followedLine.test(kubeloopLog()) ? true : undefined), {
      description: 'the log line saying what is followed',
      timeoutMs: UI_TIMEOUT_MS,
    });
    assert.ok((await s.workbench.treeRows()).includes('default'), "the cluster's namespaces are in the tree");
  });

  it('a context change in the Kubernetes extension reloads KubeLoop on that context', async () => {
    const loadsBefore = (kubeloopLog().match(/loader: loading from "beta"/g) ?? []).length;
    await s.step('context switched to beta there', async () => {
      await s.workbench.runCommand('Stand-in Kubernetes: Use Context beta');
      await eventually(async () => ((await rootRow()).startsWith('beta') && (await s.workbench.treeRows()).length > 2 ? true : undefined), {
        description: 'the tree to show context beta, filled',
        timeoutMs: 120_000,
      });
    });
    await eventually(
      async () =>
        /Kubernetes extension: it switched to context beta; following kubeconfig .* \(the Kubernetes extension\), context beta/.test(kubeloopLog())
          ? true
          : undefined,
      { description: 'the log to say what changed', timeoutMs: UI_TIMEOUT_MS },
    );
    await eventually(async () => ((kubeloopLog().match(/loader: loading from "beta"/g) ?? []).length > loadsBefore ? true : undefined), {
      description: 'the log to show the reload on beta',
      timeoutMs: UI_TIMEOUT_MS,
    });
    assert.equal((kubeloopLog().match(/loader: loading from "beta"/g) ?? []).length, loadsBefore + 1, 'one reload on beta');
    const status = await eventually(
      async () => {
        const t = await s.workbench.statusBarText('kubeloop.status');
        return /beta.*[\d,]+ objects/.test(t) ? t : undefined;
      },
      { description: 'the status bar to name beta', timeoutMs: 60_000 },
    );
    assert.doesNotMatch(status, /alpha/);
  });

  it('a namespace change there reloads the tree too, and a running sync loop restarts on it', async () => {
    const syncing = () =>
      eventually(async () => (/syncing/.test(await s.workbench.statusBarText('kubeloop.status')) ? true : undefined), {
        description: 'the status bar to say syncing',
        timeoutMs: 60_000,
      });
    await s.step('sync loop started', async () => {
      await s.workbench.runCommand(paletteTitle('startSyncLoop'));
      await syncing();
    });
    const loads = () => (kubeloopLog().match(/loader: loading from "beta"/g) ?? []).length;
    const before = loads();
    await s.step('namespace switched there', async () => {
      await s.workbench.runCommand('Stand-in Kubernetes: Use Namespace team-a');
      await eventually(async () => (loads() > before ? true : undefined), { description: 'a reload after the namespace change', timeoutMs: 60_000 });
    });
    assert.match(kubeloopLog(), /Kubernetes extension: it switched to namespace team-a/); // logged before the reload's line
    await eventually(async () => ((await rootRow()).startsWith('beta') && (await s.workbench.treeRows()).length > 2 ? true : undefined), {
      description: 'the tree to fill again',
      timeoutMs: 120_000,
    });
    const restarted = () => {
      const log = kubeloopLog();
      const stop = log.lastIndexOf('sync loop: the Kubernetes extension switched namespace');
      return stop >= 0 && log.indexOf('sync loop: starting on "beta"', stop) > stop;
    };
    await eventually(async () => (restarted() ? true : undefined), {
      description: 'the sync loop stopped for the namespace and started again',
      timeoutMs: 60_000,
    }).catch((e) => {
      throw new Error(
        `${(e as Error).message}\n--- KubeLoop log tail ---\n${kubeloopLog()
          .split('\n')
          .filter((l) => /sync loop|loader: loading|Kubernetes extension|target/.test(l))
          .slice(-15)
          .join('\n')}`,
      );
    });
    await syncing();
  });

  it("kubeloop.followKubernetesExtension off: KubeLoop reads only its own settings and ignores the extension's changes", async () => {
    await setFollowing(false);
    await eventually(async () => (/settings changed: .*"followKubernetesExtension":false/.test(kubeloopLog()) ? true : undefined), {
      description: 'the settings change to reach KubeLoop',
      timeoutMs: UI_TIMEOUT_MS,
    });
    await s.workbench.runCommand('Stand-in Kubernetes: Use Context alpha');
    // A load now runs on KubeLoop's own target: $KUBECONFIG, which names no file.
    const message = await s.step('load on its own settings', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      return s.workbench.waitForNotification('Kubeconfig problem');
    });
    assert.match(message, /KUBECONFIG names no existing file: \/nonexistent\/kubeloop-e2e\/kubeconfig/);
    assert.doesNotMatch(kubeloopLog(), /switched to context alpha/, "the extension's context change was not followed");
  });

  it('following again, Select Context also offers the contexts of its other known kubeconfigs; picking one loads it', async () => {
    await setFollowing(true);
    await eventually(async () => (/settings changed: .*"followKubernetesExtension":true/.test(kubeloopLog()) ? true : undefined), {
      description: 'the settings change to reach KubeLoop',
      timeoutMs: UI_TIMEOUT_MS,
    });
    await s.workbench.runCommand(paletteTitle('selectContext'));
    const rows = s.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await rows.first().waitFor();
    const offered = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.ok(offered.some((t) => t.startsWith('alpha')) && offered.some((t) => t.startsWith('beta')), offered.join(' | '));
    assert.ok(
      offered.some((t) => t.startsWith('gamma') && t.includes(`in ${other} (vs-kubernetes.knownKubeconfigs)`)),
      offered.join(' | '),
    );
    assert.equal(offered.filter((t) => t.includes('knownKubeconfigs')).length, 1, 'the followed kubeconfig itself is not offered twice');
    assert.ok(!offered.some((t) => t.startsWith('evil')), `a kubeconfig named by the workspace's settings is not offered: ${offered.join(' | ')}`);
    assert.doesNotMatch(kubeloopLog(), /workspace-chosen-config/, 'nor followed');
    await s.step('gamma picked', async () => {
      await s.page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row', { has: s.page.locator('.label-name', { hasText: /^gamma$/ }) })
        .first()
        .click();
      await eventually(async () => ((await rootRow()).startsWith('gamma') && (await s.workbench.treeRows()).length > 2 ? true : undefined), {
        description: 'the tree to show context gamma, filled',
        timeoutMs: 120_000,
      });
    });
    await eventually(async () => (kubeloopLog().includes(`target: context gamma of ${other}`) ? true : undefined), {
      description: 'the log to name the target',
      timeoutMs: UI_TIMEOUT_MS,
    });
  });
});
