/**
 * The one build step both in-host entries share (electron/runTests.ts for desktop VS Code,
 * inhost/runInCodeServer.ts for code-server): the extension as VS Code loads it from the development
 * path (dist/), and the mocha suites of electron/suite/ bundled to one CJS file that the extension host
 * loads with require().
 *
 * Guarantee: resolves with the path of the bundled tests module (it exports `run()`); rejects when the
 * suites do not bundle. mocha and vscode stay external: the extension host provides 'vscode', and
 * 'mocha' resolves from the repository's node_modules next to the bundle's folder.
 */
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { artifactsDir, repoRoot } from '../support/paths';

export const suiteDir = join(repoRoot, 'test', 'e2e', 'electron', 'suite');

export async function bundleSuites(opts: { build?: boolean } = {}): Promise<string> {
  if (opts.build !== false) {
    const build = spawnSync(process.execPath, ['esbuild.config.mjs'], { cwd: repoRoot, stdio: 'inherit' });
    if (build.status !== 0) console.warn('bundleSuites: the build reported errors; continuing if the extension bundles exist');
  }
  if (!existsSync(join(repoRoot, 'dist', 'extension.js'))) throw new Error('dist/extension.js is missing: run `node esbuild.config.mjs`');

  const outDir = join(artifactsDir, 'electron');
  mkdirSync(outDir, { recursive: true });
  const suiteIndex = join(outDir, 'index.js');
  await esbuild.build({
    entryPoints: [join(suiteDir, 'index.ts')],
    outfile: suiteIndex,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
  return suiteIndex;
}
