/**
 * `kubeloop demo-cluster` as a user runs it: a separate process that prints its URL and kubeconfig
 * path once it is up, serves kubectl with the flags it was given (objects, faults, forbid, CRDs,
 * token), and stops cleanly on SIGINT and SIGTERM. Also the dispatcher's usage errors.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { main } from '../../src/cli/main';
import { runKubectl } from '../support/kubectl';
import { eventually } from '../support/eventually';

const root = join(__dirname, '..', '..');
const cli = ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')];
const execFileP = promisify(execFile);

function startCli(args: string[]) {
  const child = spawn(process.execPath, [...cli, 'demo-cluster', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    get out() {
      return out;
    },
    /** Waits for the lines that say where the cluster serves; an exit before them ends the wait at once. */
    async ready(ms = 30_000): Promise<{ url: string; kubeconfig: string }> {
      const gone = new AbortController();
      const onExit = () => gone.abort(new Error(`demo-cluster exited early:\n${out}`));
      if (child.exitCode !== null) onExit();
      else child.once('exit', onExit);
      try {
        return await eventually(
          () => {
            const url = /demo cluster: (\S+)/.exec(out)?.[1];
            const kubeconfig = /kubeconfig:\s+(\S+)/.exec(out)?.[1];
            return url && kubeconfig ? { url, kubeconfig } : undefined;
          },
          {
            description: `the demo cluster's url and kubeconfig lines (output so far: ${JSON.stringify(out.slice(-500))})`,
            timeoutMs: ms,
            signal: gone.signal,
          },
        );
      } finally {
        child.off('exit', onExit);
      }
    },
  };
}

describe('kubeloop demo-cluster', () => {
  it('serves kubectl with its flags and stops cleanly on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-cli-'));
    const kubeconfig = join(dir, 'kc');
    const p = startCli([
      '--port',
      '0',
      '--objects',
      '300',
      '--seed',
      '3',
      '--token',
      'tok-123',
      '--kubeconfig-out',
      kubeconfig,
      '--forbid',
      '/secrets',
      '--crd',
      'gizmos.demo.kubeloop.io/v1/Gizmo',
      '--faults',
      'throttle,verb=list,resource=configmaps,times=1,retryAfter=1',
      '--no-kubelet',
    ]);
    try {
      const { url, kubeconfig: printed } = await p.ready();
      assert.equal(printed, kubeconfig);
      assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/, 'a token implies TLS (kubectl sends tokens only over https)');
      assert.match(readFileSync(kubeconfig, 'utf8'), /token: tok-123/);
      const pods = await runKubectl(['get', 'pods', '-A', '-o', 'name'], { kubeconfig });
      assert.equal(pods.code, 0, pods.stderr);
      assert.ok(pods.stdout.trim().split('\n').length > 5, 'the generator made pods');
      const cms = await runKubectl(['get', 'configmaps', '-A', '-o', 'name', '-v=6'], { kubeconfig });
      assert.equal(cms.code, 0, cms.stderr);
      assert.match(cms.stderr, /429 Too Many Requests/);
      const secrets = await runKubectl(['get', 'secrets', '-A'], { kubeconfig });
      assert.match(secrets.stderr, /Forbidden/);
      const crd = await runKubectl(['get', 'gizmos', '-A'], { kubeconfig });
      assert.equal(crd.code, 0, crd.stderr);
      const anon = await runKubectl(['get', 'ns', '--token=nope'], { kubeconfig });
      assert.match(anon.stderr, /Unauthorized|must be logged in/);
    } finally {
      p.child.kill('SIGINT');
      assert.equal(await p.exited, 0, p.out);
      assert.match(p.out, /SIGINT: stopping the demo cluster/);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps serving, and stops cleanly on SIGTERM, after the reader of its output went away (closed pipe)', async () => {
    const p = startCli(['--port', '0', '--no-kubelet']);
    const { url } = await p.ready();
    p.child.stdout.destroy(); // as `kubeloop demo-cluster | head -3` does once head has its lines
    const res = await fetch(`${url}/api/v1/namespaces`);
    assert.equal(res.status, 200, 'still serving');
    p.child.kill('SIGTERM'); // its shutdown line now goes to a closed pipe
    assert.equal(await p.exited, 0, p.out);
    assert.doesNotMatch(p.out, /EPIPE|Unhandled/);
  });

  it('without --kubeconfig-out: the kubeconfig goes in a private folder (mkdtemp, 0700, no pid in its name), removed when it stops', async () => {
    const p = startCli(['--port', '0', '--no-kubelet', '--no-controllers']);
    try {
      const { kubeconfig } = await p.ready();
      const dir = dirname(kubeconfig);
      assert.equal(dirname(dir), tmpdir());
      assert.match(basename(dir), /^kubeloop-demo-[A-Za-z0-9]{6}$/);
      assert.notEqual(basename(dir), `kubeloop-demo-${p.child.pid}`, 'not a name another user can make first');
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
      p.child.kill('SIGINT');
      assert.equal(await p.exited, 0, p.out);
      assert.equal(existsSync(dir), false, 'removed with the cluster');
    } finally {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL'); // a failed test leaves no server behind
    }
  });

  it('a SIGTERM during start-up stops it cleanly: exit 0, and no URL line for a server already gone', async () => {
    // 200,000 objects take seconds to generate; the signal goes the moment the start line is read,
    // when the handlers are already in (before this fix, a signal that beat them was Node's kill).
    const p = startCli(['--port', '0', '--objects', '200000', '--no-kubelet', '--no-controllers']);
    try {
      await eventually(() => /starting the demo cluster \(200000 objects\)/.test(p.out), { description: 'the start line', timeoutMs: 30_000 });
      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0, p.out);
      assert.match(p.out, /SIGTERM: stopping the demo cluster/);
      assert.doesNotMatch(p.out, /demo cluster: http/, p.out);
    } finally {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL'); // a failed test leaves no server behind
    }
  });

  it('--clusters 3 serves three separate clusters from one process, one kubeconfig context each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-cli-'));
    const kubeconfig = join(dir, 'kc');
    const p = startCli(['--clusters', '3', '--objects', '200', '--token', 'tok-3', '--kubeconfig-out', kubeconfig, '--no-kubelet']);
    try {
      await p.ready();
      const urls = [...p.out.matchAll(/demo cluster: (\S+) \(context (kubeloop-demo-\d), (\d+) objects\)/g)];
      assert.deepEqual(
        urls.map((m) => m[2]),
        ['kubeloop-demo-1', 'kubeloop-demo-2', 'kubeloop-demo-3'],
        p.out,
      );
      assert.equal(new Set(urls.map((m) => m[1])).size, 3, 'three servers, three ports');
      const total = Number(/objects:\s+(\d+)/.exec(p.out)?.[1]);
      assert.equal(
        total,
        urls.reduce((n, m) => n + Number(m[3]), 0),
      );
      // kubectl, the judge: every context answers, with its own objects (seeds 1, 2, 3).
      const names: string[] = [];
      for (const ctx of ['kubeloop-demo-1', 'kubeloop-demo-2', 'kubeloop-demo-3']) {
        const cms = await runKubectl(['--context', ctx, 'get', 'configmaps', '-A', '-o', 'name'], { kubeconfig });
        assert.equal(cms.code, 0, cms.stderr);
        names.push(cms.stdout);
      }
      assert.equal(new Set(names).size, 3, 'each cluster generated its own objects');
      // Separate stores: a ConfigMap created in the second is in the second only.
      const made = await runKubectl(['--context', 'kubeloop-demo-2', 'create', 'configmap', 'only-in-two', '-n', 'default'], { kubeconfig });
      assert.equal(made.code, 0, made.stderr);
      for (const [ctx, code] of [
        ['kubeloop-demo-1', 1],
        ['kubeloop-demo-2', 0],
        ['kubeloop-demo-3', 1],
      ] as const) {
        const got = await runKubectl(['--context', ctx, 'get', 'configmap', 'only-in-two', '-n', 'default'], { kubeconfig });
        assert.equal(got.code, code, `${ctx}: ${got.stderr}`);
      }
      // One load of all three, as a user with this kubeconfig would: each context reported apart.
      const load = await execFileP(process.execPath, [...cli, 'load', '--kubeconfig', kubeconfig, '--all-contexts', '--json'], { cwd: root });
      const report = JSON.parse(load.stdout.trim().split('\n').pop()!) as { clusters: { context: string; outcome: string; objects: number }[] };
      assert.deepEqual(
        report.clusters.map((c) => [c.context, c.outcome]),
        [
          ['kubeloop-demo-1', 'ok'],
          ['kubeloop-demo-2', 'ok'],
          ['kubeloop-demo-3', 'ok'],
        ],
      );
      assert.ok(report.clusters.every((c) => c.objects > 200));
    } finally {
      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0, p.out);
      rmSync(dir, { recursive: true, force: true });
    }
    for (const m of p.out.matchAll(/demo cluster: (\S+) \(/g)) {
      await assert.rejects(fetch(`${m[1]}/version`), 'every server stopped with the process');
    }
    await assert.rejects(main(['demo-cluster', '--clusters', '2', '--replay', join(dir, 'none.rec')]), /--replay serves one recording/);
    await assert.rejects(main(['demo-cluster', '--clusters', '0']), /--clusters must be at least 1/);
  });

  it('stops on SIGTERM too, and refuses bad flags with a usage message', async () => {
    const p = startCli(['--port', '0', '--no-kubelet']);
    await p.ready();
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0);
    // The dispatcher in-process (no extra process start): bad specs reject, unknown commands exit 2.
    await assert.rejects(main(['demo-cluster', '--faults', 'nonsense']), /unknown fault kind "nonsense"/);
    await assert.rejects(main(['demo-cluster', '--bogus-flag']), /Unknown option '--bogus-flag'/);
    const errors: string[] = [];
    const orig = console.error;
    console.error = (m: string) => errors.push(m);
    try {
      assert.equal(await main(['frobnicate']), 2);
    } finally {
      console.error = orig;
    }
    assert.match(errors.join('\n'), /unknown command "frobnicate"/);
  });
});
