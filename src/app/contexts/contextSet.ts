/**
 * Which contexts the tree shows beside the current one (`kubeloop.contexts`), and what each one's
 * row says about it. No 'vscode' import.
 *
 * The tree's first root is the current context (the target: `kubeloop.context`, Select Context,
 * the demo cluster): the sync loop, the status bar and YAML documents follow it. The contexts the
 * setting lists are shown after it, each loaded on its own when opened; one that is also the current
 * context is shown once, as the current one.
 */
import { formatCount } from '../../core/formatCount';
import { LOADING_ICON } from '../statusText';
import { redactUrl } from '../../core/kube/redactUrl';

/** The listed contexts to show beside `current`, in the setting's order, each once. */
export function extraContexts(listed: readonly string[], current: string | undefined): string[] {
  return [...new Set(listed)].filter((n) => n !== '' && n !== current);
}

/** The setting's list with `name` added at the end (unchanged when it is there). */
export function withContext(listed: readonly string[], name: string): string[] {
  return listed.includes(name) ? [...listed] : [...listed, name];
}

/** The setting's list without `name`. */
export function withoutContext(listed: readonly string[], name: string): string[] {
  return listed.filter((n) => n !== name);
}

/**
 * One context's state, as its row shows it.
 * - idle: listed, not opened yet: nothing was asked of its cluster (connect lazily);
 * - loading: a load runs (`objects` so far);
 * - loaded: the last load settled with this many objects (some types may have failed);
 * - unreachable: its cluster gave no sign of life in time; tried again at `retryAt` (Clock time),
 *   `retrying` while that try runs;
 * - failed: it answered but the load failed (credentials, rights, a broken kubeconfig entry): not
 *   retried by itself, since another try would fail the same way;
 * - cancelled: the user cancelled its load.
 */
export type ContextState =
  | { phase: 'idle' }
  | { phase: 'loading'; objects: number }
  | { phase: 'loaded'; objects: number; namespaces: number; failedTypes: number }
  | { phase: 'unreachable'; reason: string; retryAt?: number; retrying?: boolean }
  | { phase: 'failed'; reason: string }
  | { phase: 'cancelled'; objects: number };

export interface ContextRow {
  description: string;
  tooltip: string;
  /** Codicon id. */
  icon: string;
  tone: 'none' | 'error' | 'warning';
}

const fmt = formatCount;
const plural = (n: number, one: string) => `${fmt(n)} ${one}${n === 1 ? '' : 's'}`;

/** The row of context `name` (server: its API server, when known); `now` for "retrying in 8 s". */
export function contextRow(name: string, server: string | undefined, state: ContextState, now: number): ContextRow {
  const at = server ? `${name} (${redactUrl(server)})` : name;
  switch (state.phase) {
    case 'idle':
      return {
        description: 'not loaded',
        tooltip: `${at}: not loaded yet. Expand it, or run Load This Context, to load it.`,
        icon: 'server-environment',
        tone: 'none',
      };
    case 'loading':
      return {
        description: state.objects ? `loading… ${plural(state.objects, 'object')}` : 'loading…',
        tooltip: `${at}: loading`,
        icon: LOADING_ICON, // still, as in the status bar (statusText.ts)
        tone: 'none',
      };
    case 'loaded': {
      const failed = state.failedTypes ? `, ${plural(state.failedTypes, 'type')} failed` : '';
      return {
        description: `${plural(state.objects, 'object')}${failed}`,
        tooltip: `${at}: loaded ${plural(state.objects, 'object')} in ${plural(state.namespaces, 'namespace')}${failed}`,
        icon: 'server-environment',
        tone: state.failedTypes ? 'warning' : 'none',
      };
    }
    case 'unreachable': {
      const retry = state.retrying
        ? ' Trying again now.'
        : state.retryAt === undefined
          ? ''
          : ` Trying again in ${Math.max(1, Math.round((state.retryAt - now) / 1000))} s.`;
      return { description: `unreachable: ${state.reason}`, tooltip: `${at}: unreachable: ${state.reason}.${retry}`, icon: 'debug-disconnect', tone: 'error' };
    }
    case 'failed':
      return { description: `failed: ${state.reason}`, tooltip: `${at}: the load failed: ${state.reason}`, icon: 'error', tone: 'error' };
    case 'cancelled':
      return {
        description: `cancelled (${plural(state.objects, 'object')})`,
        tooltip: `${at}: load cancelled; ${plural(state.objects, 'object')} arrived before`,
        icon: 'server-environment',
        tone: 'warning',
      };
  }
}
