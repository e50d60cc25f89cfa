// The packaged extension in a real VS Code (code-server) driven in a real browser (Chromium):
// what a user sees first, before any cluster is loaded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS, paletteTitle } from '../../src/app/commandIds';
import { startVsCode, type Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

describe('KubeLoop in a real VS Code, in a real browser', () => {
  let s: Session;

  before(async () => {
    // A kubeconfig that does not exist: the commands that need a cluster must say so, with a way out.
    // The Kubernetes extension is not installed: a kubeconfig its settings left behind changes nothing.
    s = await startVsCode({
      name: 'smoke',
      env: { KUBECONFIG: '/nonexistent/kubeloop-e2e/kubeconfig' },
      settings: { 'vs-kubernetes': { 'vs-kubernetes.kubeconfig': '/etc/hostname' } },
    });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
  });

  after(async () => {
    await s?.close();
  });

  it('has a KubeLoop activity-bar container whose empty tree shows the welcome content', async () => {
    const welcome = await s.step('kubeloop container opened', async () => {
      await s.workbench.openViewContainer('KubeLoop');
      return s.workbench.sideBarWelcomeText();
    });
    assert.match(welcome, /No cluster resources loaded yet/);
    assert.match(welcome, /Load Cluster Resources/);
    assert.match(welcome, /Start Demo Cluster/);
    assert.deepEqual(await s.workbench.treeRows(), [], 'the tree has no rows before a load');
  });

  it('"KubeLoop: Show Logs" opens the output channel named KubeLoop, with the activation line', async () => {
    const activated = new RegExp(`KubeLoop \\d+\\.\\d+\\.\\d+ activated; ${Object.keys(COMMANDS).length} commands registered`);
    const out = await s.step('show logs', async () => {
      await s.workbench.runCommand(paletteTitle('showLogs'));
      // the panel opens before Monaco has rendered the channel's lines
      return eventually(
        async () => {
          const o = await s.workbench.outputChannel();
          return activated.test(o.text) ? o : undefined;
        },
        { description: 'the activation line in the output', timeoutMs: UI_TIMEOUT_MS },
      );
    });
    assert.equal(out.channel, 'KubeLoop');
    assert.match(out.text, activated);
  });

  it('"KubeLoop: Show Timeline" opens the timeline webview and its script runs under the CSP', async () => {
    const frame = await s.step('show timeline', async () => {
      await s.workbench.runCommand(paletteTitle('showTimeline'));
      return s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
    });
    assert.equal(await frame.locator('#timeline-root h1').innerText(), 'KubeLoop Timeline');
    // data-ready is set when the history arrives; the status line is written by the next frame.
    await frame.locator('#timeline-status', { hasText: /^0 of 0 events$/ }).waitFor();
    assert.equal(await frame.locator('#timeline-status').innerText(), '0 of 0 events');
    const csp = s.consoleErrors.filter((m) => /Content Security Policy|Refused to/i.test(m));
    assert.deepEqual(csp, [], 'no CSP violations');
  });

  it('a load with a kubeconfig that does not exist says so, offering to open the kubeconfig or select a context', async () => {
    const toast = await s.step('broken kubeconfig', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      await s.workbench.waitForNotification('Kubeconfig problem');
      return s.page.locator('.notifications-toasts .notification-toast', { hasText: 'Kubeconfig problem' }).first();
    });
    assert.match(
      await toast.locator('.notification-list-item-message').innerText(),
      /KubeLoop: Kubeconfig problem: KUBECONFIG names no existing file: \/nonexistent\/kubeloop-e2e\/kubeconfig/,
    );
    await toast.locator('.monaco-button', { hasText: 'Select Context' }).waitFor(); // the last action drawn
    const buttons = (await toast.locator('.monaco-button').allInnerTexts()).map((b) => b.trim());
    assert.deepEqual(buttons, ['Open kubeconfig', 'Retry', 'Select Context']);
  });
});
