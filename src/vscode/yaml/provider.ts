/**
 * The read-only YAML documents of cluster objects (scheme `kubeloop`): each open fetches the object
 * with one GET (the full object, even when the tree was loaded metadata-only) and renders it with
 * Secret values masked (./render.ts). TextDocumentContentProvider documents are read-only, and the
 * extension never writes to the cluster.
 */
import * as vscode from 'vscode';
import { resourcePath } from '../../core/kube/listwatch/paths';
import type { KubeClient } from '../../core/kube/client';
import { describeConnectionError } from '../../app/connection/connection';
import type { Logger } from '../../app/logger';
import { addressToPath, pathToAddress, YAML_SCHEME, type ObjectAddress } from '../../app/yaml/address';
import { renderFetchError, renderObjectYaml } from '../../app/yaml/render';

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
    const client = await this.deps.client(a.context);
    if (!client) return renderFetchError(a, `KubeLoop is not connected to this context now. Select it (KubeLoop: Select Context) and open the object again.`);
    const ac = new AbortController();
    const sub = token.onCancellationRequested(() => ac.abort(new Error('cancelled')));
    const path = `${resourcePath({ group: a.group, version: a.version, resource: a.resource }, a.namespace)}/${encodeURIComponent(a.name)}`;
    try {
      const res = await client.transport.getJson<Record<string, unknown>>({ path, signal: ac.signal, timeoutMs: this.deps.timeoutMs() });
      // The log names the object, never its contents (a Secret's values must not reach the log).
      this.deps.log.debug(`yaml: GET ${path}: ${res.status}, ${res.bytes} bytes`);
      return renderObjectYaml(a, res.body, new Date());
    } catch (e) {
      const p = describeConnectionError(e, { context: a.context, server: client.server });
      this.deps.log.warn(`yaml: GET ${path} failed: ${p.message}`);
      return renderFetchError(a, p.message);
    } finally {
      sub.dispose();
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
