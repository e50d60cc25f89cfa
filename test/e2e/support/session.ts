/**
 * One VS Code session for a test file: package the extension, install it into a fresh code-server
 * profile, start code-server on a free port with a fresh workspace folder, open it in Chromium.
 *
 * Guarantee: `close()` always ends the browser and code-server and removes the temp profile, even
 * when a step failed; `startVsCode` cleans up whatever it had started if it fails half way.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from './browser';
import { ensureCodeServer, installExtension, startCodeServer, type CodeServer } from './codeServer';
import { packageExtension } from './package';
import { Workbench } from './workbench';

export interface SessionOptions {
  /** Prefix of this session's screenshots and temp folder. */
  name: string;
  /** Extra user settings (e.g. kubeloop.* values) merged over the quiet defaults below. */
  settings?: Record<string, unknown>;
  /** Files to create in the workspace folder (path relative to it -> content). */
  files?: Record<string, string>;
  /** Extra environment of code-server and its extension host. */
  env?: Record<string, string>;
  /** Other .vsix files to install next to KubeLoop (e.g. a stand-in for another extension). */
  extensions?: string[];
  /** User keybindings (User/keybindings.json), e.g. to run a command with arguments. */
  keybindings?: { key: string; command: string; args?: unknown; when?: string }[];
}

export interface Session {
  page: Page;
  workbench: Workbench;
  codeServer: CodeServer;
  /** This session's code-server user data folder (globalStorage lives under User/globalStorage). */
  userDataDir: string;
  /** Browser console messages of type error (CSP violations show up here). */
  consoleErrors: string[];
  /** Runs one user-visible step and saves a screenshot after it, also when it fails. */
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A quiet workbench: no welcome page, tips, telemetry or update checks competing for the screen. */
const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'security.workspace.trust.enabled': false,
};

export async function startVsCode(opts: SessionOptions): Promise<Session> {
  const base = mkdtempSync(join(tmpdir(), `kubeloop-e2e-${opts.name}-`));
  const dirs = { userDataDir: join(base, 'user-data'), extensionsDir: join(base, 'extensions'), configFile: join(base, 'code-server.yaml') };
  const folder = join(base, 'workspace');
  let codeServer: CodeServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    const errors: unknown[] = [];
    await browser?.close().catch((e) => errors.push(e));
    await codeServer?.stop().catch((e) => errors.push(e));
    if (!process.env.KUBELOOP_E2E_KEEP) rmSync(base, { recursive: true, force: true });
    else console.log(`KUBELOOP_E2E_KEEP: the session (user data, logs, workspace) is kept in ${base}`);
    if (errors.length) throw new AggregateError(errors, 'tearing down the VS Code session failed');
  };
  try {
    mkdirSync(join(dirs.userDataDir, 'User'), { recursive: true });
    writeFileSync(join(dirs.userDataDir, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...opts.settings }, null, 2));
    if (opts.keybindings) writeFileSync(join(dirs.userDataDir, 'User', 'keybindings.json'), JSON.stringify(opts.keybindings, null, 2));
    mkdirSync(folder);
    for (const [rel, content] of Object.entries(opts.files ?? {})) {
      mkdirSync(dirname(join(folder, rel)), { recursive: true });
      writeFileSync(join(folder, rel), content);
    }

    const [vsix, exe] = await Promise.all([packageExtension(), ensureCodeServer()]);
    await installExtension(exe, vsix, dirs);
    for (const other of opts.extensions ?? []) await installExtension(exe, other, dirs);
    codeServer = await startCodeServer({ exe, folder, name: opts.name, ...dirs, ...(opts.env ? { env: opts.env } : {}) });
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(30_000);
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    await page.goto(codeServer.url);
    const workbench = new Workbench(page, opts.name);
    workbench.clearScreenshots();
    const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      try {
        const v = await fn();
        await workbench.screenshot(name);
        return v;
      } catch (err) {
        await workbench.screenshot(`${name}-FAILED`).catch(() => undefined);
        throw err;
      }
    };
    return { page, workbench, codeServer, userDataDir: dirs.userDataDir, consoleErrors, step, close };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}
