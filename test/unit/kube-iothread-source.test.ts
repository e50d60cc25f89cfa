/**
 * The I/O thread runs one source text that ioThread.ts assembles from functions (ioWorker.ts and
 * its parts): no file is behind it, so it works the same under tsx and in the esbuild bundle. Each
 * function must be self-contained: a part that used an import, or a name of its module, would
 * parse and build, then fail in the thread at run time; here it fails a test. And the assembled
 * text is run: a paged list walked by the thread, under tsx and in bundles built as
 * esbuild.config.mjs builds (with and without minifying, and with kept names as tsx compiles).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { IO_WORKER_PARTS, IO_WORKER_SOURCE } from '../../src/core/kube/transport/ioThread';
import { ioWorkerMain } from '../../src/core/kube/transport/ioWorker';
import { tunnelAgentFactory } from '../../src/core/kube/transport/tunnel';
import { openListStream } from '../../src/core/kube/transport/listStream';
import { freeNames } from '../support/freeNames';
import { pagedPodList, startServer, type TestServer } from './kube-helpers';

const ROOT = resolve(__dirname, '..', '..');
/** What a worker thread has in scope besides the ECMAScript globals, that the parts may use. */
const WORKER_GLOBALS = ['Buffer', 'URL', 'performance', 'setTimeout', 'clearTimeout'];
/** What the assembly gives every function it ships (ioThread.ts: a no-op keepNames helper). */
const ASSEMBLY = ['__name'];

const shipped = Object.fromEntries(Object.entries({ ...IO_WORKER_PARTS, ioWorkerMain, tunnelAgentFactory }).map(([name, f]) => [name, f.toString()]));
const controls = {
  // openListStream uses imported helpers (abortReason, the error classes): shipped as it is, it would fail in the thread.
  openListStream: openListStream.toString(),
  stray: 'function (load) { const x = require("node:http"); return parentPort.postMessage(x); }',
  assembled: `function () {\n${IO_WORKER_SOURCE}\n}`,
};
/** One checker program for every text (each costs a second of loading the library otherwise). */
let checked: Record<string, string[]> | undefined;
const free = (name: string) => (checked ??= freeNames({ ...shipped, ...controls }, ASSEMBLY))[name];
const foreign = (name: string) => free(name).filter((n) => !WORKER_GLOBALS.includes(n));

describe("the I/O thread's source: self-contained parts", () => {
  it('no shipped function uses a name the worker does not have (an import, a name of its module)', () => {
    const names = Object.keys(shipped);
    assert.ok(names.length >= 10, 'the entry, the tunnel factory and every part are checked');
    assert.deepEqual(Object.fromEntries(names.map((n) => [n, foreign(n)])), Object.fromEntries(names.map((n) => [n, []])));
  });

  it('the check sees what a function takes from its module or the worker scope', () => {
    assert.ok(foreign('openListStream').length > 0, `a module-level function using imports fails it: ${free('openListStream').join(', ')}`);
    assert.deepEqual(free('stray'), ['parentPort', 'require'], "a part uses its `load` parameter, never the worker scope's require");
  });

  it("the assembled text parses, and needs only the worker's require beyond its globals", () => {
    assert.deepEqual(foreign('assembled'), ['require']);
    for (const name of Object.keys(IO_WORKER_PARTS)) assert.ok(IO_WORKER_SOURCE.includes(`"${name}": (`), `part ${name} is shipped`);
  });
});

/** A program that walks a 5-pod list in pages of 2 on the I/O thread and prints each message. */
const PROBE = `
import { IoThread } from ${JSON.stringify(join(ROOT, 'src/core/kube/transport/ioThread'))};
const url = process.argv[2] + '/api/v1/pods?limit=2';
const io = IoThread.start(false);
if (!io) throw new Error('no I/O thread');
io.useTls({}, 0);
const seen: unknown[] = [];
io.openList({ url, next: url, headers: {}, grants: 10, prefetch: true, timeoutMs: 20_000, maxBytes: 1 << 20 }, (m) => {
  if (m.t === 'progress') return;
  const items = m.t === 'page' ? JSON.parse(m.body.toString()).items.map((x: { metadata: { name: string } }) => x.metadata.name) : m;
  seen.push({ t: m.t, token: m.t === 'page' ? m.token : undefined, items, end: m.end });
  if (m.end) (io.close(), console.log(JSON.stringify(seen)));
});
`;
const WALKED = [
  { t: 'page', token: '2', items: ['p0', 'p1'], end: false },
  { t: 'page', token: '4', items: ['p2', 'p3'], end: false },
  { t: 'page', token: '', items: ['p4'], end: true },
];

describe("the I/O thread's source: it runs", () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startServer(pagedPodList(5));
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-iosource-'));
    writeFileSync(join(dir, 'probe.ts'), PROBE);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (args: string[]) => {
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const { stdout } = await promisify(execFile)(process.execPath, [...args, server.url], { cwd: ROOT, env, timeout: 60_000 });
    return JSON.parse(stdout) as unknown;
  };

  it("under tsx (the tests', the development path)", async () => {
    assert.deepEqual(await run(['--import', 'tsx', join(dir, 'probe.ts')]), WALKED);
  });

  for (const [variant, options] of [
    ['the development bundle', { sourcemap: true }],
    ['the production bundle (minified)', { minify: true }],
    ['a bundle that keeps names (as tsx compiles)', { keepNames: true }],
  ] as const) {
    it(`in ${variant}`, async () => {
      const out = join(dir, `${variant.replace(/\W+/g, '-')}.js`);
      await esbuild.build({
        entryPoints: [join(dir, 'probe.ts')],
        outfile: out,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        logLevel: 'silent',
        ...options,
      });
      assert.deepEqual(await run([out]), WALKED);
    });
  }
});
