/**
 * The kubeloop CLI bundled by esbuild as the package ships it (one CommonJS file for Node 20), for
 * tests that run it as a child process: its CPU and RSS are then the shipped CLI's, not a
 * TypeScript loader's.
 */
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = join(__dirname, '..', '..');

/** Writes the bundle to `outfile`. */
export async function bundleCli(outfile: string): Promise<void> {
  await esbuild.build({
    entryPoints: [join(ROOT, 'src', 'cli', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
  });
}
