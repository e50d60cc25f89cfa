/**
 * GET pods/{name}/log (`kubectl logs`). The kubelet simulation runs no processes, so a container
 * that has started has an empty log; the errors are the apiserver's: 404 for a missing pod, 400
 * when the container must be named or has not started yet.
 */
import type { ServerContext, Target } from './context';
import type { Exchange } from './exchange';
import { getNamed } from './list';
import { badRequest } from './status';

type Obj = Record<string, unknown>;

export function handlePodLog(ctx: ServerContext, t: Target, x: Exchange): void {
  const pod = getNamed(ctx, t, x);
  const spec = (pod.spec as { containers?: Obj[]; initContainers?: Obj[] } | undefined) ?? {};
  const names = (spec.containers ?? []).map((c) => String(c.name));
  const all = [...names, ...(spec.initContainers ?? []).map((c) => String(c.name))];
  let container = x.query.get('container') ?? '';
  if (!container) {
    if (names.length !== 1) {
      throw badRequest(`a container name must be specified for pod ${pod.metadata.name}, choose one of: [${names.join(' ')}]`);
    }
    container = names[0]!;
  }
  if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${pod.metadata.name}`);
  const statuses = [
    ...(((pod.status as Obj | undefined)?.containerStatuses as Obj[] | undefined) ?? []),
    ...(((pod.status as Obj | undefined)?.initContainerStatuses as Obj[] | undefined) ?? []),
  ];
  const st = statuses.find((s) => s.name === container);
  const state = (st?.state as Obj | undefined) ?? {};
  const started = state.running !== undefined || state.terminated !== undefined || (st?.lastState as Obj | undefined)?.terminated !== undefined;
  if (!started) {
    const reason = String(((state.waiting as Obj | undefined)?.reason as string | undefined) ?? 'ContainerCreating');
    throw badRequest(`container "${container}" in pod "${pod.metadata.name}" is waiting to start: ${reason}`);
  }
  if (x.closed) return;
  x.res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '0', 'Cache-Control': 'no-cache, private' });
  x.res.end();
}
