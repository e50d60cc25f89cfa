/**
 * The in-host mocha suites (test/e2e/electron/suite/) run inside code-server's real (Node) remote
 * extension host: the CI path of the same suites that electron/runTests.ts runs in a desktop VS Code.
 *
 * Mechanism (VS Code's web workbench, which code-server serves): the page URL's `payload` query carries
 * `extensionDevelopmentPath` and `extensionTestsPath` as vscode-remote:// URIs on the server. The
 * workbench's environment service reads them from the payload, the server's extension scanner loads
 * the extension from the development folder (it is not installed), and the remote extension host
 * require()s the tests module and awaits its `run()`. When that settles the extension host exits
 * (0 when run() resolved, 1 when it rejected) and the workbench calls `window.codeAutomationExit(code)`,
 * which this runner exposes to the page before navigating (as microsoft/vscode-test-web does).
 *
 * Guarantee: resolves with the exit code and everything the extension host printed (mocha's report)
 * once codeAutomationExit was called; rejects on timeout or abort, naming what it waited for. The
 * browser, code-server and the temp profile are always cleaned up.
 */
import { eventually } from '../../support/eventually';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { ensureCodeServer, startCodeServer, type CodeServer } from '../support/codeServer';
import { repoRoot } from '../support/paths';
import { bundleSuites } from './bundleSuites';

export interface InHostResult {
  /** The extension host's exit code: 0 only when every mocha test passed. */
  code: number;
  /** What the extension host printed (mocha's spec report among it), in order. */
  output: string[];
  /** Milliseconds from opening the workbench to codeAutomationExit. */
  runMs: number;
}

export interface InHostOptions {
  signal?: AbortSignal;
  /** Deadline for the whole in-host run after the page opened. */
  timeoutMs?: number;
  /** Skip `node esbuild.config.mjs` (the tier has built dist/ already). */
  build?: boolean;
  /** Lines as they arrive (e.g. to stream mocha's report). */
  onLine?: (line: string) => void;
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'security.workspace.trust.enabled': false,
};

export async function runInCodeServer(opts: InHostOptions = {}): Promise<InHostResult> {
  const suiteIndex = await bundleSuites({ build: opts.build ?? true });
  const exe = await ensureCodeServer(opts.signal);
  const base = mkdtempSync(join(tmpdir(), 'kubeloop-inhost-'));
  const dirs = { userDataDir: join(base, 'user-data'), extensionsDir: join(base, 'extensions'), configFile: join(base, 'code-server.yaml') };
  const folder = join(base, 'workspace');
  mkdirSync(join(dirs.userDataDir, 'User'), { recursive: true });
  mkdirSync(dirs.extensionsDir);
  mkdirSync(folder);
  writeFileSync(join(dirs.userDataDir, 'User', 'settings.json'), JSON.stringify(QUIET_SETTINGS, null, 2));

  let codeServer: CodeServer | undefined;
  let browser: Browser | undefined;
  try {
    codeServer = await startCodeServer({
      exe,
      folder,
      name: 'inhost',
      ...dirs,
      env: { KUBELOOP_TEST_TIER: 'e2e-inhost' },
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    browser = await launchBrowser();
    const page = await browser.newPage();
    const output: string[] = [];
    const onLine = (line: string) => {
      output.push(line);
      opts.onLine?.(line);
    };
    let settle!: (code: number) => void;
    const exited = new Promise<number>((r) => (settle = r));
    await page.exposeFunction('codeAutomationExit', (code: number) => settle(Number(code)));
    // The workbench's log in automation mode: its own lines and the extension host's (mocha's report,
    // console.log's format string first, with ANSI colours), one call per entry.
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      const text = stripAnsi(format(...(Array.isArray(args) ? args : [args])));
      for (const line of text.split('\n')) onLine(type === 'info' ? line : `[${type}] ${line}`);
    });

    const authority = new URL(codeServer.url).host;
    const remote = (path: string) => `vscode-remote://${authority}${path}`;
    const payload = [
      ['extensionDevelopmentPath', remote(repoRoot)],
      ['extensionTestsPath', remote(suiteIndex)],
    ];
    const started = Date.now();
    await page.goto(`${codeServer.url}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);

    const timeoutMs = opts.timeoutMs ?? 10 * 60_000;
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const code = await Promise.race([
      exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `the extension host did not report the end of the in-host tests (codeAutomationExit) within ${timeoutMs} ms; code-server log: ${codeServer!.logFile}`,
              ),
            ),
          timeoutMs,
        );
        opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
      }),
      serverGaveUp(codeServer.logFile, () => done),
    ]).finally(() => {
      done = true;
      clearTimeout(timer);
    });
    return { code, output, runMs: Date.now() - started };
  } finally {
    await browser?.close().catch(() => undefined);
    await codeServer?.stop().catch(() => undefined);
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Rejects, with what the server said, when code-server shows the run cannot end in codeAutomationExit:
 * it never loaded the development extension (the payload was not honoured: a code-server upgrade may
 * change how the workbench takes it), or its extension host exited and the page did not report it.
 * Waits on the log's lines, not on time alone; stops when `finished()` says the run is over.
 */
async function serverGaveUp(logFile: string, finished: () => boolean): Promise<never> {
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const step = (check: () => boolean, description: string, timeoutMs: number) =>
    eventually(check, { description, timeoutMs, maxIntervalMs: 250 }).catch((e: Error) => {
      throw new Error(`${e.message}; code-server log: ${logFile}`);
    });
  await step(
    () => finished() || /Loading development extension at /.test(log()),
    'code-server to load the development extension (is the URL payload still honoured?)',
    3 * 60_000,
  );
  // The run's own deadline (runInCodeServer's timeoutMs) bounds this one.
  await step(() => finished() || /Extension Host Process exited/.test(log()), 'the extension host to exit', 24 * 60 * 60_000);
  await step(finished, "the page to report the extension host's exit (codeAutomationExit)", 60_000);
  return new Promise<never>(() => undefined); // the run ended another way: never settles
}
