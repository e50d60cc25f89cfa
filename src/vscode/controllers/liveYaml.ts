/**
 * The glue of live YAML documents (../yaml/live.ts): open `kubeloop:` documents are tracked, model
 * changes reach them, and a refresh fires the provider's change event, so VS Code fetches the object
 * again. Disposing it stops all of that and cancels pending refreshes.
 */
import * as vscode from 'vscode';
import { realClock } from '../../core/clock';
import type { Logger } from '../../app/logger';
import type { ResourceModel } from '../../app/model/resourceModel';
import { pathToAddress, YAML_SCHEME } from '../../app/yaml/address';
import { LiveDocuments, lookupIn } from '../../app/yaml/live';
import type { ResourceYamlProvider } from '../yaml/provider';

export function keepYamlLive(model: ResourceModel, yaml: ResourceYamlProvider, log: Logger): vscode.Disposable {
  const uris = new Map<string, vscode.Uri>();
  const live = new LiveDocuments(
    lookupIn(model),
    (id) => {
      const uri = uris.get(id);
      if (!uri) return;
      log.debug(`yaml: ${uri.path} changed in the model: fetching it again`);
      yaml.refresh(uri);
    },
    realClock,
  );
  const track = (doc: vscode.TextDocument) => {
    if (doc.uri.scheme !== YAML_SCHEME) return;
    const a = pathToAddress(doc.uri.path);
    if (!a) return;
    uris.set(doc.uri.toString(), doc.uri);
    live.track(doc.uri.toString(), a);
  };
  for (const doc of vscode.workspace.textDocuments) track(doc);
  const offModel = model.onChange((c) => live.onChange(c));
  const subs = [
    vscode.workspace.onDidOpenTextDocument(track),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      uris.delete(doc.uri.toString());
      live.untrack(doc.uri.toString());
    }),
  ];
  return new vscode.Disposable(() => {
    offModel();
    for (const s of subs) s.dispose();
    live.dispose();
    uris.clear();
  });
}
