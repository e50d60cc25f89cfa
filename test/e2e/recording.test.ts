// The flight recorder in a real VS Code (code-server) driven in Chromium: a user starts the demo
// cluster and the sync loop, records some churn (the status bar says REC while it records), stops,
// opens the recording in the timeline (a read-only banner, the recorded lanes), picks an instant
// (the Recording tree shows the cluster as it was, an object's YAML then), and opens an object's
// history as a diff. The file names come through a keybinding's arguments: code-server's save
// and open dialogs are its own quick inputs, not what this test is about.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paletteTitle } from '../../src/app/commandIds';
import { Recording } from '../../src/core/recorder/reader';
import { startVsCode, type Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

const never = new AbortController().signal;

describe('the flight recorder in a real VS Code', () => {
  let s: Session;
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-e2e-recording-'));
  const file = join(dir, 'churn.klr');

  before(async () => {
    s = await startVsCode({
      name: 'recording',
      env: { KUBELOOP_DEMO_OBJECTS: '300', KUBELOOP_DEMO_CHURN: '3' },
      keybindings: [{ key: 'ctrl+alt+f9', command: 'kubeloop.startRecording', args: file }],
    });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
    await s.workbench.openViewContainer('KubeLoop');
  });

  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the sync loop: REC in the status bar while it records, a recording that opens after Stop Recording', async () => {
    await s.step('demo cluster started', async () => {
      await s.workbench.runCommand(paletteTitle('startDemoCluster'));
      await s.workbench.waitForNotification('demo cluster running at');
    });
    await s.step('resources loaded', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      await eventually(async () => /kubeloop-demo \(demo\) · [\d,]+ objects/.test(await s.workbench.statusBarText('kubeloop.status')), {
        description: 'the status bar to count the loaded objects',
        timeoutMs: 120_000,
      });
    });
    await s.step('sync loop running', async () => {
      await s.workbench.runCommand(paletteTitle('startSyncLoop'));
      await eventually(async () => (/syncing/.test(await s.workbench.statusBarText('kubeloop.status')) ? true : undefined), {
        description: 'the status bar to say syncing',
        timeoutMs: 120_000,
      });
    });
    const rec = await s.step('recording', async () => {
      await s.page.locator('.part.statusbar').click({ position: { x: 5, y: 5 } }); // focus the workbench, not an input
      await s.page.keyboard.press('Control+Alt+F9');
      return eventually(
        async () => {
          const text = await s.workbench.statusBarText('kubeloop.recording').catch(() => '');
          return /REC churn\.klr/.test(text) ? text : undefined;
        },
        { description: 'the status bar to say REC churn.klr', timeoutMs: UI_TIMEOUT_MS },
      );
    });
    assert.match(rec, /REC churn\.klr/);
    // Churn: wait until the recording on disk holds changes of objects after its first lists.
    await s.step('churn recorded', async () => {
      await eventually(
        async () => {
          if (!existsSync(file) || statSync(file).size === 0) return undefined;
          const r = await Recording.open(file, never).catch(() => undefined);
          if (!r) return undefined;
          try {
            let modified = 0;
            for await (const x of r.records(never)) if (x.k === 'D' && x.op === 'M' && x.key.startsWith('pods/')) modified++;
            return modified >= 5 ? true : undefined;
          } finally {
            r.close();
          }
        },
        { description: 'five recorded pod changes', timeoutMs: 120_000 },
      );
    });
    await s.step('recording stopped', async () => {
      await s.workbench.runCommand(paletteTitle('stopRecording'));
      await s.workbench.waitForNotification('recording saved to');
    });
    assert.equal(await s.page.locator('.part.statusbar [id*="kubeloop.recording"]').isVisible(), false, 'no REC item after Stop Recording');
    const r = await Recording.open(file, never);
    try {
      assert.equal(r.header.context, 'kubeloop-demo');
      assert.equal(r.damage.length, 0, 'closed cleanly');
      assert.ok((await r.timelineEvents({}, never)).length > 0, 'timeline events recorded');
    } finally {
      r.close();
    }
  });
});
