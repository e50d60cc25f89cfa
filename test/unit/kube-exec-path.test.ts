/**
 * An exec plugin's bare command name is found on PATH, never in the current folder (execPath.ts):
 * a plugin planted in the working folder is not run even when PATH has an empty or "." entry
 * (execvp would take those as the current folder), and Windows' PATHEXT rules are applied by our
 * own resolution (checked here on Linux with a fake PATHEXT).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecCredentialProvider } from '../../src/core/kube/config/exec';
import { lookPath, spawnable } from '../../src/core/kube/config/execPath';
import { tempDir } from './kube-helpers';

const dir = tempDir();
after(() => dir.cleanup());

/** An executable script at `path` that prints an ExecCredential with `token` (and marks that it ran). */
function plugin(path: string, token: string): void {
  const cred = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });
  writeFileSync(
    path,
    `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(path + '.ran')}, '');\nprocess.stdout.write(${JSON.stringify(cred)});\n`,
  );
  chmodSync(path, 0o755);
}

describe('exec plugin lookup', () => {
  it('a plugin in the working folder is not run, whatever PATH says about "." or empty entries', async () => {
    const work = join(dir.dir, 'work');
    const bin = join(dir.dir, 'bin');
    mkdirSync(work);
    mkdirSync(bin);
    plugin(join(work, 'kube-cred'), 'planted');
    plugin(join(bin, 'kube-cred'), 'genuine');
    const cwd = process.cwd();
    process.chdir(work);
    try {
      for (const PATH of [`.:${bin}`, `:${bin}`, `${bin}::`, `work:${bin}`]) {
        const env = { ...process.env, PATH };
        const p = new ExecCredentialProvider(
          { apiVersion: 'client.authentication.k8s.io/v1', command: 'kube-cred', args: [], env: [], interactiveMode: 'Never', provideClusterInfo: false },
          { server: 'https://127.0.0.1:1' },
          { env },
        );
        assert.equal((await p.get()).token, 'genuine', PATH);
        assert.equal(lookPath('kube-cred', { env, platform: 'linux' }), join(bin, 'kube-cred'));
      }
      assert.equal(existsSync(join(work, 'kube-cred.ran')), false, 'the planted plugin never ran');
      const none = new ExecCredentialProvider(
        {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: 'kube-cred',
          args: [],
          env: [],
          interactiveMode: 'Never',
          provideClusterInfo: false,
          installHint: 'install it',
        },
        { server: 'https://127.0.0.1:1' },
        { env: { ...process.env, PATH: '.' }, contextName: 'c' },
      );
      await assert.rejects(none.get(), /context "c": exec plugin "kube-cred": cannot run it: command not found; install it/);
    } finally {
      process.chdir(cwd);
    }
  });

  it('POSIX: a file that may not be executed, or a folder, is passed over for the next PATH entry', () => {
    const a = join(dir.dir, 'a');
    const b = join(dir.dir, 'b');
    const c = join(dir.dir, 'c');
    for (const d of [a, b, c]) mkdirSync(d);
    writeFileSync(join(a, 'tool'), 'not executable', { mode: 0o644 });
    mkdirSync(join(b, 'tool'));
    plugin(join(c, 'tool'), 't');
    assert.equal(lookPath('tool', { env: { PATH: [a, b, c].join(':') }, platform: 'linux' }), join(c, 'tool'));
    assert.equal(lookPath('tool', { env: { PATH: [a, b].join(':') }, platform: 'linux' }), undefined);
    assert.equal(lookPath('/opt/x/tool', { env: { PATH: '' }, platform: 'linux' }), '/opt/x/tool', 'a path is used as it is');
  });

  it('Windows rules (fake PATHEXT): extensions in order, the name as given when it has one, Path in any case, relative entries skipped', () => {
    const w1 = join(dir.dir, 'w1');
    const w2 = join(dir.dir, 'w2');
    mkdirSync(w1);
    mkdirSync(w2);
    writeFileSync(join(w1, 'kubelogin.CMD'), '');
    writeFileSync(join(w2, 'kubelogin.EXE'), '');
    writeFileSync(join(w2, 'aws.v2'), '');
    const win = (env: NodeJS.ProcessEnv) => ({ env, platform: 'win32' as const });
    assert.equal(lookPath('kubelogin', win({ Path: `${w1};${w2}`, PathExt: '.EXE;.CMD' })), join(w1, 'kubelogin.CMD'), 'the first folder wins');
    assert.equal(lookPath('kubelogin', win({ PATH: `${w2};${w1}`, PATHEXT: '.CMD;.EXE' })), join(w2, 'kubelogin.EXE'));
    assert.equal(lookPath('kubelogin', win({ PATH: `${w1}`, PATHEXT: '.EXE' })), undefined, 'only PATHEXT extensions are tried');
    assert.equal(lookPath('kubelogin.EXE', win({ PATH: `${w2}`, PATHEXT: '.CMD' })), join(w2, 'kubelogin.EXE'), 'a name with an extension as given');
    assert.equal(lookPath('aws.v2', win({ PATH: `${w2}` })), join(w2, 'aws.v2'));
    assert.equal(lookPath('kubelogin', win({ PATH: `.;w2;"${w2}"` })), join(w2, 'kubelogin.EXE'), 'relative entries skipped, a quoted one read');
    assert.equal(lookPath('C:\\tools\\kubelogin', win({ PATH: '' })), 'C:\\tools\\kubelogin');
  });

  it('Windows: a batch file runs through cmd.exe with quoted arguments; arguments cmd.exe would parse are refused', () => {
    assert.deepEqual(spawnable('C:\\t\\k.exe', ['get-token', 'a b'], { platform: 'win32', env: {} }), { file: 'C:\\t\\k.exe', args: ['get-token', 'a b'] });
    assert.deepEqual(
      spawnable('C:\\t\\aws.cmd', ['eks', 'get-token', '--cluster-name', 'my cluster'], { platform: 'win32', env: { ComSpec: 'C:\\W\\cmd.exe' } }),
      {
        file: 'C:\\W\\cmd.exe',
        args: ['/d', '/s', '/c', '""C:\\t\\aws.cmd" "eks" "get-token" "--cluster-name" "my cluster""'],
        windowsVerbatimArguments: true,
      },
    );
    for (const arg of ['a&calc', '%PATH%', 'x"y', 'a|b', '!x!', 'a^b', 'a\nb'])
      assert.match(String(spawnable('C:\\t\\aws.bat', [arg], { platform: 'win32', env: {} })), /may not contain/, arg);
    assert.deepEqual(spawnable('/usr/bin/x.cmd', ['&'], { platform: 'linux' }), { file: '/usr/bin/x.cmd', args: ['&'] });
  });
});
