// A piece of src/ bundled as dist/ bundles it (esbuild, minified, CommonJS for Node 20), for benches
// that time the code as it ships: under tsx every cross-module constant is a getter call.
import * as esbuild from 'esbuild';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

/** Bundles `exports` (export statements relative to the repository's root) to `outfile` and loads it. */
export function shipped<T>(exports: string, outfile: string): T {
  esbuild.buildSync({
    stdin: { contents: exports, resolveDir: ROOT, loader: 'ts' },
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    logLevel: 'warning',
  });
  return require(outfile) as T;
}
