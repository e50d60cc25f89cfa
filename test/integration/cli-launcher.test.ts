/**
 * The kubeloop launcher (dist/cli.js) runs the command line (dist/cli-main.js) through V8's code
 * cache: a first run writes an entry, later runs use it without rewriting it, a corrupt or foreign
 * entry is replaced and never breaks a run, a changed bundle gets its own entry, the bypass switch
 * writes nothing, and exit statuses pass through. `load` runs on an I/O thread the launcher starts
 * ahead of need: loads over HTTPS and plain HTTP count exactly. Real processes on the built bundle.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { demo } from './loader-helpers';

const DIST = resolve(__dirname, '..', '..', 'dist');

function run(cli: string, args: string[], cacheHome: string, extra: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cacheHome, ...extra };
  delete env.NODE_OPTIONS;
  if (!('KUBELOOP_NO_COMPILE_CACHE' in extra)) delete env.KUBELOOP_NO_COMPILE_CACHE;
  return spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 60_000 });
}

const entries = (cacheHome: string) => {
  const dir = join(cacheHome, 'kubeloop', 'compile-cache');
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.bin'))
        .map((f) => join(dir, f))
    : [];
};

describe('the kubeloop launcher and its compile cache', () => {
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'kubeloop-launcher-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('writes one entry on the first run and uses it, unchanged, on the next', () => {
    const home = join(tmp, 'a');
    const first = run(join(DIST, 'cli.js'), ['--help'], home);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^usage: kubeloop <command>/);
    const [entry, ...more] = entries(home);
    assert.ok(entry, 'an entry was written');
    assert.deepEqual(more, [], 'exactly one');
    assert.match(entry!, /cli-main-v\d+\.\d+\.\d+-\w+-[0-9a-f]{20}\.bin$/);
    const before = statSync(entry!).mtimeMs;
    const bytes = readFileSync(entry!);
    const second = run(join(DIST, 'cli.js'), ['--help'], home);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stdout, first.stdout);
    assert.equal(statSync(entry!).mtimeMs, before, 'an accepted entry is not rewritten');
    assert.ok(readFileSync(entry!).equals(bytes));
  });

  it('a corrupt entry never breaks a run, and is replaced', () => {
    const home = join(tmp, 'b');
    assert.equal(run(join(DIST, 'cli.js'), ['--help'], home).status, 0);
    const [entry] = entries(home);
    const garbage = Buffer.alloc(4096, 0x5a);
    writeFileSync(entry!, garbage);
    const r = run(join(DIST, 'cli.js'), ['--help'], home);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^usage: kubeloop <command>/);
    assert.equal(r.stderr, '');
    assert.ok(!readFileSync(entry!).equals(garbage), 'rewritten after V8 rejected it');
  });

  it('a rebuilt bundle gets its own entry (keyed by its text, not its length)', () => {
    const home = join(tmp, 'c');
    const copy = join(tmp, 'dist-copy');
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(copy);
    copyFileSync(join(DIST, 'cli.js'), join(copy, 'cli.js'));
    const main = readFileSync(join(DIST, 'cli-main.js'), 'utf8');
    writeFileSync(join(copy, 'cli-main.js'), main);
    assert.equal(run(join(copy, 'cli.js'), ['--help'], home).status, 0);
    // the same length, one character changed: a different bundle that V8's length check would accept
    writeFileSync(join(copy, 'cli-main.js'), main.replace('usage: kubeloop <command>', 'usage: kubeloop <commanD>'));
    const r = run(join(copy, 'cli.js'), ['--help'], home);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^usage: kubeloop <commanD>/, 'the new text runs, not the cached old one');
    assert.equal(entries(home).length, 2);
  });

  it('KUBELOOP_NO_COMPILE_CACHE=1 writes nothing, and exit statuses pass through the launcher', () => {
    const home = join(tmp, 'd');
    const r = run(join(DIST, 'cli.js'), ['load', '--kubeconfig', join(tmp, 'missing-kubeconfig')], home, { KUBELOOP_NO_COMPILE_CACHE: '1' });
    assert.equal(r.status, 1, 'a fatal error is exit status 1');
    assert.match(r.stderr, /kubeloop load: kubeconfig .*missing-kubeconfig/);
    assert.deepEqual(entries(home), []);
    const unknown = run(join(DIST, 'cli.js'), ['no-such-command'], home);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown command "no-such-command"/);
  });

  /** `node dist/cli.js load ... --json` as a child process (async: the demo cluster serves in this one). */
  function loadJson(args: string[], home: string): Promise<{ status: number | null; json: any; stderr: string }> {
    return new Promise((done, fail) => {
      const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: home };
      delete env.KUBELOOP_NO_COMPILE_CACHE;
      const child = spawn(process.execPath, [join(DIST, 'cli.js'), 'load', ...args, '--json'], { env });
      let out = '';
      let err = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', fail);
      child.on('close', (status) => {
        clearTimeout(timer);
        let json: any;
        try {
          json = JSON.parse(out);
        } catch {
          json = undefined;
        }
        done({ status, json, stderr: err });
      });
    });
  }

  for (const [scheme, opts] of [
    ['https', { tls: true, token: 'launcher-token' }],
    ['http', { tls: false }],
  ] as const) {
    it(`load over ${scheme} through the launcher (the I/O thread started ahead, told the scheme after): exact counts`, async () => {
      const fx = await demo(1200, opts);
      try {
        const want = fx.cluster.store.list('', 'configmaps').items.length;
        for (const extra of [[], ['--metadata-only']]) {
          const r = await loadJson(
            ['--kubeconfig', fx.kubeconfig, '--include', 'configmaps', '--include', 'pods', '--page-size', '40', ...extra],
            join(tmp, `load-${scheme}`),
          );
          assert.equal(r.status, 0, r.stderr);
          assert.equal(r.json.outcome, 'ok');
          assert.ok(r.json.server.startsWith(`${scheme}://`), r.json.server);
          const cm = r.json.types.find((t: { resource: string }) => t.resource === 'configmaps');
          assert.equal(cm.count, want, `configmaps ${extra.join(' ')}`);
          assert.ok(cm.pages > 1, 'paged');
          assert.equal(r.json.objects, want + fx.cluster.store.list('', 'pods').items.length);
          assert.equal(r.json.retries, 0, 'no page needed a second try (a thread speaking the wrong scheme would fail each first one)');
          // full objects' pages are walked by the I/O thread (list.ts; metadata pages stay on the calling thread)
          if (extra.length === 0) assert.ok(r.json.transport.streamedPages >= cm.pages, "the bundle's I/O thread ran and walked the pages");
        }
      } finally {
        await fx.stop();
      }
    });
  }
});
