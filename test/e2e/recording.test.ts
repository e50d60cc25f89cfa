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
import { objectLabel } from '../../src/app/recording/recordedObjects';
import type { Locator } from 'playwright-core';
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
      keybindings: [
        { key: 'ctrl+alt+f9', command: 'kubeloop.startRecording', args: file },
        { key: 'ctrl+alt+f10', command: 'kubeloop.openRecording', args: file },
      ],
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
            // and a few seconds of it, so that an early instant reads another clock time than the end
            return modified >= 5 && r.range.end - r.range.start >= 4000 ? true : undefined;
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

  it("opens the recording: a read-only banner and the recorded lanes, the Recording tree, an object's history as a diff, an earlier instant", async () => {
    // A pod the recording changed and still holds at its end: its history has a modification.
    const pod = await (async () => {
      const r = await Recording.open(file, never);
      try {
        const atEnd = await r.objectsAt(r.range.end, never);
        const changed = new Set<string>();
        for await (const x of r.records(never)) if (x.k === 'D' && x.op === 'M' && x.key.startsWith('pods/')) changed.add(x.key);
        const key = [...changed].find((k) => atEnd.has(k));
        assert.ok(key, 'a changed pod that exists at the end');
        return key;
      } finally {
        r.close();
      }
    })();
    let frame = await s.step('recording opened', async () => {
      await s.page.locator('.part.statusbar').click({ position: { x: 5, y: 5 } });
      await s.page.keyboard.press('Control+Alt+F10');
      return s.workbench.webviewFrame('#timeline-banner:not([hidden])', 60_000);
    });
    const banner = await frame.locator('#timeline-banner').innerText();
    assert.match(banner, /^Recording churn\.klr — \d\d:\d\d:\d\d\.\.\d\d:\d\d:\d\d \(read-only\)/);
    await frame.locator('#timeline-root[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
    const lanes = await eventually(
      async () => {
        const l = await frame.locator('#timeline-lanes li').allInnerTexts();
        return l.includes('config') && l.includes('sync') ? l : undefined;
      },
      { description: 'the recorded config and sync lanes', timeoutMs: UI_TIMEOUT_MS },
    );
    assert.ok(lanes.includes('housekeeping'), `lanes: ${lanes}`);

    const pane = s.page.locator('.part.sidebar .pane', { has: s.page.locator('.pane-header', { hasText: 'Recording' }) });
    const header = pane.locator('.pane-header');
    const atEnd = await s.step('the Recording tree at the end', async () => {
      await s.workbench.openViewContainer('KubeLoop');
      await pane.locator('.monaco-list-row', { hasText: 'pods' }).first().waitFor({ timeout: UI_TIMEOUT_MS });
      return eventually(async () => /recording at (\d\d:\d\d:\d\d)/.exec(await header.innerText())?.[1], {
        description: 'the Recording view to say which instant it shows',
        timeoutMs: UI_TIMEOUT_MS,
      });
    });

    await s.step('history of a pod as a diff', async () => {
      // The toast of the Stop Recording before ("recording saved to ...") was on screen both times
      // the pick below opened nothing: clear it first, and wait until no toast is left.
      await s.workbench.runCommand('Notifications: Clear All Notifications');
      await s.page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'detached', timeout: UI_TIMEOUT_MS });
      const choose = async (visibleWithinMs: number) => {
        await s.workbench.runCommand(paletteTitle('showRecordedHistory'));
        await pick(s, objectLabel(pod), new RegExp(`^${objectLabel(pod).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
        await pick(s, undefined, /^\d\d:\d\d:\d\d\.\d{3} (modified|added)$/, visibleWithinMs);
      };
      // The second pick was once created hidden (a focus change dismissed it; seen in a full run on
      // a busy machine, never alone): when it does not show, Escape and ask once more.
      await choose(10_000).catch(async (e: unknown) => {
        if (!(e instanceof Error) || e.name !== 'TimeoutError') throw e;
        await s.page.keyboard.press('Escape');
        await choose(UI_TIMEOUT_MS);
      });
      // One full run on a busy machine picked the change and no diff editor opened (no quick pick
      // left, a notification counted in the status bar). Ask once more, and say what the
      // notifications said, so a failure of the command itself shows in the log.
      const diff = s.page.locator('.part.editor .monaco-diff-editor').first();
      await diff.waitFor({ timeout: 10_000 }).catch(async (e: unknown) => {
        if (!(e instanceof Error) || e.name !== 'TimeoutError') throw e;
        const notes = await s.page
          .locator('.notifications-toasts .notification-list-item-message, .notifications-center .notification-list-item-message')
          .allInnerTexts();
        console.log(`no diff editor 10 s after the pick; notifications: ${JSON.stringify(notes)}; asking again`);
        await s.page.keyboard.press('Escape');
        await choose(UI_TIMEOUT_MS);
      });
      await diff.waitFor({ timeout: UI_TIMEOUT_MS });
      await eventually(
        async () => /: (modified|added) at \d\d:\d\d:\d\d\.\d{3} \(recording\)/.test(await s.page.locator('.part.editor .tab.active').innerText()),
        { description: 'the diff editor titled with the change', timeoutMs: UI_TIMEOUT_MS },
      );
      const text = await eventually(
        async () => {
          const t = (await s.page.locator('.part.editor .monaco-diff-editor').first().innerText()).replace(/\u00a0/g, ' ');
          return /after the change at/.test(t) ? t : undefined;
        },
        { description: 'the diff to show the recorded object after the change', timeoutMs: UI_TIMEOUT_MS },
      );
      assert.match(text.replace(/\u00a0/g, ' '), /after the change at .* from the recording churn\.klr/);
    });

    await s.step('an earlier instant chosen in the timeline', async () => {
      // The diff editor hid the recording's panel (its webview is not kept while hidden): show it again.
      await s.page.locator('.part.editor .tab', { hasText: 'Recording churn.klr' }).click();
      frame = await s.workbench.webviewFrame('#timeline-banner:not([hidden])', 60_000);
      await frame.locator('#timeline-root[data-ready="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
      await frame.locator('button', { hasText: 'Fit' }).click();
      await frame.locator('button', { hasText: 'List' }).click();
      // An event in the middle: the first ones precede the sources' first lists to the recorder (an
      // empty cluster). The list is redrawn with the view, so a row may be replaced under the click:
      // click until the Recording view says it shows another instant.
      const items = frame.locator('#timeline-events li[role="option"]');
      await eventually(
        async () => {
          const n = await items.count();
          if (n)
            await items
              .nth(Math.floor(n / 2))
              .click({ timeout: 2000 })
              .catch(() => undefined);
          const at = /recording at (\d\d:\d\d:\d\d)/.exec(await header.innerText())?.[1];
          return at && at !== atEnd ? at : undefined;
        },
        { description: `the Recording view to show an instant before ${atEnd}`, timeoutMs: UI_TIMEOUT_MS },
      );
      assert.match(await frame.locator('#timeline-banner').innerText(), /the Recording view shows the cluster at \d\d:\d\d:\d\d/);
    });

    await s.step('an object of that instant as YAML', async () => {
      await s.workbench.openViewContainer('KubeLoop');
      const podsRow = pane.locator('.monaco-list-row', { has: s.page.locator('.label-name', { hasText: /^pods$/ }) }).first();
      await expand(podsRow);
      // The row clicked is read from the editor it opens, not from the row beforehand: an instant
      // picked by the step before may still be redrawing the view, changing which row is first, and
      // a row replaced under the pointer takes no click: click until a pod's YAML is the editor.
      const firstRow = pane.locator('.monaco-list-row[aria-level="2"]').first();
      const editor = await eventually(
        async () => {
          const e = await s.workbench.activeEditor();
          const label = /^# pods (\S+) as recorded at/.exec(e.text)?.[1];
          // The tab is part of the state waited for: the editor may be drawn before its tab is active.
          if (label && e.tab.endsWith('.yaml') && /A recording: read-only, not the cluster now\./.test(e.text) && /kind: Pod/.test(e.text))
            return { ...e, label };
          await firstRow.click({ timeout: 2000 }).catch(() => undefined);
          return undefined;
        },
        { description: 'the YAML of a recorded pod', timeoutMs: UI_TIMEOUT_MS },
      );
      assert.equal(editor.tab, `${editor.label.slice(editor.label.lastIndexOf('/') + 1)}.yaml`);
      assert.ok(
        await pane.locator('.monaco-list-row[aria-level="2"] .label-name', { hasText: editor.label }).count(),
        `${editor.label} is a row of the Recording view`,
      );
    });
  });
});

/** Types `text` (if any) into the open quick input and takes the row whose label matches, once it is the focused one. */
async function pick(s: Session, text: string | undefined, label: RegExp, visibleWithinMs = UI_TIMEOUT_MS): Promise<void> {
  const widget = s.page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: visibleWithinMs });
  if (text !== undefined) await input.fill(text);
  const focused = widget.locator('.quick-input-list .monaco-list-row.focused .label-name');
  await eventually(
    async () => {
      const t = (await focused.first().innerText({ timeout: 1000 })).replace(/\u00a0/g, ' ').trim();
      return label.test(t) ? t : undefined;
    },
    { description: `the quick pick to focus a row matching ${label}`, timeoutMs: UI_TIMEOUT_MS },
  );
  await s.page.keyboard.press('Enter');
}

async function expand(row: Locator): Promise<void> {
  await row.waitFor({ timeout: UI_TIMEOUT_MS });
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
  await row.and(row.page().locator('[aria-expanded="true"]')).waitFor({ timeout: UI_TIMEOUT_MS });
}
