/**
 * The read-only YAML documents of cluster objects (scheme `kubeloop`): each open fetches the object
 * under one deadline and renders it with Secret values masked (app/yaml/fetch.ts).
 * TextDocumentContentProvider documents are read-only, and the extension never writes to the cluster.
 */
import * as vscode from 'vscode';
import type { KubeClient } from '../../core/kube/client';
import { realClock } from '../../core/clock';
import type { Logger } from '../../app/logger';
import { addressToPath, pathToAddress, YAML_SCHEME, type ObjectAddress } from '../../app/yaml/address';
import { fetchObjectYaml } from '../../app/yaml/fetch';

export function yamlUri(a: ObjectAddress): vscode.Uri {
  return vscode.Uri.from({ scheme: YAML_SCHEME, path: addressToPath(a) });
}

export interface YamlProviderDeps {
  /** The client for a context name, when the extension is connected to it. */
  client(context: string): Promise<KubeClient | undefined>;
  timeoutMs(): number;
  log: Logger;
}

export class ResourceYamlProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly deps: YamlProviderDeps) {}

  /** Fetches the document again (the Refresh command on an open YAML editor). */
  refresh(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const a = pathToAddress(uri.path);
    if (!a) return `# Not a KubeLoop object address: ${uri.path.replace(/[\r\n]+/g, ' ')}\n`;
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort(new Error('cancelled')));
    try {
      return await fetchObjectYaml(a, { client: this.deps.client, timeoutMs: this.deps.timeoutMs(), clock: realClock, log: this.deps.log }, ac.signal);
    } finally {
      sub.dispose();
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
