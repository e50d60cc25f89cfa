// Opens KubeLoop on a cluster in a real VS Code, for `npm run demo` and `npm run lab`: the desktop
// `code` when it is on PATH (the extension loaded from this folder), otherwise code-server in the
// browser (installed into ~/.cache/kubeloop on first use, with the packaged .vsix installed into
// DIR). Returns where to look, one line. Children it starts are pushed onto `children` (the caller
// stops them). Throws (naming the step) when a step fails.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs a command to its end; its last stdout line, or throws naming `what`. */
export function must(cmd, args, what) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status})`);
  return r.stdout.trim().split('\n').pop();
}

/**
 * @param {{ dir: string, kubeconfig: string, port: string, children: import('node:child_process').ChildProcess[], noUi?: string }} o
 *   dir: where the workspace, user data and extensions go; port: code-server's; noUi: a reason not to open one.
 */
export function openKubeLoop(o) {
  const workspace = join(o.dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const uiEnv = { ...process.env, KUBECONFIG: o.kubeconfig };
  if (o.noUi) return `no UI (${o.noUi})`;
  if (spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0) {
    spawn('code', ['--new-window', `--extensionDevelopmentPath=${process.cwd()}`, workspace], { env: uiEnv, stdio: 'inherit' });
    return 'the VS Code window that just opened';
  }
  const codeServer = must('bash', ['scripts/install-code-server.sh'], 'installing code-server');
  const vsix = must(process.execPath, ['scripts/package-vsix.mjs', '--out', join(o.dir, 'kubeloop.vsix')], 'packaging the extension');
  const userData = join(o.dir, 'user-data');
  const extensions = join(o.dir, 'extensions');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({ 'kubeloop.kubeconfig': o.kubeconfig, 'workbench.startupEditor': 'none' }, null, 2));
  must(codeServer, ['--extensions-dir', extensions, '--user-data-dir', userData, '--install-extension', vsix, '--force'], 'installing the .vsix');
  o.children.push(
    spawn(
      codeServer,
      [
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${o.port}`,
        '--user-data-dir',
        userData,
        '--extensions-dir',
        extensions,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        workspace,
      ],
      { env: uiEnv, stdio: 'ignore' },
    ),
  );
  return `code-server: open http://127.0.0.1:${o.port}/ in a browser`;
}
