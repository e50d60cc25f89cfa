/**
 * One object's YAML document as the editor shows it: the full object from one GET (even when the tree
 * was loaded metadata-only), rendered with Secret values masked, or a document that says why it
 * could not be fetched. No 'vscode' import: the provider passes the address and the editor's signal.
 *
 * Guarantee: answers within `timeoutMs` of the call, whatever the cluster does. Getting the client
 * (a connection may still be opening) and the GET with its retries share that one deadline: the
 * transport retries a timed-out GET, so a GET that was never answered held the editor blank for
 * minutes (six attempts of the request timeout), with nothing on screen or in the log. At the
 * deadline the document and a warning in the log say which step had no answer within it.
 */
import { abortReason, type Clock } from '../../core/clock';
import type { KubeClient } from '../../core/kube/client';
import { KubeTransportError } from '../../core/kube/errors';
import { resourcePath } from '../../core/kube/listwatch/paths';
import { describeConnectionError } from '../connection/connection';
import type { Logger } from '../logger';
import type { ObjectAddress } from './address';
import { renderFetchError, renderObjectYaml } from './render';

export interface YamlFetchDeps {
  /** The client for a context name, when the extension is connected to it. */
  client(context: string): Promise<KubeClient | undefined>;
  timeoutMs: number;
  clock: Clock;
  log: Logger;
}

const NOT_CONNECTED = 'KubeLoop is not connected to this context now. Select it (KubeLoop: Select Context) and open the object again.';

export async function fetchObjectYaml(a: ObjectAddress, deps: YamlFetchDeps, signal: AbortSignal): Promise<string> {
  const path = `${resourcePath({ group: a.group, version: a.version, resource: a.resource }, a.namespace)}/${encodeURIComponent(a.name)}`;
  let step = `connecting to context "${a.context}"`;
  const ac = new AbortController();
  const onAbort = () => ac.abort(abortReason(signal));
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  const timer = deps.clock.setTimer(deps.timeoutMs, () =>
    ac.abort(new KubeTransportError('timeout', `${step}: no answer within ${deps.timeoutMs / 1000} s`, path)),
  );
  let client: KubeClient | undefined;
  try {
    client = await untilAborted(deps.client(a.context), ac.signal);
    if (!client) return renderFetchError(a, NOT_CONNECTED);
    step = `GET ${path}`;
    deps.log.debug(`yaml: ${step}`);
    const res = await client.transport.getJson<Record<string, unknown>>({ path, signal: ac.signal, timeoutMs: deps.timeoutMs });
    // The log names the object, never its contents (a Secret's values must not reach the log).
    deps.log.debug(`yaml: GET ${path}: ${res.status}, ${res.bytes} bytes`);
    return renderObjectYaml(a, res.body, new Date());
  } catch (e) {
    const p = describeConnectionError(e, { context: a.context, ...(client ? { server: client.server } : {}) });
    deps.log.warn(`yaml: ${step} failed: ${p.message}`);
    return renderFetchError(a, p.message);
  } finally {
    timer.cancel();
    signal.removeEventListener('abort', onAbort);
  }
}

/** `p`, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    const done = () => signal.removeEventListener('abort', onAbort);
    void p.then(
      (v) => (done(), resolve(v)),
      (e: unknown) => (done(), reject(e as Error)),
    );
  });
}
