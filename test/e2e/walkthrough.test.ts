// A new user's first minute, in a real VS Code (code-server) in a real browser: the "Get Started with
// KubeLoop" walkthrough opened by its id (publisher.name#walkthroughId), each step done by its own
// button, in order, and its checkmark drawn once the state it asks for is reached. Then what a
// screen reader announces for tree rows, and the tree and timeline in the Default High Contrast theme.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { Frame, Locator } from 'playwright-core';
import { PROBE_ME, WALKTHROUGH_ID } from '../../src/app/walkthrough/walkthrough';
import { e2eArtifactsDir } from './support/paths';
import { startVsCode, type Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { publisher: string; name: string };
const WALKTHROUGH = `${pkg.publisher}.${pkg.name}#${WALKTHROUGH_ID}`;
const OPEN_WALKTHROUGH_KEY = 'ctrl+alt+w';

/** The demo cluster's API server URL, from the kubeconfig the extension wrote into its global storage. */
function demoServer(s: Session): string {
  const path = join(s.userDataDir, 'User', 'globalStorage', 'kubeloop.kubeloop', 'demo', 'kubeconfig');
  const kc = load(readFileSync(path, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  return kc.clusters[0]!.cluster.server;
}

/** The study guide's probe-me pod (as `kubectl run probe-me --overrides=...` creates it). */
const PROBE_ME_POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: PROBE_ME.name, namespace: PROBE_ME.namespace, labels: { run: PROBE_ME.name } },
  spec: {
    containers: [
      {
        name: 'probe-me',
        image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
        args: ['netexec', '--http-port=8080'],
        livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
      },
    ],
  },
};

describe('the first-run walkthrough, accessibility and high contrast, in a real VS Code (code-server)', () => {
  let s: Session;
  let ready = 0;

  before(async () => {
    s = await startVsCode({
      name: 'walkthrough',
      env: { KUBELOOP_DEMO_OBJECTS: '400', KUBELOOP_DEMO_CHURN: '0' },
      // workbench.action.openWalkthrough takes the walkthrough's id as its argument: a keybinding carries it
      keybindings: [{ key: OPEN_WALKTHROUGH_KEY, command: 'workbench.action.openWalkthrough', args: WALKTHROUGH }],
    });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
    ready = Date.now();
  });

  after(async () => {
    await s?.close();
  });

  const page = () => s.page;
  const stepButton = (title: string): Locator => page().locator('.gettingStartedContainer button.getting-started-step', { hasText: title }).first();

  async function openWalkthrough(): Promise<void> {
    // out of the terminal (which would send the keys to its shell) and any quick input: the side bar's title
    await page().keyboard.press('Escape');
    await page().locator('.part.sidebar .composite.title').first().click();
    await page().keyboard.press('Control+Alt+W');
    await page().locator('.gettingStartedContainer', { hasText: 'Get Started with KubeLoop' }).first().waitFor({ state: 'visible' });
  }

  /** Selects the step, clicks its button, waits for `reached`, then for its checkmark. */
  async function doStep(title: string, button: string, reached: () => Promise<void>): Promise<void> {
    await openWalkthrough();
    const step = stepButton(title);
    assert.equal(await step.getAttribute('aria-checked'), 'false', `"${title}" is not done before its turn`);
    await step.click();
    await eventually(async () => ((await step.getAttribute('aria-expanded')) === 'true' ? true : undefined), {
      description: `step "${title}" to expand`,
      timeoutMs: UI_TIMEOUT_MS,
    });
    await step.locator('.button-container .monaco-button', { hasText: button }).first().click();
    await reached();
    await openWalkthrough();
    await eventually(
      async () =>
        (await step.getAttribute('aria-checked')) === 'true' && (await step.locator('.codicon-getting-started-step-checked').count()) > 0 ? true : undefined,
      { description: `the checkmark of "${title}"`, timeoutMs: 60_000 },
    );
  }

  it('each step completes in order when the user has done it, and the tree is filled within 60 s', async (t) => {
    await s.step('walkthrough opened', async () => {
      await openWalkthrough();
      const titles = (await page().locator('.gettingStartedContainer button.getting-started-step h3').allInnerTexts()).map((x) => x.trim());
      assert.deepEqual(titles, [
        'Start the demo cluster',
        'Load the cluster into the tree',
        'Start the sync loop',
        'Open the timeline',
        'Watch a liveness probe fail',
      ]);
      assert.equal(await page().locator('.gettingStartedContainer button.getting-started-step[aria-checked="true"]').count(), 0, 'nothing is done yet');
    });
    await s.step('1 demo started', () =>
      doStep('Start the demo cluster', 'Start Demo Cluster', async () => void (await s.workbench.waitForNotification('demo cluster running at'))),
    );
    await s.step('2 loaded', () =>
      doStep('Load the cluster into the tree', 'Load Cluster Resources', async () => {
        await s.workbench.openViewContainer('KubeLoop');
        await eventually(async () => ((await s.workbench.treeRows()).includes('default') ? true : undefined), {
          description: 'the tree to fill',
          timeoutMs: 60_000,
        });
      }),
    );
    const filledAfter = Date.now() - ready;
    t.diagnostic(`from the workbench ready to a filled tree through the walkthrough: ${(filledAfter / 1000).toFixed(1)} s`);
    assert.ok(filledAfter < 60_000, `a filled tree ${filledAfter} ms after start`);
    await s.step('3 syncing', () =>
      doStep('Start the sync loop', 'Start Sync Loop', async () => {
        await eventually(async () => (/syncing/.test(await s.workbench.statusBarText('kubeloop.status')) ? true : undefined), {
          description: 'the status bar to say syncing',
          timeoutMs: 60_000,
        });
      }),
    );
    await s.step('4 timeline', () =>
      doStep('Open the timeline', 'Show Timeline', async () => void (await s.workbench.webviewFrame('#timeline-root[data-ready="true"]'))),
    );
    await s.step('5 probe-me restarted', () =>
      doStep('Watch a liveness probe fail', 'Open Terminal on Demo Cluster', async () => {
        await page()
          .locator('.part.panel .terminal-tabs-entry, .part.panel .single-terminal-tab, .part.panel .terminal-wrapper')
          .first()
          .waitFor({ state: 'visible' });
        // what the user types into that terminal (kubectl run probe-me ...), sent by the test as another API client
        const res = await fetch(`${demoServer(s)}/api/v1/namespaces/${PROBE_ME.namespace}/pods`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(PROBE_ME_POD),
        });
        assert.equal(res.status, 201, await res.text());
        await s.workbench.openViewContainer('KubeLoop');
        await s.workbench.expandTreeRow('default');
        await s.workbench.expandTreeRow('core');
        await s.workbench.expandTreeRow('Pod');
        await eventually(
          async () => {
            const d = (await s.workbench.treeRowText(PROBE_ME.name)).description;
            return /restart/.test(d) ? d : undefined;
          },
          { description: 'probe-me restarted by its liveness probe in the tree', timeoutMs: 90_000 },
        );
      }),
    );
    assert.equal(await page().locator('.gettingStartedContainer button.getting-started-step[aria-checked="true"]').count(), 5, 'every step is done');
  });

  it('tree rows carry their status in words for screen readers', async () => {
    await s.workbench.openViewContainer('KubeLoop');
    const aria = async (label: string) => (await s.workbench.treeRow(label).first().getAttribute('aria-label')) ?? '';
    assert.match(await aria('kubeloop-demo'), /^Context kubeloop-demo, http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await aria('default'), 'Namespace default');
    assert.match(await aria('Pod'), /^Pod, \d+ objects?$/);
    assert.match(await aria(PROBE_ME.name), /^Pod probe-me, (needs attention|failing|healthy): \w+, Ready \d\/1, \d+ restarts?(, liveness failing)?$/);
    const labels = await page()
      .locator('.part.sidebar .monaco-list-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
    const pods = labels.filter((l) => l.startsWith('Pod ') && l !== 'Pod probe-me');
    assert.ok(pods.length > 0, labels.join(' | '));
    for (const l of pods) assert.match(l, /^Pod \S+, (healthy|needs attention|failing|completed): /, l);
  });

  it('the tree and the timeline in the Default High Contrast theme (screenshot)', async () => {
    // a README picture in the default theme first: the tree beside the timeline
    await page().keyboard.press('Escape');
    await s.workbench.runCommand('View: Hide Panel');
    await page().locator('.part.panel').waitFor({ state: 'hidden' });
    await page().locator('.part.editor .tab', { hasText: 'KubeLoop Timeline' }).first().click();
    const frame: Frame = await s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
    await frame.locator('#timeline-canvas').waitFor({ state: 'visible' });
    await page().screenshot({ path: join(e2eArtifactsDir, 'readme-tree-and-timeline.png'), clip: { x: 0, y: 0, width: 1400, height: 620 } });

    await s.step('high contrast theme', async () => {
      // Preferences: Color Theme, by its default shortcut (the palette ranks "Browse Color Themes" first)
      await page().locator('.part.sidebar .composite.title').first().click();
      await page().keyboard.press('Control+K');
      await page().keyboard.press('Control+T');
      const input = page().locator('.quick-input-widget .quick-input-box input');
      await input.fill('Default High Contrast');
      // "Default High Contrast", not "Default High Contrast Light" (rows read "<group> <theme>")
      await page()
        .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: /Default High Contrast\s*$/ })
        .first()
        .click();
      await page().locator('.monaco-workbench.hc-black').waitFor();
    });
    const hcFrame = await s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
    await eventually(async () => ((await hcFrame.locator('body').getAttribute('class'))?.includes('vscode-high-contrast') ? true : undefined), {
      description: 'the webview to take the high-contrast theme',
      timeoutMs: UI_TIMEOUT_MS,
    });
    await hcFrame.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const path = join(e2eArtifactsDir, 'walkthrough-high-contrast.png');
    await page().screenshot({ path });

    // the tree's rows are drawn, with their labels, in the visible side bar
    const rows = page().locator('.part.sidebar .monaco-list-row');
    assert.ok((await rows.count()) > 3);
    const box = await s.workbench.treeRow('kubeloop-demo').first().boundingBox();
    assert.ok(box && box.width > 50 && box.height > 10 && box.y < 900, `the context row is on screen: ${JSON.stringify(box)}`);
    // the timeline canvas has drawn marks: pixels that are neither the background nor transparent
    const drawn = await hcFrame.evaluate(() => {
      const c = document.querySelector<HTMLCanvasElement>('#timeline-canvas')!;
      const { data, width, height } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
      const bg = [
        data[(width * (height - 2) + width - 2) * 4],
        data[(width * (height - 2) + width - 2) * 4 + 1],
        data[(width * (height - 2) + width - 2) * 4 + 2],
      ];
      let marks = 0;
      for (let i = 0; i < data.length; i += 4)
        if (data[i + 3]! > 0 && Math.abs(data[i]! - bg[0]!) + Math.abs(data[i + 1]! - bg[1]!) + Math.abs(data[i + 2]! - bg[2]!) > 60) marks++;
      return { marks, bg, size: [width, height] };
    });
    assert.deepEqual(drawn.bg, [0, 0, 0], 'the high-contrast editor background is black');
    assert.ok(drawn.marks > 500, `drawn mark pixels: ${JSON.stringify(drawn)}`);
    assert.match(await hcFrame.locator('#timeline-status').innerText(), /^[\d,]+ of [\d,]+ events$/);
  });

  it('timeline elements have accessible labels: the chart, every lane, and each event in the list with its outcome in words', async () => {
    const frame = await s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
    assert.match((await frame.locator('#timeline-canvas').getAttribute('aria-label')) ?? '', /^Timeline chart\. Arrow keys move the selection/);
    const lanes = await frame.locator('#timeline-lanes li').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    assert.ok(lanes.includes('Lane worker 0: loader tasks'), lanes.join(' | '));
    assert.ok(lanes.includes('Lane probe: sync loop probe iterations'), lanes.join(' | '));
    for (const l of lanes) assert.match(l, /^Lane \S+( \d+)?: (loader tasks|sync loop \S+ iterations|demo cluster \S+ controller reconciles)$/);
    for (const b of await frame.locator('#timeline-root button').all())
      assert.ok((await b.getAttribute('aria-label')) || (await b.innerText()).trim(), 'every button has a name');
    // The demo's controllers reconcile all the while: their lanes hidden, the list holds the loader's tasks.
    const controllers = frame.locator('#timeline-sources button[data-source="controllers"]');
    await controllers.click();
    await eventually(async () => ((await controllers.getAttribute('aria-pressed')) === 'false' ? true : undefined), {
      description: 'the controller lanes hidden',
      timeoutMs: UI_TIMEOUT_MS,
    });
    await frame.locator('button', { hasText: 'List' }).click();
    const items = frame.locator('#timeline-events li[role="option"]');
    await items.first().waitFor({ state: 'visible' });
    const texts = await items.allInnerTexts();
    assert.ok(
      texts.some((t) => /worker \d+\s+list \S+.*: ok, \d+ items/.test(t)),
      `a loader task says its outcome: ${texts.slice(0, 5).join(' | ')}`,
    );
    // loader tasks hidden, the list holds the sync loop's iterations
    await frame.locator('#timeline-sources button[data-source="loader"]').click();
    const iterations = await eventually(
      async () => {
        const t = await items.allInnerTexts();
        return t.length > 0 && t.every((x) => !/ worker \d+ /.test(x)) ? t : undefined;
      },
      { description: 'the list to show sync-loop iterations', timeoutMs: UI_TIMEOUT_MS },
    );
    assert.ok(
      iterations.some((t) => /(config|pleg|sync|probe|housekeeping|informer)\s+\S+.* -> \S+ (ok|error|skipped)/.test(t)),
      `an iteration says its handler and outcome: ${iterations.slice(0, 5).join(' | ')}`,
    );
    await s.workbench.screenshot('timeline-list');
  });
});
