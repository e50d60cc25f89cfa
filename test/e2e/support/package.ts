/**
 * Packages the extension exactly as `npm run package` does (scripts/package-vsix.mjs), once per test
 * process: the e2e tests install what a user would install.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { artifactsDir, repoRoot } from './paths';
import { run } from './run';

export const vsixPath = join(artifactsDir, 'kubeloop.vsix');
let packaged: Promise<string> | undefined;

export function packageExtension(signal?: AbortSignal): Promise<string> {
  packaged ??= (async () => {
    mkdirSync(artifactsDir, { recursive: true });
    const { stderr } = await run(process.execPath, [join(repoRoot, 'scripts', 'package-vsix.mjs'), '--out', vsixPath], { cwd: repoRoot, signal });
    if (/WARNING/.test(stderr))
      console.warn(
        stderr
          .split('\n')
          .filter((l) => /WARNING|ERROR|error:/.test(l))
          .join('\n'),
      );
    return vsixPath;
  })();
  return packaged;
}
