/**
 * Drives the VS Code workbench in the page the way a user does: the command palette, the activity
 * bar, the side bar's tree, the output panel and webviews. Every wait has a deadline and says what
 * it was waiting for, so a failure reads as the missing thing, not as a bare timeout.
 */
import type { Frame, Locator, Page } from 'playwright-core';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { e2eArtifactsDir } from './paths';
import { eventually } from '../../support/eventually';

/** How long a wait on the UI may take before it fails naming what it waited for. */
export const UI_TIMEOUT_MS = 30_000;

/** Monaco renders spaces as U+00A0 in its view lines. */
function plain(s: string): string {
  return s.replace(/\u00a0/g, ' ');
}

/** The text of a Monaco editor's rendered lines, top to bottom (it renders only the visible ones, in any DOM order). */
async function visibleText(lines: Locator): Promise<string> {
  const rendered = await lines.evaluateAll((els) => els.map((e) => ({ top: parseFloat((e as HTMLElement).style.top) || 0, text: e.textContent ?? '' })));
  return plain(linesTopToBottom(rendered));
}

function linesTopToBottom(lines: { top: number; text: string }[]): string {
  return lines
    .sort((a, b) => a.top - b.top)
    .map((l) => l.text)
    .join('\n');
}

export class Workbench {
  private shot = 0;

  constructor(
    readonly page: Page,
    /** Prefix of this session's screenshots, e.g. "smoke" -> .test-artifacts/e2e/smoke-01-<step>.png */
    private readonly artifactPrefix: string,
  ) {}

  /** Waits until the workbench has rendered and the extension host has registered our container. */
  async waitReady(containerTitle: string): Promise<void> {
    await this.page.locator('.monaco-workbench .part.activitybar').waitFor({ timeout: 60_000 });
    await this.activityBarItem(containerTitle).waitFor({ timeout: UI_TIMEOUT_MS });
  }

  activityBarItem(title: string): Locator {
    return this.page.locator(`.part.activitybar .action-item a.action-label[aria-label^="${title}"]`);
  }

  /**
   * Opens a view container from the activity bar and waits for the side bar to show it. A click on
   * the active container's item hides the side bar, and the extension may reveal its own view at any
   * moment (a palette load does), so a click that hid it is followed by another: the wait is for the
   * side bar showing `title`, whatever came in between.
   */
  async openViewContainer(title: string): Promise<void> {
    const shown = this.page.locator('.part.sidebar .composite.title', { hasText: title });
    await eventually(
      async () => {
        if (await shown.isVisible()) return true;
        await this.activityBarItem(title).click();
        await shown.waitFor({ timeout: 2000 }).catch(() => undefined);
        return shown.isVisible();
      },
      { description: `the side bar to show ${title}`, timeoutMs: UI_TIMEOUT_MS },
    );
  }

  /** The text of the side bar's welcome content (shown by VS Code while a tree is empty). */
  async sideBarWelcomeText(): Promise<string> {
    const welcome = this.page.locator('.part.sidebar .welcome-view-content');
    await welcome.first().waitFor({ timeout: UI_TIMEOUT_MS });
    return plain(await welcome.first().innerText());
  }

  /** The labels of the visible rows of the side bar's tree (`.monaco-list-row`). */
  async treeRows(): Promise<string[]> {
    const rows = this.page.locator('.part.sidebar .monaco-list-row');
    return (await rows.allInnerTexts()).map((t) => plain(t).replace(/\s+/g, ' ').trim());
  }

  /** The side bar tree's row whose label is exactly `label` (its description may follow). */
  treeRow(label: string): Locator {
    const exact = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    return this.page.locator('.part.sidebar .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: exact }) });
  }

  /** The label and description of a tree row, as the user reads them. */
  async treeRowText(label: string): Promise<{ label: string; description: string }> {
    const row = this.treeRow(label).first();
    await row.waitFor({ timeout: UI_TIMEOUT_MS });
    const description = (await row.locator('.label-description').count()) ? await row.locator('.label-description').first().innerText() : '';
    return { label: plain(await row.locator('.label-name').first().innerText()), description: plain(description) };
  }

  /** Expands a collapsed tree row (a single click, as a user does) and waits until it shows as expanded. */
  async expandTreeRow(label: string): Promise<void> {
    const row = this.treeRow(label).first();
    await row.waitFor({ timeout: UI_TIMEOUT_MS });
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
    await row.and(this.page.locator('[aria-expanded="true"]')).waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /** The active editor's tab label and its visible text (Monaco renders only the visible lines). */
  async activeEditor(): Promise<{ tab: string; text: string }> {
    const group = this.page.locator('.part.editor .editor-group-container.active');
    await group.locator('.tab.active .label-name').first().waitFor({ timeout: UI_TIMEOUT_MS });
    // One snapshot of the DOM: the tab and the text are read in the same task, so an editor opening
    // between two reads can never pair one editor's tab with another's text; only editors on screen
    // count (a group keeps the DOM of an editor it hid behind a webview).
    const { tab, lines } = await group.first().evaluate((g) => {
      // (no named function in here: the test runner's transform would wrap it in a helper the page lacks)
      const editor = Array.from(g.querySelectorAll('.monaco-editor')).find((e) => e.getClientRects().length > 0);
      return {
        tab: g.querySelector('.tab.active .label-name')?.textContent ?? '',
        lines: Array.from(editor?.querySelectorAll('.view-lines .view-line') ?? []).map((e) => ({
          top: parseFloat((e as HTMLElement).style.top) || 0,
          text: e.textContent ?? '',
        })),
      };
    });
    return { tab: plain(tab), text: plain(linesTopToBottom(lines)) };
  }

  /** Waits until the active editor is the tab `tab` and its visible text matches every pattern. */
  async waitForEditor(tab: string, patterns: RegExp[], timeoutMs = UI_TIMEOUT_MS): Promise<{ tab: string; text: string }> {
    return eventually(
      async () => {
        const e = await this.activeEditor();
        return e.tab === tab && patterns.every((p) => p.test(e.text)) ? e : undefined;
      },
      { description: `editor "${tab}" showing ${patterns.join(' and ')}`, timeoutMs },
    );
  }

  /** The status bar item with this id's text (e.g. `kubeloop.status`). */
  async statusBarText(idFragment: string): Promise<string> {
    return plain(await this.page.locator(`.part.statusbar [id*="${idFragment}"]`).first().innerText({ timeout: UI_TIMEOUT_MS }));
  }

  /** Runs a command from the command palette by its full title, e.g. "KubeLoop: Show Logs". */
  async runCommand(title: string): Promise<void> {
    const widget = this.page.locator('.quick-input-widget');
    await this.page.keyboard.press('Control+Shift+P');
    const input = widget.locator('.quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(`>${title}`);
    // Enter only once the focused row is exactly this command, never a fuzzy neighbour.
    const focused = widget.locator('.quick-input-list .monaco-list-row.focused .label-name');
    await eventually(
      async () => {
        const text = plain((await focused.first().innerText({ timeout: 1000 })).trim());
        return text === title ? true : undefined;
      },
      { description: `the palette to offer "${title}"`, timeoutMs: UI_TIMEOUT_MS },
    );
    await this.page.keyboard.press('Enter');
    // The palette closes; a command may open its own quick pick or input box in the same widget at once.
    await eventually(
      async () => {
        if (!(await widget.isVisible())) return true;
        const value = await input.inputValue({ timeout: 500 }).catch(() => '');
        return value.startsWith('>') ? undefined : true;
      },
      { description: `the palette to close after "${title}"`, timeoutMs: UI_TIMEOUT_MS },
    );
  }

  /** Texts of the notification toasts currently shown. */
  async notifications(): Promise<string[]> {
    return (await this.page.locator('.notifications-toasts .notification-toast .notification-list-item-message').allInnerTexts()).map(plain);
  }

  /** Waits for a notification toast containing `text` to be fully shown; returns its message. */
  async waitForNotification(text: string): Promise<string> {
    const toast = this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
    await toast.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // Toasts slide in with a CSS transition; a screenshot taken mid-way shows half a toast.
    await toast.evaluate((el) => Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)));
    return plain(await toast.locator('.notification-list-item-message').innerText());
  }

  /** The output panel's selected channel name and its visible text (Monaco renders only visible lines). */
  async outputChannel(): Promise<{ channel: string; text: string }> {
    const panel = this.page.locator('.part.panel');
    await panel.locator('.output-view, .output').first().waitFor({ timeout: UI_TIMEOUT_MS });
    const select = panel.locator('select.monaco-select-box').first();
    const channel = await select.evaluate((el) => {
      const s = el as HTMLSelectElement;
      return s.options[s.selectedIndex]?.text ?? '';
    });
    return { channel, text: await visibleText(panel.locator('.view-lines .view-line')) };
  }

  /**
   * The webview frame that contains `selector`. Webviews live in nested iframes (an outer host
   * frame and an inner `active-frame`), so this walks every frame of the page.
   */
  async webviewFrame(selector: string, timeoutMs = UI_TIMEOUT_MS): Promise<Frame> {
    return eventually(
      async () => {
        for (const frame of this.page.frames()) {
          if (frame === this.page.mainFrame()) continue;
          if (await frame.$(selector).catch(() => null)) return frame;
        }
        return undefined;
      },
      { description: `a webview frame containing ${selector}`, timeoutMs },
    );
  }

  /** Removes this prefix's screenshots of earlier runs, so the artifacts show only this run. */
  clearScreenshots(): void {
    mkdirSync(e2eArtifactsDir, { recursive: true });
    for (const f of readdirSync(e2eArtifactsDir)) {
      if (f.startsWith(`${this.artifactPrefix}-`) && f.endsWith('.png')) rmSync(join(e2eArtifactsDir, f));
    }
  }

  /** Saves a numbered screenshot of the whole page; returns its path. */
  async screenshot(step: string): Promise<string> {
    mkdirSync(e2eArtifactsDir, { recursive: true });
    this.shot++;
    const name = `${this.artifactPrefix}-${String(this.shot).padStart(2, '0')}-${step.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.png`;
    const path = join(e2eArtifactsDir, name);
    await this.page.screenshot({ path });
    return path;
  }
}
