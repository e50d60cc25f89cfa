// The timeline webview in a real browser.
//
// 1. The webview bundle alone in Chromium, fed exactly as the host feeds it (init + chunks + appends
//    of the shared protocol) with 100,000 events: frame times measured in a real canvas, and every
//    interaction a user has (zoom at the pointer, drag, click, keys, filters, list, follow, theme,
//    restore). No VS Code here: `acquireVsCodeApi` is a recorder, as the webview's only dependency.
// 2. The packaged extension in code-server: the timeline's own state survives hide/show, and (once
//    the lead has wired the demo cluster and the loader into extension.ts) a user starts the demo
//    cluster, loads it, opens the timeline, finds the worker lanes, clicks a task and reads it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import type { HostToWebviewMessage, TimelineItem } from '../../src/shared/protocol';
import { paletteTitle } from '../../src/app/commandIds';
import { LOADING_ICON } from '../../src/app/statusText';
import { makeNonce, timelineHtml } from '../../src/app/timeline/html';
import { syntheticTimeline } from '../unit/timeline-fixtures';
import { launchBrowser } from './support/browser';
import { e2eArtifactsDir, repoRoot } from './support/paths';
import { startVsCode, type Session } from './support/session';
import { UI_TIMEOUT_MS } from './support/workbench';
import { eventually } from '../support/eventually';

const XSS = '<img src=x onerror="window.__xss=1">';
const TOTAL = 100_000;
const CHUNK = 5000;
/** The sync loop's lanes, in the order the timeline lists them after the loader's and controllers'. */
const SYNC_LOOP_LANES = ['config', 'pleg', 'sync', 'probe', 'housekeeping', 'informer', 'podworker', 'freshness'];

/** Some of the variables VS Code's Dark Modern theme gives a webview's document (served as a stylesheet here). */
const DARK_THEME_VARS: Record<string, string> = {
  '--vscode-font-family': 'system-ui, sans-serif',
  '--vscode-font-size': '13px',
  '--vscode-foreground': '#cccccc',
  '--vscode-editor-background': '#1f1f1f',
  '--vscode-editor-foreground': '#cccccc',
  '--vscode-descriptionForeground': '#9d9d9d',
  '--vscode-editor-font-family': 'monospace',
  '--vscode-editor-font-size': '12px',
  '--vscode-panel-border': '#2b2b2b',
  '--vscode-button-background': '#0078d4',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-hoverBackground': '#026ec1',
  '--vscode-button-secondaryBackground': '#313131',
  '--vscode-button-secondaryForeground': '#cccccc',
  '--vscode-button-secondaryHoverBackground': '#3c3c3c',
  '--vscode-input-background': '#313131',
  '--vscode-input-foreground': '#cccccc',
  '--vscode-input-border': '#3c3c3c',
  '--vscode-focusBorder': '#0078d4',
  '--vscode-list-activeSelectionBackground': '#04395e',
  '--vscode-list-activeSelectionForeground': '#ffffff',
  '--vscode-list-hoverBackground': '#2a2d2e',
  '--vscode-sideBar-background': '#181818',
  '--vscode-editorHoverWidget-background': '#202020',
  '--vscode-editorHoverWidget-border': '#454545',
  '--vscode-charts-blue': '#3794ff',
  '--vscode-charts-green': '#89d185',
  '--vscode-charts-red': '#f14c4c',
  '--vscode-charts-orange': '#d18616',
  '--vscode-charts-yellow': '#cca700',
  '--vscode-charts-purple': '#b180d7',
};

/** Console errors and uncaught exceptions per page (a CSP violation is a console error). */
const pageErrors = new WeakMap<Page, string[]>();

/**
 * The document the host makes (timelineHtml: its CSP, nonce, script and stylesheet), served from a
 * stand-in origin, in a page whose vscode API records what the webview posts and saves.
 */
async function openBareWebview(browser: Browser, state: unknown, theme = 'vscode-dark'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 820 }, deviceScaleFactor: 2 });
  page.setDefaultTimeout(30_000);
  const origin = 'https://webview.test';
  const html = timelineHtml({ cspSource: origin, nonce: makeNonce(), scriptUri: `${origin}/timeline.js`, styleUri: `${origin}/timeline.css` })
    .replace('<body>', `<body class="${theme}">`)
    .replace('</head>', `  <link rel="stylesheet" href="${origin}/theme.css">\n</head>`);
  const files: Record<string, [string, string]> = {
    '/': ['text/html', html],
    '/timeline.js': ['text/javascript', readFileSync(join(repoRoot, 'dist', 'webview', 'timeline.js'), 'utf8')],
    '/timeline.css': ['text/css', readFileSync(join(repoRoot, 'media', 'timeline', 'timeline.css'), 'utf8')],
    '/theme.css': [
      'text/css',
      `:root {\n${Object.entries(DARK_THEME_VARS)
        .map(([k, v]) => `  ${k}: ${v};`)
        .join('\n')}\n}\n`,
    ],
  };
  await page.route(`${origin}/**`, (route) => {
    const f = files[new URL(route.request().url()).pathname];
    return f ? route.fulfill({ contentType: f[0], body: f[1] }) : route.fulfill({ status: 404 });
  });
  await page.addInitScript(`
    window.__sent = [];
    window.__state = ${JSON.stringify(state ?? null)} ?? undefined;
    window.acquireVsCodeApi = () => ({
      postMessage: (m) => window.__sent.push(m),
      getState: () => window.__state,
      setState: (s) => { window.__state = s; },
    });`);
  const errors: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('pageerror', (e) => errors.push(String(e)));
  pageErrors.set(page, errors);
  await page.goto(`${origin}/`);
  return page;
}

/** As the host's postMessage: the page gets a structured copy. (A JSON string crosses CDP fast.) */
async function post(page: Page, msg: HostToWebviewMessage): Promise<void> {
  await page.evaluate((json) => window.postMessage(JSON.parse(json), '*'), JSON.stringify(msg));
}

/** Sends a history the way TimelineFeed does: init with the first chunk, then chunks. */
async function feed(page: Page, items: TimelineItem[]): Promise<number> {
  const t0 = Date.now();
  await post(page, { type: 'init', events: items.slice(0, CHUNK), theme: 'dark', dropped: 0, total: items.length });
  for (let i = CHUNK; i < items.length; i += CHUNK) await post(page, { type: 'chunk', events: items.slice(i, i + CHUNK), done: i + CHUNK >= items.length });
  await page.locator('#timeline-root[data-ready="true"]').waitFor();
  return Date.now() - t0;
}

/** The root's data-view: the time range of the last drawn frame. */
async function drawnView(target: Page | Frame): Promise<string> {
  return (await target.locator('#timeline-root').getAttribute('data-view')) ?? '';
}

/**
 * Waits until a frame with a view other than `before` is drawn: the input that moved the view has
 * been taken (a read before that would see the old view, stable, and take it for the result).
 */
async function viewMovedFrom(target: Page | Frame, before: string): Promise<void> {
  await eventually(async () => (await drawnView(target)) !== before, { description: `a view other than ${before} drawn`, timeoutMs: UI_TIMEOUT_MS });
}

/** Waits until the status line says `n` events are held (the frame that says so also drew the view). */
async function holds(page: Page, n: number): Promise<void> {
  await eventually(async () => (await page.locator('#timeline-status').innerText()).startsWith(`${n} of`), {
    description: `the webview to hold ${n} events`,
    timeoutMs: UI_TIMEOUT_MS,
  });
}

async function view(page: Page): Promise<[number, number]> {
  const v = await page.locator('#timeline-root').getAttribute('data-view');
  const [a, b] = v!.split(',').map(Number);
  return [a!, b!];
}

/** How many times the webview has written its saved state (the root's data-saves). */
async function saves(target: Page | Frame): Promise<number> {
  return Number((await target.locator('#timeline-root').getAttribute('data-saves')) ?? 0);
}

/**
 * Waits until the webview has written its saved state since `after` saves and has no throttled
 * save still due (data-save-pending), so what it shows now is what a restore will read.
 */
async function stateSaved(target: Page | Frame, after = 0): Promise<void> {
  await eventually(
    async () => {
      const pending = await target.locator('#timeline-root').getAttribute('data-save-pending');
      return pending !== 'true' && (await saves(target)) > after ? true : undefined;
    },
    { description: 'the view state to be saved', timeoutMs: UI_TIMEOUT_MS },
  );
}

/**
 * Waits until the view stops changing: Chromium may deliver one wheel gesture as several events,
 * after the call that sent it has returned. A view no event has reached yet is stable too: after a
 * wheel, call viewMovedFrom first.
 */
async function settle(page: Page | Frame): Promise<void> {
  let last = '';
  let same = 0;
  await eventually(
    async () => {
      await frames(page);
      const v = (await page.locator('#timeline-root').getAttribute('data-view')) ?? '';
      same = v === last ? same + 1 : 0;
      last = v;
      return same >= 3 ? true : undefined;
    },
    { description: 'the view to settle', timeoutMs: UI_TIMEOUT_MS },
  );
}

/** Waits two animation frames, so a scheduled redraw has happened. */
async function frames(page: Page | Frame): Promise<void> {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(e2eArtifactsDir, `timeline-webview-${name}.png`) });
}

describe('the timeline webview in Chromium with 100,000 events', () => {
  let browser: Browser;
  let page: Page;
  const items = syntheticTimeline(TOTAL, { seed: 21, hostileName: XSS });
  const GUTTER = 110;

  before(async () => {
    browser = await launchBrowser();
    page = await openBareWebview(browser, undefined);
  });
  after(async () => {
    await browser?.close();
  });

  it("runs under the host's CSP without a violation or an error", async () => {
    // checked last too (see the final test); here: the script ran and said `ready`
    await eventually(async () => ((await page.evaluate(() => (window as unknown as { __sent: unknown[] }).__sent.length)) > 0 ? true : undefined), {
      description: 'the webview to say ready',
      timeoutMs: UI_TIMEOUT_MS,
    });
    assert.deepEqual(pageErrors.get(page), []);
  });

  it('takes the streamed history and shows worker and source lanes', async (t) => {
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __sent: unknown[] }).__sent), [{ type: 'ready' }]);
    const ms = await feed(page, items);
    const inPage = await page.locator('#timeline-root').getAttribute('data-ingest-ms');
    t.diagnostic(`100k events streamed in ${TOTAL / CHUNK} messages: ${ms} ms end to end through CDP, ${inPage} ms of it in the webview's message handler`);
    await frames(page);
    assert.equal(await page.locator('#timeline-status').innerText(), `${TOTAL} of ${TOTAL} events`);
    const lanes = await page.locator('#timeline-lanes li').allInnerTexts();
    assert.deepEqual(lanes, ['worker 0', 'worker 1', 'worker 2', 'worker 3', ...SYNC_LOOP_LANES]);
    await shot(page, '01-fit-all');
  });

  it('draws a frame of 100k events (layout + real canvas) for every zoom step, and reports its time', async (t) => {
    const box = (await page.locator('#timeline-canvas').boundingBox())!;
    const measure = (deltaY: number) =>
      page.evaluate(
        async ([dy, x, y]) => {
          const canvas = document.querySelector('#timeline-canvas')!;
          const root = document.querySelector<HTMLElement>('#timeline-root')!;
          const out: number[] = [];
          for (let i = 0; i < 40; i++) {
            canvas.dispatchEvent(new WheelEvent('wheel', { deltaY: i % 2 ? dy : -dy, clientX: x, clientY: y, bubbles: true, cancelable: true }));
            await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
            out.push(Number(root.dataset.frameMs));
          }
          return out.sort((a, b) => a - b);
        },
        [deltaY, box.x + 700, box.y + 100] as const,
      );
    const fit = await measure(1);
    const p = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;
    t.diagnostic(
      `fit-all frame with ${TOTAL} events: min ${fit[0]!.toFixed(2)} ms, median ${p(fit, 0.5).toFixed(2)} ms, p90 ${p(fit, 0.9).toFixed(2)} ms, max ${fit[fit.length - 1]!.toFixed(2)} ms (data-frame-ms: layout + draw)`,
    );
    // Frame times are reported, not asserted: this machine is shared and noisy, so speed is judged by
    // `npm run bench -- timeline`. What is asserted is that every zoom step drew a frame.
    assert.equal(fit.length, 40, 'one frame per wheel step');
    assert.ok(
      fit.every((ms) => Number.isFinite(ms) && ms >= 0),
      `every wheel step drew a frame: ${fit.join(', ')}`,
    );
  });

  it('zooms at the pointer: the time under the pointer stays put', async () => {
    await page.locator('button', { hasText: 'Fit' }).click();
    await frames(page);
    const box = (await page.locator('#timeline-canvas').boundingBox())!;
    const before = await view(page);
    const px = 500;
    const plotW = box.width - GUTTER;
    const tAt = (v: [number, number]) => v[0] + ((px - GUTTER) * (v[1] - v[0])) / plotW;
    const drawn = await drawnView(page);
    await page.mouse.move(box.x + px, box.y + 120);
    await page.mouse.wheel(0, -400);
    await viewMovedFrom(page, drawn);
    await settle(page);
    const after = await view(page);
    assert.ok(after[1] - after[0] < (before[1] - before[0]) * 0.9, `zoomed in: ${before} -> ${after}`);
    assert.ok(Math.abs(tAt(after) - tAt(before)) < (after[1] - after[0]) / plotW, `anchor moved: ${tAt(before)} -> ${tAt(after)}`);
    await shot(page, '02-zoomed-at-pointer');
  });

  it('pans by dragging and by shift+wheel', async () => {
    const box = (await page.locator('#timeline-canvas').boundingBox())!;
    const v0 = await view(page);
    await page.mouse.move(box.x + 800, box.y + 150);
    await page.mouse.down();
    await page.mouse.move(box.x + 600, box.y + 150, { steps: 5 });
    await page.mouse.up();
    await frames(page);
    const v1 = await view(page);
    const msPerPx = (v0[1] - v0[0]) / (box.width - GUTTER);
    assert.ok(Math.abs(v1[0] - v0[0] - 200 * msPerPx) < 2 * msPerPx, 'dragging left by 200 px shows 200 px later');
    const drawn = await drawnView(page);
    await page.keyboard.down('Shift');
    await page.mouse.wheel(0, 100);
    await page.keyboard.up('Shift');
    await viewMovedFrom(page, drawn);
    await settle(page);
    const v2 = await view(page);
    assert.ok(v2[0] > v1[0], 'v2[0] > v1[0]');
  });

  it('selects a task bar by click and shows all its fields; tells the host', async () => {
    await page.locator('button', { hasText: 'Fit' }).click();
    await frames(page);
    const lane = (await page.locator('#timeline-lanes li[data-lane="worker:1"]').boundingBox())!;
    const box = (await page.locator('#timeline-canvas').boundingBox())!;
    await page.mouse.click(box.x + 600, lane.y + lane.height / 2);
    await frames(page);
    assert.match(await page.locator('#timeline-details h2').innerText(), /^list /);
    const dts = await page.locator('#timeline-details dt').allInnerTexts();
    for (const k of ['Loader task', 'Resource', 'Worker', 'Started', 'Finished', 'Duration', 'Outcome', 'Items', 'Pages'])
      assert.ok(dts.includes(k), `details lack ${k}: ${dts}`);
    const worker = await page.locator('#timeline-details dt:text-is("Worker") + dd').innerText();
    assert.equal(worker, '1');
    const sent = await page.evaluate(() => (window as unknown as { __sent: { type: string }[] }).__sent.filter((m) => m.type === 'select'));
    assert.equal(sent.length, 1);
    await shot(page, '03-task-selected');
  });

  it('moves the selection with the arrow keys and announces it', async () => {
    await page.locator('#timeline-canvas').focus();
    const first = await page.locator('#timeline-details dt:text-is("Loader task") + dd').innerText();
    await page.keyboard.press('ArrowRight');
    await frames(page);
    const second = await page.locator('#timeline-details dt:text-is("Loader task") + dd').innerText();
    assert.notEqual(second, first);
    assert.match(await page.locator('#timeline-announce').innerText(), /worker 1\s+list /);
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown'); // worker 2, 3, config, pleg
    await frames(page);
    assert.match(await page.locator('#timeline-details h2').innerText(), /^pleg · /);
    await page.keyboard.press('Enter');
    await shot(page, '04-keyboard-to-pleg');
    await page.keyboard.press('ArrowUp'); // config
    for (let i = 0; i < 12; i++) await page.keyboard.press('+'); // zoom in around the selection
    await settle(page);
    await shot(page, '05-zoomed-in-on-selection');
    await page.keyboard.press('0');
  });

  it('filters by source, kind and name', async () => {
    await page.locator('#timeline-sources button[data-source="loader"]').click();
    await frames(page);
    assert.deepEqual(await page.locator('#timeline-lanes li').allInnerTexts(), SYNC_LOOP_LANES);
    await page.locator('#timeline-sources button[data-source="loader"]').click();
    await page.locator('#timeline-kind').selectOption('deployments.apps');
    await frames(page);
    const [shown] = (await page.locator('#timeline-status').innerText()).split(' of ').map((s) => parseInt(s, 10));
    assert.ok(shown! > 0 && shown! < TOTAL / 5, `kind filter shows ${shown}`);
    await page.locator('#timeline-kind').selectOption('');
    await page.locator('#timeline-filter').fill('pod-1');
    await frames(page);
    const [byName] = (await page.locator('#timeline-status').innerText()).split(' of ').map((s) => parseInt(s, 10));
    assert.ok(byName! > 0 && byName! < TOTAL / 3, `name filter shows ${byName}`);
    await shot(page, '06-filtered');
  });

  it('offers the events in view as an accessible list; cluster names stay text', async () => {
    await page.locator('#timeline-filter').fill('');
    await page.locator('button', { hasText: 'List' }).click();
    await page.locator('#timeline-filter').fill('img');
    const texts = await eventually(
      async () => {
        const all = await page.locator('#timeline-events li[role="option"]').allInnerTexts();
        return all.length > 0 && all.every((x) => x.includes(XSS)) ? all : undefined;
      },
      { description: 'the list to show the filtered events', timeoutMs: UI_TIMEOUT_MS },
    );
    assert.ok(texts.length > 0, 'the hostile name is shown as its characters');
    assert.equal(await page.locator('img').count(), 0, 'no element was made from cluster data');
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    await page.locator('#timeline-events li[role="option"]').first().click();
    await frames(page);
    assert.ok((await page.locator('#timeline-details').innerText()).includes(XSS), "(await page.locator('#timeline-details').innerText()).includes(XSS)");
    await shot(page, '07-list-and-hostile-name');
    await page.locator('#timeline-filter').fill('');
    await page.locator('button', { hasText: 'List' }).click();
  });

  it('stays anchored while events arrive, and follows them when Follow is on', async () => {
    const last = items[items.length - 1]!;
    const later = (id: number, dt: number): TimelineItem => ({
      id,
      event: {
        ...(last.event as TimelineItem['event']),
        t: (last.event.t as number) + dt,
        kind: 'iteration',
        source: 'sync',
        op: 'tick',
        key: 'default/late',
        handler: 'HandlePodSyncs',
        durationMs: 0.1,
        outcome: 'ok',
      } as TimelineItem['event'],
    });
    const box = (await page.locator('#timeline-canvas').boundingBox())!;
    const follow = page.locator('button', { hasText: 'Follow' });
    // The view is still fitted (the 0 key two tests back): it takes in every event, live. Chromium may
    // hand the wheel to the page after mouse.wheel() has returned (a wheel in a running scroll
    // sequence is sent without waiting for the page), and settle() alone cannot tell "not taken yet"
    // from "taken": both are a view that does not change. So wait for the wheel's own frame first.
    const fitted = await drawnView(page);
    await page.mouse.move(box.x + 600, box.y + 120);
    await page.mouse.wheel(0, -300); // the user moved the view: it is theirs now
    await viewMovedFrom(page, fitted);
    await settle(page);
    const v0 = await view(page);
    await post(page, { type: 'append', events: [later(TOTAL, 5000)] });
    // The webview takes a message when it gets to it: the frame that shows the event held is the one
    // that must still show v0 (reading after a fixed two frames could read before the append).
    await holds(page, TOTAL + 1);
    assert.deepEqual(await view(page), v0, 'anchored');
    await follow.click();
    await follow.and(page.locator('[aria-pressed="true"]')).waitFor();
    await post(page, { type: 'append', events: [later(TOTAL + 1, 60_000)] });
    await holds(page, TOTAL + 2);
    const v1 = await view(page);
    assert.ok(v1[1] > (last.event.t as number) + 60_000, `follows the newest event: ${v0} -> ${v1}, last t ${last.event.t}`);
    assert.ok(Math.abs(v1[1] - v1[0] - (v0[1] - v0[0])) < 1e-6 * (v0[1] - v0[0]) + 1e-3, 'keeps the zoom');
    await follow.click();
    await follow.and(page.locator('[aria-pressed="false"]')).waitFor();
    assert.equal(await page.locator('#timeline-status').innerText(), `${TOTAL + 2} of ${TOTAL + 2} events`);
  });

  it('follows the VS Code theme: canvas colours come from the --vscode-* variables', async () => {
    const pixel = () =>
      page.evaluate(() => {
        const c = document.querySelector<HTMLCanvasElement>('#timeline-canvas')!;
        const d = c.getContext('2d')!.getImageData(c.width - 4, 4, 1, 1).data; // the axis row's background
        return [d[0], d[1], d[2]];
      });
    assert.deepEqual(await pixel(), [0x1f, 0x1f, 0x1f], "the dark theme's editor background");
    await page.evaluate(() => {
      document.documentElement.style.setProperty('--vscode-editor-background', '#fafaf0');
      document.body.className = 'vscode-light';
    });
    await frames(page);
    assert.deepEqual(await pixel(), [0xfa, 0xfa, 0xf0]);
    await shot(page, '08-light-theme');
  });

  it('restores zoom, pan, filters and selection from its saved state', async () => {
    await page.locator('#timeline-filter').fill('team-a');
    await page.locator('#timeline-sources button[data-source="probe"]').click();
    const lane = (await page.locator('#timeline-lanes li[data-lane="worker:2"]').boundingBox())!;
    const box = (await page.locator('#timeline-canvas').boundingBox())!;
    await page.locator('button', { hasText: 'Fit' }).click();
    await frames(page);
    for (let x = 300; x < 1300; x += 25) {
      await page.mouse.click(box.x + x, lane.y + lane.height / 2);
      if ((await page.locator('#timeline-details dt').count()) > 0) break;
    }
    await page.mouse.move(box.x + 600, box.y + 300);
    await page.mouse.wheel(0, -200);
    await settle(page);
    await stateSaved(page);
    const saved = await page.evaluate(() => (window as unknown as { __state: unknown }).__state);
    const title = await page.locator('#timeline-details h2').innerText();
    const v = await view(page);
    assert.match(title, /^list /);

    const again = await openBareWebview(browser, saved);
    try {
      await feed(again, items);
      await frames(again);
      assert.deepEqual(await view(again), v);
      assert.equal(await again.locator('#timeline-filter').inputValue(), 'team-a');
      assert.equal(await again.locator('#timeline-sources button[data-source="probe"]').getAttribute('aria-pressed'), 'false');
      assert.equal(await again.locator('#timeline-details h2').innerText(), title);
      await again.screenshot({ path: join(e2eArtifactsDir, 'timeline-webview-09-restored.png') });
      assert.deepEqual(pageErrors.get(again), []);
    } finally {
      await again.close();
    }
  });

  it('had no error and no CSP violation through all of the above', () => {
    assert.deepEqual(pageErrors.get(page), []);
  });
});

// ---- the packaged extension in code-server ----------------------------------------------------

async function timelineFrame(s: Session): Promise<Frame> {
  return s.workbench.webviewFrame('#timeline-root[data-ready="true"]');
}

/** Runs a palette command; returns true if it is not wired yet (it says so in a notification). */
async function runOrNotReady(s: Session, name: Parameters<typeof paletteTitle>[0]): Promise<boolean> {
  await s.workbench.runCommand(paletteTitle(name));
  // commands.ts's notReadyMessage: "<palette title> is not available yet: ..."
  const toast = s.page.locator('.notifications-toasts .notification-toast', { hasText: `${paletteTitle(name)} is not available yet` });
  return toast.isVisible({ timeout: 1500 }).catch(() => false);
}

/** Runs a command by clicking its exact palette row (for VS Code's own commands, whose fuzzy neighbours may sort first). */
async function runExactCommand(s: Session, title: string): Promise<void> {
  const widget = s.page.locator('.quick-input-widget');
  await s.page.keyboard.press('Control+Shift+P');
  await widget.locator('.quick-input-box input').fill(`>${title}`);
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  await widget
    .locator('.quick-input-list .monaco-list-row', { has: s.page.locator('.label-name', { hasText: exact }) })
    .first()
    .click();
}

/** Opens the Keyboard Shortcuts editor in the timeline's group, which hides the timeline. */
async function openAnotherEditor(s: Session): Promise<void> {
  await runExactCommand(s, 'Preferences: Open Keyboard Shortcuts');
  await s.page.locator('.tab.active', { hasText: 'Keyboard Shortcuts' }).waitFor();
}

/** Every source shown, no kind or name filter, the whole history in view. */
/** Hides one source's lanes (its button pressed off) and waits for the webview to say so. */
async function hideSource(frame: Frame, source: string): Promise<void> {
  const button = frame.locator(`#timeline-sources button[data-source="${source}"]`);
  if ((await button.getAttribute('aria-pressed')) === 'false') return;
  await button.click();
  await eventually(async () => ((await button.getAttribute('aria-pressed')) === 'false' ? true : undefined), {
    description: `the ${source} lanes hidden`,
    timeoutMs: UI_TIMEOUT_MS,
  });
}

async function clearFilters(frame: Frame): Promise<void> {
  await frame.locator('#timeline-filter').fill('');
  await frame.locator('#timeline-kind').selectOption('');
  // One at a time: each click changes which buttons the selector matches.
  const hidden = frame.locator('#timeline-sources button[aria-pressed="false"]');
  for (let n = await hidden.count(); n > 0; n--) {
    await hidden.first().click();
    await eventually(async () => ((await hidden.count()) < n ? true : undefined), { description: 'the source shown again', timeoutMs: UI_TIMEOUT_MS });
  }
  await frame.locator('button', { hasText: 'Fit' }).click();
}

/** The canvas x of time `t` (ms) in the frame's current view. */
async function xOfTime(frame: Frame, t: number): Promise<number> {
  const [a, b] = (await frame.locator('#timeline-root').getAttribute('data-view'))!.split(',').map(Number);
  const canvas = (await frame.locator('#timeline-canvas').boundingBox())!;
  const gutter = 110; // view.ts GUTTER
  return canvas.x + gutter + ((t - a!) * (canvas.width - gutter)) / (b! - a!);
}

describe('controller lanes in Chromium', () => {
  let browser: Browser;
  let page: Page;
  before(async () => {
    browser = await launchBrowser();
    page = await openBareWebview(browser, undefined);
  });
  after(async () => {
    await browser?.close();
  });

  it('a Deployment change flowing down: one lane per controller before the sync loop, details as text', async () => {
    const rsKey = `replicasets.apps:story/shop-${XSS}`;
    const events: TimelineItem['event'][] = [
      { kind: 'task', loadId: 'l', taskId: 1, worker: 0, phase: 'start', t: 0, gvr: { group: '', version: 'v1', resource: 'pods' } },
      {
        kind: 'task',
        loadId: 'l',
        taskId: 1,
        worker: 0,
        phase: 'finish',
        t: 40,
        gvr: { group: '', version: 'v1', resource: 'pods' },
        outcome: 'ok',
        count: 3,
        durationMs: 40,
      },
      {
        kind: 'reconcile',
        t: 100,
        controller: 'deployment',
        key: 'deployments.apps:story/shop',
        handler: 'syncDeployment',
        durationMs: 0.3,
        outcome: 'ok',
        created: [rsKey],
        events: 1,
      },
      {
        kind: 'reconcile',
        t: 102,
        controller: 'replicaset',
        key: rsKey,
        handler: 'syncReplicaSet',
        durationMs: 0.5,
        outcome: 'ok',
        created: ['pods:story/shop-a1', 'pods:story/shop-b2'],
        events: 2,
      },
      { kind: 'iteration', t: 110, source: 'config', op: 'ADD', key: 'story/shop-a1', handler: 'HandlePodAdditions', durationMs: 1, outcome: 'ok' },
    ];
    await feed(
      page,
      events.map((event, id) => ({ id, event })),
    );
    await frames(page);
    const lanes = await page.locator('#timeline-lanes li').allInnerTexts();
    assert.deepEqual(lanes, ['worker 0', 'controller/deployment', 'controller/replicaset', ...SYNC_LOOP_LANES]);
    assert.equal(
      await page.locator('#timeline-lanes li[data-lane="controller:replicaset"]').getAttribute('aria-label'),
      'Lane controller/replicaset: demo cluster replicaset controller reconciles',
    );
    await page.locator('button', { hasText: 'List' }).click();
    await page.locator('#timeline-filter').fill('shop-a1');
    const texts = await eventually(
      async () => {
        const all = await page.locator('#timeline-events li[role="option"]').allInnerTexts();
        return all.length === 2 ? all : undefined;
      },
      { description: "the pod's name to find the reconcile that created it and its config ADD", timeoutMs: UI_TIMEOUT_MS },
    );
    assert.ok(
      texts.some((x) => x.includes('controller/replicaset') && x.includes('created 2')),
      texts.join(' | '),
    );
    await page.locator('#timeline-events li[role="option"]', { hasText: 'controller/replicaset' }).click();
    await frames(page);
    assert.match(await page.locator('#timeline-details h2').innerText(), /^controller\/replicaset · syncReplicaSet · /);
    assert.equal(await page.locator('#timeline-details dt:text-is("Created") + dd').innerText(), 'pods:story/shop-a1, pods:story/shop-b2');
    assert.ok((await page.locator('#timeline-details').innerText()).includes(XSS), 'the hostile name is shown as its characters');
    assert.equal(await page.locator('img').count(), 0, 'no element was made from cluster data');
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    await page.locator('#timeline-filter').fill('');
    await frames(page);
    await shot(page, '10-controller-lanes');
    await page.locator('#timeline-sources button[data-source="controllers"]').click();
    await frames(page);
    assert.deepEqual(await page.locator('#timeline-lanes li').allInnerTexts(), ['worker 0', ...SYNC_LOOP_LANES]);
    assert.deepEqual(pageErrors.get(page), []);
  });
});

describe('the timeline in a real VS Code (code-server)', () => {
  let s: Session;

  before(async () => {
    s = await startVsCode({ name: 'timeline-vscode' });
    await s.step('workbench loaded', () => s.workbench.waitReady('KubeLoop'));
  });
  after(async () => {
    await s?.close();
  });

  it('keeps its zoom and filters when hidden and shown again', async () => {
    let frame = await s.step('timeline opened', async () => {
      await s.workbench.runCommand(paletteTitle('showTimeline'));
      return timelineFrame(s);
    });
    try {
      await frame.locator('#timeline-filter').fill('web');
      await frame.locator('#timeline-sources button[data-source="pleg"]').click();
      const viewAtStart = await frame.locator('#timeline-root').getAttribute('data-view');
      await frame.locator('button', { hasText: '+' }).click();
      // data-view is written by the next animation frame, not by the click itself
      const viewBefore = await eventually(
        async () => {
          const v = await frame.locator('#timeline-root').getAttribute('data-view');
          return v !== null && v !== viewAtStart ? v : undefined;
        },
        { description: 'the zoom to be drawn', timeoutMs: UI_TIMEOUT_MS },
      );
      await stateSaved(frame);
      await s.step('hidden behind another editor', () => openAnotherEditor(s));
      frame = await s.step('shown again', async () => {
        await s.page.locator('.tab', { hasText: 'KubeLoop Timeline' }).click();
        return timelineFrame(s);
      });
      assert.equal(await frame.locator('#timeline-filter').inputValue(), 'web');
      assert.equal(await frame.locator('#timeline-sources button[data-source="pleg"]').getAttribute('aria-pressed'), 'false');
      await eventually(async () => ((await frame.locator('#timeline-root').getAttribute('data-view')) === viewBefore ? true : undefined), {
        description: 'the view to be restored',
        timeoutMs: 15_000,
      });
      const csp = s.consoleErrors.filter((m) => /Content Security Policy|Refused to/i.test(m));
      assert.deepEqual(csp, [], 'no CSP violations');
    } finally {
      await clearFilters(frame).catch(() => undefined); // the next test starts from a clean view
    }
  });

  it('demo cluster -> load -> timeline: worker lanes, a task clicked, its details read', async (t) => {
    if (await runOrNotReady(s, 'startDemoCluster')) {
      t.skip('waits on the lead: "Start Demo Cluster" is not wired into extension.ts yet');
      return;
    }
    await s.step('demo cluster started', () => s.workbench.waitForNotification('demo cluster running'));
    if (await runOrNotReady(s, 'loadClusterResources')) {
      t.skip('waits on the lead: "Load Cluster Resources" is not wired into extension.ts yet');
      return;
    }
    await s.step('resources loaded', async () => {
      await s.workbench.openViewContainer('KubeLoop');
      await eventually(async () => ((await s.workbench.treeRows()).length > 1 ? true : undefined), {
        description: 'the resource tree to fill',
        timeoutMs: 120_000,
      });
      // The whole load, not its first rows: tasks still finishing would move a following timeline
      // between finding a bar and clicking it (seen in a full run on a busy machine).
      const item = s.page.locator('.part.statusbar [id*="kubeloop.status"]').first();
      await eventually(
        async () => ((await item.locator(`.codicon-${LOADING_ICON}`).count()) === 0 && /[\d,]+ objects/.test(await item.innerText()) ? true : undefined),
        { description: 'the load to finish (its object count in the status bar, no loading icon)', timeoutMs: 120_000 },
      );
    });
    const frame = await s.step('timeline shows worker lanes', async () => {
      await s.workbench.runCommand(paletteTitle('showTimeline'));
      const f = await timelineFrame(s);
      await clearFilters(f);
      await f.locator('#timeline-lanes li[data-lane^="worker:"]').first().waitFor();
      return f;
    });
    const lanes = await frame.locator('#timeline-lanes li').allInnerTexts();
    assert.ok(lanes.includes('worker 0'), `lanes: ${lanes}`);
    for (const l of SYNC_LOOP_LANES) assert.ok(lanes.includes(l), `no ${l} lane in ${lanes}`);

    // Find a finished task in the event list, then click its bar on the canvas. The demo's
    // controllers reconcile all the while: their lanes are hidden so the list holds the loader's.
    const task = await s.step('a task found in the event list', async () => {
      await hideSource(frame, 'controllers');
      await frame.locator('button', { hasText: 'List' }).click();
      // e.g. "8.304s  worker 0  list componentstatuses: ok, 2 items, 86.3 ms" (format.ts itemLabel)
      const parse = (label: string) => {
        const m = /^([\d.]+)s\s+worker (\d+)\s+list ([^\s:]+).*, ([\d.]+) (µs|ms|s)$/.exec(label);
        assert.ok(m, `an unexpected list label: ${label}`);
        const duration = Number(m[4]) * { µs: 0.001, ms: 1, s: 1000 }[m[5] as 'µs' | 'ms' | 's'];
        // the label's start is rounded to 1 ms: aim at the middle of the bar
        return { t: Number(m[1]) * 1000 + duration / 2, duration, worker: m[2]!, resource: m[3]!, label };
      };
      // The longest finished task: a bar of a millisecond or less (a small list) is narrower than
      // the label's rounding of its start, and a click aimed at its middle can miss it.
      const found = await eventually(
        async () => {
          const all = await frame.locator('#timeline-events li[data-kind="bar"]').allInnerTexts();
          const done = all.filter((x) => /: (ok|error|cancelled),/.test(x)).map(parse);
          return done.length > 0 ? done.reduce((a, b) => (b.duration > a.duration ? b : a)) : undefined;
        },
        { description: 'a finished task in the list', timeoutMs: UI_TIMEOUT_MS },
      );
      await frame.locator('button', { hasText: 'List' }).click();
      return found;
    });
    await s.step('the task clicked on the canvas', async () => {
      // The lane's row and the task's x are read from what is drawn now, each time: closing the list
      // (the step before) lays the canvas out again on the next frame, and a lane's height with it.
      const laneY = async () => {
        const lane = (await frame.locator(`#timeline-lanes li[data-lane="worker:${task.worker}"]`).boundingBox())!;
        return lane.y + lane.height / 2;
      };
      // Zoom in at the task (the wheel keeps the time under the pointer), so its bar is wide: one
      // wheel at a time, the pointer aimed again at the task in the view each wheel drew. (A tier
      // run aimed once, before the list's closing was drawn, and clicked nothing, twice.)
      await settle(frame);
      for (let i = 0; i < 4; i++) {
        const drawn = await drawnView(frame);
        await s.page.mouse.move(await xOfTime(frame, task.t), await laneY());
        await s.page.mouse.wheel(0, -500);
        await viewMovedFrom(frame, drawn); // the wheel reached the page (see 'stays anchored' above)
        await settle(frame);
      }
      const [a, b] = (await drawnView(frame)).split(',').map(Number);
      assert.ok(task.t > a! && task.t < b!, `the task (${task.label}) at ${task.t} ms is outside the zoomed view ${a}..${b}`);
      const y = await laneY();
      await s.page.mouse.click(await xOfTime(frame, task.t), y);
      // The details are drawn by the frame after the click: wait for this task's, not any details.
      const heading = frame.locator('#timeline-details h2', { hasText: `list ${task.resource}` });
      await heading.waitFor({ timeout: 5000 }).catch(async (e: unknown) => {
        // Seen once in a tier run: no details at all after the click (the screenshot: the view
        // zoomed in on the task, nothing selected). Once more at the bar's place as drawn now, and
        // say what the details panel held, so a second miss is told apart.
        if (!(e instanceof Error) || e.name !== 'TimeoutError') throw e;
        console.log(`no details 5 s after the click; the panel read: ${JSON.stringify(await frame.locator('#timeline-details').innerText())}; clicking again`);
        await settle(frame);
        await s.page.mouse.click(await xOfTime(frame, task.t), y);
        await heading.waitFor({ timeout: 5000 });
      });
    });
    const details = await frame.locator('#timeline-details').innerText();
    for (const k of ['Loader task', 'Resource', 'Worker', 'Started', 'Duration', 'Outcome']) assert.match(details, new RegExp(k));
    assert.equal(await frame.locator('#timeline-details dt:text-is("Worker") + dd').innerText(), task.worker, details);
    assert.match(await frame.locator('#timeline-details h2').innerText(), new RegExp(`^list ${task.resource.replace(/\./g, '\\.')}`));

    if (await runOrNotReady(s, 'startSyncLoop')) return; // the loop is not wired yet: the load part stands
    await s.step('a sync-loop iteration selected', async () => {
      await frame.locator('#timeline-sources button[data-source="loader"]').click();
      // pod-worker and freshness marks are marks too, with details of their own: this step is about an iteration
      await frame.locator('#timeline-sources button[data-source="podworker"]').click();
      await frame.locator('#timeline-sources button[data-source="freshness"]').click();
      await frame.locator('button', { hasText: 'Fit' }).click(); // the view was zoomed in on the task
      await frame.locator('button', { hasText: 'List' }).click();
      await frame.locator('#timeline-events li[data-kind="mark"]').first().waitFor({ timeout: 60_000 });
      await frame.locator('#timeline-events li[data-kind="mark"]').first().click();
      await frame.locator('#timeline-details', { hasText: 'Sync loop iteration' }).waitFor(); // drawn by the next frame
    });
    const iteration = await frame.locator('#timeline-details').innerText();
    assert.match(iteration, /Sync loop iteration/);
    assert.match(iteration, /Handler/);
    await clearFilters(frame);
    await frame.locator('button', { hasText: 'List' }).click();
  });

  it('survives a window reload (panel serializer)', async (t) => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { activationEvents?: string[] };
    if (!pkg.activationEvents?.includes('onWebviewPanel:kubeloop.timeline')) {
      t.skip('waits on the lead: package.json activation event onWebviewPanel:kubeloop.timeline and registerTimelineSerializer in activate');
      return;
    }
    let frame = await timelineFrame(s);
    const savedBefore = await saves(frame);
    await frame.locator('#timeline-filter').fill('kube-system');
    await stateSaved(frame, savedBefore);
    frame = await s.step('window reloaded', async () => {
      // the way a user reloads: the workbench shuts down in order and saves the editors' state first
      await runExactCommand(s, 'Developer: Reload Window');
      await s.page.waitForEvent('load');
      await s.workbench.waitReady('KubeLoop');
      return timelineFrame(s);
    });
    assert.equal(await frame.locator('#timeline-filter').inputValue(), 'kube-system');
  });
});
