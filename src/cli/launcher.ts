/**
 * `kubeloop`: starts the command line (./cli-main.js, beside this file) through V8's code cache, so
 * a run does not compile the whole bundle from scratch (about 40 ms of every start on a slow
 * machine, a tenth of a small load). Node 22+ does this itself (module.enableCompileCache); on
 * Node 20 the bundle is compiled with vm.Script and cachedData kept under the user's cache
 * directory ($XDG_CACHE_HOME or ~/.cache, then kubeloop/compile-cache).
 *
 * Guarantees:
 * - The cache only ever saves time: a cache that cannot be read, is rejected by V8 (another Node,
 *   other V8 flags) or cannot be written leaves a plain compile, and the command runs the same.
 * - A cache entry is keyed by a SHA-1 of the bundle's text (V8's own check covers only its length),
 *   so a rebuilt bundle never runs with another bundle's compiled code.
 * - Entries are written whole (a temporary file renamed into place): a concurrent run reads an old
 *   entry or a new one, never half of one. Set KUBELOOP_NO_COMPILE_CACHE=1 to bypass the cache.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { prestartIoThread } from '../core/kube/transport/ioThread';

interface CliMain {
  runCli(argv: string[]): void;
}

const MAIN = join(__dirname, 'cli-main.js');

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubeloop', 'compile-cache');
}

type ModuleFunction = (exports: unknown, require: NodeRequire, module: unknown, filename: string, dirname: string) => void;

/** Compiles the bundle as a CommonJS module function with V8's cached data (nothing of it runs yet). */
function compileWithCodeCache(file: string, dir: string): ModuleFunction {
  const source = readFileSync(file, 'utf8').replace(/^#!.*/, '');
  const key = createHash('sha1').update(source).digest('hex').slice(0, 20);
  const entry = join(dir, `cli-main-${process.version}-${process.arch}-${key}.bin`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(entry);
  } catch {
    // no entry yet: compile and write one below
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    // written at exit, so the entry also holds the functions this run compiled lazily
    process.once('exit', () => {
      try {
        mkdirSync(dir, { recursive: true });
        const tmp = `${entry}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, entry);
      } catch {
        // a read-only or full disk: the next run compiles again
      }
    });
  }
  return script.runInThisContext() as ModuleFunction;
}

function loadMain(): CliMain {
  if (process.env.KUBELOOP_NO_COMPILE_CACHE === '1') return require(MAIN) as CliMain;
  const native = (Module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (typeof native === 'function') {
    try {
      native(cacheDir());
    } catch {
      // without the cache
    }
    return require(MAIN) as CliMain;
  }
  let fn: ModuleFunction;
  try {
    fn = compileWithCodeCache(MAIN, cacheDir());
  } catch {
    return require(MAIN) as CliMain;
  }
  // run outside the try: an error of the command's own start-up is reported, not run twice
  const mod = { exports: {} as CliMain, filename: MAIN, id: MAIN };
  fn.call(mod.exports, mod.exports, createRequire(MAIN), mod, MAIN, dirname(MAIN));
  return mod.exports;
}

const argv = process.argv.slice(2);
// `kubeloop load` walks its lists on an I/O thread: booting it takes tens of ms, which now overlap
// the compile and start-up of the command's bundle instead of following them (see ioThread.ts).
if (argv[0] === 'load' && !argv.some((a) => a === '--metadata-only' || a === '--help' || a === '-h')) prestartIoThread();
loadMain().runCli(argv);
