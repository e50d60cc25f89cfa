// The Top Writers view in a real VS Code (code-server) driven in a real browser (issue 44, story 3).
// The cluster is a demo cluster in this test process with its planted writers (src/demo/writers.ts:
// fight-a and fight-b taking one annotation of ConfigMap writers/contested from each other, a
// 13/s hot loop). After a load and Start Sync Loop, Show Top Writers opens the view; the fight is
// flagged there (a warning icon, FIGHT, the field and the other manager) within 10 s of the view
// saying it watches; the timeline has a lane per fighter. Every wait is on what the page has drawn.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { paletteTitle } from '../../src/app/commandIds';
import { startDemoCluster } from '../../src/demo';
import { FIGHT_ANNOTATION } from '../../src/demo/writers';
import { openOnDemoCluster, type DemoWindow } from './support/demoWindow';
import type { Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

describe('Top Writers in a real VS Code (code-server)', () => {
  let s: Session;
  let w: DemoWindow | undefined;

  before(async () => {
    const cluster = await startDemoCluster({ kubelet: false, objects: 300, seed: 44, writers: true });
    w = await openOnDemoCluster('writers', cluster, (kubeconfig) => cluster.writeKubeconfig(kubeconfig));
    s = w.s;
  });

  after(() => w?.close());

  it('flags the planted fight on both fighters within 10 s of watching, naming the field and the other manager', async (t) => {
    await s.step('loaded', async () => {
      await s.workbench.runCommand(paletteTitle('loadClusterResources'));
      await eventually(async () => /[\d,]+ objects/.test(await s.workbench.statusBarText('kubeloop.status')), {
        description: 'the status bar to count the loaded objects',
        timeoutMs: 120_000,
      });
    });
    await s.step('top writers shown', async () => {
      await s.workbench.runCommand(paletteTitle('showWriters'));
      await s.workbench.treeRow('Start the sync loop to see who writes').first().waitFor({ timeout: UI_TIMEOUT_MS });
    });
    await s.step('sync loop started', () => s.workbench.runCommand(paletteTitle('startSyncLoop')));
    const watching = await eventually(
      async () => ((await s.workbench.treeRows()).some((r) => /^Watching for writes|^fight-|^looping-operator/.test(r)) ? Date.now() : undefined),
      { description: 'the view to say it watches', timeoutMs: 60_000 },
    );
    const fighter = async (name: string) => {
      const row = s.workbench.treeRow(name).first();
      if (!(await row.count())) return undefined;
      const text = await s.workbench.treeRowText(name);
      return /FIGHT/.test(text.description) && (await row.locator('.codicon-warning').count()) ? text : undefined;
    };
    const flagged = await s.step('fight flagged', () =>
      eventually(async () => ((await fighter('fight-a')) && (await fighter('fight-b')) ? Date.now() : undefined), {
        description: 'fight-a and fight-b flagged with FIGHT and a warning icon',
        timeoutMs: 60_000,
      }),
    );
    t.diagnostic(`flagged ${flagged - watching} ms after the view said it watches`);
    assert.ok(flagged - watching <= 10_000, `flagged ${flagged - watching} ms after watching began`);
    const a = await fighter('fight-a');
    assert.match(a!.description, /^FIGHT · \d+\.\d\/s/);
    const detail = await s.step('fight-a expanded', async () => {
      await s.workbench.expandTreeRow('fight-a');
      return s.workbench.treeRowText(`Fight over metadata.annotations.${FIGHT_ANNOTATION}`);
    });
    assert.equal(detail.description, 'configmaps:writers/contested with fight-b');
    await s.step('hot loop flagged', () =>
      eventually(async () => (/HOT LOOP/.test((await s.workbench.treeRowText('looping-operator')).description) ? true : undefined), {
        description: 'looping-operator flagged with HOT LOOP',
        timeoutMs: 60_000,
      }),
    );
    const frame = await s.step('timeline shows the writer lanes', async () => {
      await s.workbench.runCommand(paletteTitle('showTimeline'));
      const f = await s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
      await f.locator('#timeline-lanes li[data-lane="writer:fight-a"]').waitFor({ timeout: UI_TIMEOUT_MS });
      return f;
    });
    assert.match(
      (await frame.locator('#timeline-lanes li[data-lane="writer:fight-a"]').getAttribute('aria-label'))!,
      /^Lane writer fight-a: writes of field manager fight-a/,
    );
    assert.equal(await frame.locator('#timeline-sources button[data-source="writers"]').getAttribute('aria-pressed'), 'true');
  });
});
