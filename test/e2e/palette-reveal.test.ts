// A load from the command palette while the KubeLoop view is hidden (the Explorer open, a user typing
// in an editor): the KubeLoop view opens on its context row and fills as types load, and the editor
// keeps the keyboard. The packaged extension in code-server, driven in Chromium.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { paletteTitle } from '../../src/app/commandIds';
import { eventually } from '../support/eventually';
import { startVsCode, type Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';

describe('a palette load with the KubeLoop view hidden', () => {
  let s: Session;

  before(async () => {
    s = await startVsCode({ name: 'reveal', env: { KUBELOOP_DEMO_OBJECTS: '800' }, files: { 'notes.txt': 'notes\n' } });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
    await s.step('demo cluster started', async () => {
      await s.workbench.runCommand(paletteTitle('startDemoCluster'));
      await s.workbench.waitForNotification('demo cluster running at');
    });
  });

  after(async () => {
    await s?.close();
  });

  it('reveals the KubeLoop view, filling, while the editor keeps the focus and the typing', async () => {
    const editor = s.page.locator('.part.editor .monaco-editor').first();
    await s.step('typing in notes.txt, Explorer open', async () => {
      await s.workbench.openViewContainer('Explorer');
      await s.page.locator('.part.sidebar .monaco-list-row', { hasText: 'notes.txt' }).first().click();
      await s.workbench.waitForEditor('notes.txt', [/notes/]);
      await editor.locator('.view-lines').click();
      await s.page.keyboard.press('Control+End');
      await s.page.keyboard.type('before ');
      await s.workbench.waitForEditor('notes.txt', [/before/]);
    });
    const sideBarTitle = s.page.locator('.part.sidebar .composite.title');
    assert.match(await sideBarTitle.innerText(), /EXPLORER/i, 'the KubeLoop view is hidden before the load');

    const rows = await s.step('palette load', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      await sideBarTitle.filter({ hasText: /KubeLoop/i }).waitFor({ timeout: UI_TIMEOUT_MS });
      // The context row first, then its namespaces as the first types arrive.
      return eventually(
        async () => {
          const r = await s.workbench.treeRows();
          return r.length > 2 && r.some((x) => x.startsWith('default')) ? r : undefined;
        },
        { description: 'the KubeLoop tree to show the context and its namespaces', timeoutMs: 120_000 },
      );
    });
    assert.ok(rows[0]!.startsWith('kubeloop-demo'), `first row: ${rows[0]}`);

    // The keyboard is still the editor's: what is typed now lands in notes.txt.
    const focusInEditor = await s.page.evaluate(() => !!document.activeElement?.closest('.part.editor .monaco-editor'));
    assert.equal(focusInEditor, true, 'the focus stayed in the editor');
    await s.page.keyboard.type('after');
    const text = await s.workbench.waitForEditor('notes.txt', [/before after/]);
    assert.match(text.text, /before after/);
    await s.workbench.screenshot('palette-load-revealed');
  });
});
