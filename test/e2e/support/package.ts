/**
 * Packages the extension exactly as `npm run package` does (scripts/package-vsix.mjs), once per test
 * process: the e2e tests install what a user would install. KUBELOOP_E2E_VSIX names a .vsix to
 * install instead (packaged beforehand, e.g. two builds compared in one bench run).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { artifactsDir, repoRoot } from './paths';
import { run } from './run';

export const vsixPath = join(artifactsDir, 'kubeloop.vsix');
let packaged: Promise<string> | undefined;

export function packageExtension(signal?: AbortSignal): Promise<string> {
  // A build packaged beforehand (an A/B of two builds in one bench script); read at each call.
  const given = process.env.KUBELOOP_E2E_VSIX;
  if (given) return Promise.resolve(given);
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
