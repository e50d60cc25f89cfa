/**
 * A stand-in for the Kubernetes extension (ms-kubernetes-tools.vscode-kubernetes-tools), built by the
 * test and published nowhere: same id, and an activate() that returns the real extension's API
 * broker shape (vscode-kubernetes-tools src/api/contract/api.ts: `get(component, version)` giving
 * `{ available: true, api }` or `{ available: false, reason: 'version-unknown' }`), with the
 * configuration component at v1 (getKubeconfigPath) and v1_1 (getKubeconfigPath,
 * onDidChangeKubeconfigPath, onDidChangeContext, onDidChangeNamespace), as that extension offers it.
 *
 * Its kubeconfig path is `$STANDIN_KUBECONFIG` of the extension host (so a test can tell the path
 * KubeLoop got through the API from any setting). Its commands, like the real extension's
 * "Use Context" / "Use Namespace", fire the change events:
 *   "Stand-in Kubernetes: Use Context <name>" for each name in $STANDIN_CONTEXTS (comma-separated)
 *   "Stand-in Kubernetes: Use Namespace <name>" for each name in $STANDIN_NAMESPACES
 * Commands must be declared statically, so the names are fixed when the .vsix is built.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifactsDir, repoRoot } from './paths';
import { run } from './run';

const EXTENSION_JS = `
const vscode = require('vscode');
function activate(context) {
  const pathChanged = new vscode.EventEmitter();
  const contextChanged = new vscode.EventEmitter();
  const namespaceChanged = new vscode.EventEmitter();
  const kubeconfigPath = () => ({ pathType: 'host', hostPath: process.env.STANDIN_KUBECONFIG || '' });
  const v1 = { getKubeconfigPath: kubeconfigPath };
  const v1_1 = {
    getKubeconfigPath: kubeconfigPath,
    onDidChangeKubeconfigPath: pathChanged.event,
    onDidChangeContext: contextChanged.event,
    onDidChangeNamespace: namespaceChanged.event,
  };
  for (const c of context.extension.packageJSON.contributes.commands) {
    const [, verb, name] = /^standin\\.(useContext|useNamespace)\\.(.+)$/.exec(c.command);
    context.subscriptions.push(vscode.commands.registerCommand(c.command, () => (verb === 'useContext' ? contextChanged : namespaceChanged).fire(name)));
  }
  return {
    apiVersion: '1.0',
    get(component, version) {
      if (component !== 'configuration') return { available: false, reason: 'version-unknown' };
      if (version === 'v1') return { available: true, api: v1 };
      if (version === 'v1_1') return { available: true, api: v1_1 };
      return { available: false, reason: 'version-unknown' };
    },
  };
}
module.exports = { activate, deactivate() {} };
`;

/** Builds the stand-in's .vsix (with vsce, as any extension is packaged); returns its path. */
export async function buildStandinKubernetesExtension(o: { contexts: string[]; namespaces: string[] }, signal?: AbortSignal): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-e2e-standin-'));
  try {
    const commands = [
      ...o.contexts.map((n) => ({ command: `standin.useContext.${n}`, title: `Use Context ${n}`, category: 'Stand-in Kubernetes' })),
      ...o.namespaces.map((n) => ({ command: `standin.useNamespace.${n}`, title: `Use Namespace ${n}`, category: 'Stand-in Kubernetes' })),
    ];
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify(
        {
          name: 'vscode-kubernetes-tools',
          publisher: 'ms-kubernetes-tools',
          displayName: 'Kubernetes (KubeLoop test stand-in)',
          description: "A test stand-in with the Kubernetes extension's API shape; published nowhere.",
          version: '1.3.99',
          license: 'Apache-2.0',
          engines: { vscode: '^1.100.0' },
          main: './extension.js',
          activationEvents: [],
          // the real extension's settings section: one object holding its `vs-kubernetes.*` keys
          contributes: {
            commands,
            configuration: { title: 'Kubernetes', properties: { 'vs-kubernetes': { type: 'object', default: {}, description: 'Kubernetes settings' } } },
          },
        },
        null,
        2,
      ),
    );
    writeFileSync(join(dir, 'extension.js'), EXTENSION_JS);
    writeFileSync(join(dir, 'README.md'), "# Stand-in\n\nA test stand-in for the Kubernetes extension's API.\n");
    writeFileSync(join(dir, 'LICENSE'), 'Apache-2.0\n');
    mkdirSync(artifactsDir, { recursive: true });
    const out = join(artifactsDir, 'standin-kubernetes.vsix');
    const vsce = join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
    await run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', out], { cwd: dir, signal });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
