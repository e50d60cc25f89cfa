// The smoke scenarios of test/e2e/smoke.test.ts, through the VS Code API inside the extension host.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS, TIMELINE_PANEL_TYPE } from '../../../../src/app/commandIds';
import type { KubeLoopApi } from '../../../../src/vscode/extension';
import { eventually } from '../../../support/eventually';

const EXTENSION_ID = 'kubeloop.kubeloop';

describe('KubeLoop in the extension host', () => {
  let api: KubeLoopApi;

  before(async () => {
    const ext = vscode.extensions.getExtension<KubeLoopApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is installed`);
    api = await ext.activate();
  });

  it('registers every contributed command', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of Object.values(COMMANDS)) assert.ok(registered.has(c.id), `${c.id} is registered`);
  });

  it('starts with an empty resource tree (so the welcome content shows) and valid default settings', async () => {
    assert.deepEqual(api.tree.getChildren(), []);
    assert.equal(api.settings().concurrency, 4);
  });

  it('Show Logs and Show Timeline run; the timeline opens as a webview panel', async () => {
    await vscode.commands.executeCommand(COMMANDS.showLogs.id);
    await vscode.commands.executeCommand(COMMANDS.showTimeline.id);
    // The extension host's tab model follows the workbench's by an event, after the command returned.
    const timelineTabs = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(TIMELINE_PANEL_TYPE));
    await eventually(() => timelineTabs().length > 0, { description: 'the timeline tab', timeoutMs: 15_000 });
    const webviews = timelineTabs();
    assert.equal(webviews.length, 1);
    assert.equal(webviews[0]!.label, 'KubeLoop Timeline');
  });

  it('falls back to the default for an invalid setting instead of using it', async () => {
    const cfg = vscode.workspace.getConfiguration('kubeloop');
    try {
      await cfg.update('concurrency', 8, vscode.ConfigurationTarget.Global);
      await eventually(() => api.settings().concurrency === 8, { description: 'concurrency 8 to apply', timeoutMs: 5000 });
      await cfg.update('concurrency', 64, vscode.ConfigurationTarget.Global);
      await eventually(() => api.settings().concurrency === 4, { description: 'the invalid 64 to fall back to 4', timeoutMs: 5000 });
    } finally {
      await cfg.update('concurrency', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
