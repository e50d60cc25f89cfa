// What the extension bench reads off the workbench (code-server in Chromium, driven by Playwright):
// the moment a palette command is entered, and DOM states waited for in the page at animation-frame
// resolution (Playwright's `polling: 'raf'`), so a figure is the time until the user could see it.
import type { Page } from 'playwright-core';
import type { Workbench } from '../test/e2e/support/workbench';
import { eventually } from '../test/support/eventually';
import { LOADING_ICON } from '../src/app/statusText';

/**
 * Opens the palette, types `title`, waits until it is the focused entry; returns performance.now() at
 * Enter. `beforeEnter` runs just before it (a reading that should cover the command and not its typing).
 */
export async function enterCommand(wb: Workbench, title: string, beforeEnter?: () => void): Promise<number> {
  const page = wb.page;
  const widget = page.locator('.quick-input-widget');
  await page.keyboard.press('Control+Shift+P');
  const input = widget.locator('.quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill(`>${title}`);
  const focused = widget.locator('.quick-input-list .monaco-list-row.focused .label-name');
  await eventually(async () => ((await focused.first().innerText({ timeout: 1000 })).replace(/\u00a0/g, ' ').trim() === title ? true : undefined), {
    description: `the palette to offer "${title}"`,
    timeoutMs: 30_000,
  });
  beforeEnter?.();
  const t0 = performance.now();
  await page.keyboard.press('Enter');
  return t0;
}

/** Waits (per animation frame, in the page) until the KubeLoop tree shows a row under the context row. */
export async function waitFirstLoadedRow(page: Page, timeoutMs: number): Promise<string> {
  const h = await page.waitForFunction(
    () => {
      const row = document.querySelector('.part.sidebar .monaco-list-row[aria-level="2"] .label-name');
      return row?.textContent || undefined;
    },
    undefined,
    { polling: 'raf', timeout: timeoutMs },
  );
  return (await h.jsonValue()) as string;
}

/** Waits until the status bar item says "N objects" with no loading icon; returns N. */
export async function waitFinalCount(page: Page, timeoutMs: number): Promise<number> {
  const h = await page.waitForFunction(
    (icon) => {
      const item = document.querySelector('.part.statusbar [id*="kubeloop.status"]');
      // The loading icon of this build (statusText.ts), and the spinner builds before it showed.
      if (!item || item.querySelector(`.codicon-${icon}, .codicon-loading, .codicon-modifier-spin`)) return undefined;
      const m = /([\d,]+) objects/.exec(item.textContent ?? '');
      const n = m ? Number(m[1]!.replace(/,/g, '')) : 0;
      return n > 0 ? n : undefined;
    },
    LOADING_ICON,
    { polling: 'raf', timeout: timeoutMs },
  );
  return (await h.jsonValue()) as number;
}

/** The status bar item's text (e.g. to see "syncing"). */
export async function statusText(page: Page): Promise<string> {
  return page.locator('.part.statusbar [id*="kubeloop.status"]').first().innerText({ timeout: 30_000 });
}

/** Labels of the tree rows rendered at `level` (VS Code renders the rows on screen and a few more). */
export async function renderedLabels(page: Page, level: number): Promise<string[]> {
  return page.evaluate(
    (lvl) =>
      Array.from(document.querySelectorAll(`.part.sidebar .monaco-list-row[aria-level="${lvl}"] .label-name`)).map((e) =>
        (e.textContent ?? '').replace(/\u00a0/g, ' '),
      ),
    level,
  );
}

/** Waits until the row labelled `name` shows `token` in its description; resolves at that frame. */
export async function waitRowShows(page: Page, name: string, token: string, timeoutMs: number): Promise<void> {
  await page.waitForFunction(
    ([n, tok]) =>
      Array.from(document.querySelectorAll('.part.sidebar .monaco-list-row')).some(
        (r) => r.querySelector('.label-name')?.textContent === n && (r.querySelector('.label-description')?.textContent ?? '').includes(tok),
      ),
    [name, token] as const,
    { polling: 'raf', timeout: timeoutMs },
  );
}
