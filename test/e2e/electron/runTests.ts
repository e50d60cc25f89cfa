/**
 * The in-host path of the e2e tier, for machines that can download VS Code (it is not part of the
 * default run: these machines cannot). It starts a desktop VS Code through @vscode/test-electron with
 * this repository as the extension under development and runs the mocha suites in suite/ inside its
 * extension host, where they reach the extension through the VS Code API. The same suites run in CI
 * inside code-server's extension host (test/e2e/inhost.test.ts); both share inhost/bundleSuites.ts.
 *
 * Usage: node --import tsx test/e2e/electron/runTests.ts   (VSCODE_VERSION=1.100.3 by default)
 */
import { runTests } from '@vscode/test-electron';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleSuites } from '../inhost/bundleSuites';
import { repoRoot } from '../support/paths';

async function main(): Promise<number> {
  const suiteIndex = await bundleSuites();

  const workspace = mkdtempSync(join(tmpdir(), 'kubeloop-electron-'));
  try {
    await runTests({
      version: process.env.VSCODE_VERSION ?? '1.100.3',
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: suiteIndex,
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
      extensionTestsEnv: { KUBELOOP_TEST_TIER: 'e2e-electron' },
    });
    return 0;
  } catch (err) {
    console.error(`runTests: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code));
