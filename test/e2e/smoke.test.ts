// The packaged extension in a real VS Code (code-server) driven in a real browser (Chromium):
// what a user sees first, before any cluster is loaded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { paletteTitle } from '../../src/vscode/commandIds';
import { startVsCode, type Session } from './support/session';

describe('KubeLoop in a real VS Code, in a real browser', () => {
  let s: Session;

  before(async () => {
    s = await startVsCode({ name: 'smoke' });
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
    const out = await s.step('show logs', async () => {
      await s.workbench.runCommand(paletteTitle('showLogs'));
      return s.workbench.outputChannel();
    });
    assert.equal(out.channel, 'KubeLoop');
    assert.match(out.text, /KubeLoop \d+\.\d+\.\d+ activated; 11 commands registered/);
  });

  it('"KubeLoop: Show Timeline" opens the timeline webview and its script runs under the CSP', async () => {
    const frame = await s.step('show timeline', async () => {
      await s.workbench.runCommand(paletteTitle('showTimeline'));
      return s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
    });
    assert.equal(await frame.locator('#timeline-root h1').innerText(), 'KubeLoop Timeline');
    assert.equal(await frame.locator('#timeline-status').innerText(), '0 of 0 events');
    const csp = s.consoleErrors.filter((m) => /Content Security Policy|Refused to/i.test(m));
    assert.deepEqual(csp, [], 'no CSP violations');
  });

  it('a command whose core is not wired yet says so instead of doing nothing', async () => {
    const messages = await s.step('not-ready command', async () => {
      await s.workbench.runCommand(paletteTitle('startSyncLoop'));
      return s.workbench.waitForNotification('Start Sync Loop');
    });
    assert.match(messages, /KubeLoop: Start Sync Loop is not available yet/);
  });
});
