/**
 * Which timeline marks are a container's restart, and whose logs they lead to: a PLEG ContainerDied
 * of a pod's container (not its sandbox). The previous instance of that container is the one that
 * died (once it restarted) or the one before it: `previous=true` reads the last terminated instance.
 * Both the webview (to offer "Previous logs") and the host (to resolve the mark from its own store)
 * use this one rule.
 */
import type { TimelineEvent } from '../core/timeline/events';
import type { TimelineStore } from '../core/timeline/store';

/** The pod container a restart mark is about; the kubeconfig context is the host's to add. */
export interface RestartLogsTarget {
  namespace: string;
  pod: string;
  /** Absent on marks made before the field existed: the pod's only container is read then. */
  container?: string;
}

/** The PLEG's stand-in ID for a pod sandbox (core/syncloop/pleg/generic.ts SANDBOX_ID). */
const SANDBOX_ID = '(sandbox)';

/** The restart mark's target, or undefined when `e` is not a restart mark of one pod. */
export function restartLogsTarget(e: TimelineEvent): RestartLogsTarget | undefined {
  if (e.kind !== 'iteration' || e.source !== 'pleg' || e.op !== 'ContainerDied' || e.data === SANDBOX_ID) return undefined;
  // A pod's key is `namespace/name`; other objects' carry a `resource:` prefix and are never PLEG's.
  const slash = e.key.indexOf('/');
  if (slash <= 0 || slash !== e.key.lastIndexOf('/') || slash === e.key.length - 1 || e.key.includes(':')) return undefined;
  return { namespace: e.key.slice(0, slash), pod: e.key.slice(slash + 1), ...(e.container ? { container: e.container } : {}) };
}

/**
 * The restart mark the id names in the host's own store, resolved there: an event's id is
 * `store.dropped + index` (see vscode/timeline/panel.ts), so an id of a dropped event, or of an event
 * that is no restart mark, resolves to undefined, whatever the webview believed it was.
 */
export function restartLogsTargetOf(store: Pick<TimelineStore, 'dropped' | 'at'>, eventId: number): RestartLogsTarget | undefined {
  const e = store.at(eventId - store.dropped);
  return e && restartLogsTarget(e);
}
