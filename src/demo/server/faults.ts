/**
 * Fault injection, per route, switchable at run time.
 *
 * A FaultRule says what goes wrong (`kind`) and for which requests: it matches by method, verb
 * (list, get, watch, create, ...), group, resource, namespace and path prefix (unset = any), and
 * applies to every matching request, or only every `every`-th one, and at most `times` times.
 * Kinds: latency (delay, then answer normally), throttle (429 with Retry-After), error (a 5xx
 * Status), reset (destroy the socket), hang (never answer until the client goes away), malformed
 * (200 with a JSON body cut short where a value starts and '<html>' spliced in), expire-continue
 * (410 Expired on continue tokens), drop-events
 * (a watch silently skips live events: the first `dropCount`, a `dropFraction` spread evenly, or
 * every `dropEveryNth`; never the initial ADDED events or BOOKMARKs).
 *
 * Spec strings (CLI `--faults`, admin endpoint): rules separated by `;`, each `kind,key=value,...`,
 * e.g. `throttle,verb=list,resource=pods,times=3,retryAfter=1;latency,ms=200,group=apps`.
 * `resource` may be qualified (`deployments.apps`); `group=core` means the core group.
 */
export type FaultKind = 'latency' | 'throttle' | 'error' | 'reset' | 'hang' | 'malformed' | 'expire-continue' | 'drop-events';

export const FAULT_KINDS: readonly FaultKind[] = ['latency', 'throttle', 'error', 'reset', 'hang', 'malformed', 'expire-continue', 'drop-events'];

export interface FaultRule {
  kind: FaultKind;
  id?: string;
  method?: string;
  verb?: string;
  /** '' is the core group. */
  group?: string;
  resource?: string;
  namespace?: string;
  /** Matches paths that start with this (e.g. '/apis' for discovery). */
  path?: string;
  /** Apply at most this many times. */
  times?: number;
  /** Apply only to every k-th matching request. */
  every?: number;
  latencyMs?: number;
  retryAfterSeconds?: number;
  status?: number;
  dropCount?: number;
  dropFraction?: number;
  dropEveryNth?: number;
}

export interface FaultRuleState extends FaultRule {
  id: string;
  matched: number;
  applied: number;
}

export interface FaultRequest {
  method: string;
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
  path: string;
  /** The request carries a continue token (only those can be expired). */
  hasContinue: boolean;
}

export class FaultSpecError extends Error {}

export class FaultController {
  private rules: FaultRuleState[] = [];
  private seq = 0;

  constructor(initial: FaultRule[] | string = []) {
    for (const r of typeof initial === 'string' ? parseFaultSpec(initial) : initial) this.add(r);
  }

  /** Adds a rule (validated) and returns its id. */
  add(rule: FaultRule): string {
    validateRule(rule);
    const id = rule.id ?? `f${++this.seq}`;
    this.rules = this.rules.filter((r) => r.id !== id);
    this.rules.push({ ...rule, id, matched: 0, applied: 0 });
    return id;
  }

  /** Adds every rule of a spec string; returns their ids. */
  addSpec(spec: string): string[] {
    return parseFaultSpec(spec).map((r) => this.add(r));
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    return this.rules.length !== before;
  }

  clear(): void {
    this.rules = [];
  }

  list(): FaultRuleState[] {
    return this.rules.map((r) => ({ ...r }));
  }

  /** The rules that fire for this request, in the order they were added; counts matches and firings. */
  pick(req: FaultRequest): FaultRuleState[] {
    const fired: FaultRuleState[] = [];
    for (const r of this.rules) {
      if (!matches(r, req)) continue;
      r.matched++;
      if (r.every && r.every > 1 && r.matched % r.every !== 0) continue;
      if (r.times !== undefined && r.applied >= r.times) continue;
      r.applied++;
      fired.push(r);
    }
    return fired;
  }
}

function matches(r: FaultRule, q: FaultRequest): boolean {
  // Kinds that can only act on some requests match only those, so `times` counts real firings.
  if (r.kind === 'expire-continue' && !q.hasContinue) return false;
  if (r.kind === 'drop-events' && q.verb !== 'watch') return false;
  if (r.method && r.method.toUpperCase() !== q.method.toUpperCase()) return false;
  if (r.verb && r.verb !== q.verb) return false;
  if (r.group !== undefined && r.group !== q.group) return false;
  if (r.resource) {
    const dot = r.resource.indexOf('.');
    if (dot > 0) {
      if (r.resource.slice(0, dot) !== q.resource || r.resource.slice(dot + 1) !== q.group) return false;
    } else if (r.resource !== q.resource) return false;
  }
  if (r.namespace !== undefined && r.namespace !== q.namespace) return false;
  if (r.path && !q.path.startsWith(r.path)) return false;
  return true;
}

function validateRule(r: FaultRule): void {
  if (!FAULT_KINDS.includes(r.kind)) throw new FaultSpecError(`unknown fault kind "${String(r.kind)}"; use one of ${FAULT_KINDS.join(', ')}`);
  const nonNeg = (n: number | undefined, what: string) => {
    if (n !== undefined && (!Number.isFinite(n) || n < 0)) throw new FaultSpecError(`${what} must be a non-negative number`);
  };
  nonNeg(r.times, 'times');
  nonNeg(r.every, 'every');
  nonNeg(r.latencyMs, 'ms');
  nonNeg(r.retryAfterSeconds, 'retryAfter');
  nonNeg(r.dropCount, 'count');
  nonNeg(r.dropEveryNth, 'nth');
  if (r.status !== undefined && (r.status < 400 || r.status > 599)) throw new FaultSpecError('status must be 400..599');
  if (r.dropFraction !== undefined && !(r.dropFraction >= 0 && r.dropFraction <= 1)) throw new FaultSpecError('fraction must be in 0..1');
}

const numKeys: Record<string, keyof FaultRule> = {
  times: 'times',
  every: 'every',
  ms: 'latencyMs',
  latencyMs: 'latencyMs',
  retryAfter: 'retryAfterSeconds',
  retryAfterSeconds: 'retryAfterSeconds',
  status: 'status',
  count: 'dropCount',
  fraction: 'dropFraction',
  nth: 'dropEveryNth',
};
const strKeys = ['id', 'method', 'verb', 'group', 'resource', 'namespace', 'path'] as const;

export function parseFaultSpec(spec: string): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const part of spec
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [kind, ...kvs] = part.split(',').map((s) => s.trim());
    const rule: FaultRule = { kind: kind as FaultKind };
    for (const kv of kvs) {
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new FaultSpecError(`fault "${part}": expected key=value, got "${kv}"`);
      const k = kv.slice(0, eq);
      const v = kv.slice(eq + 1);
      if (k in numKeys) {
        const n = Number(v);
        if (!Number.isFinite(n)) throw new FaultSpecError(`fault "${part}": ${k} must be a number`);
        (rule as unknown as Record<string, unknown>)[numKeys[k]!] = n;
      } else if ((strKeys as readonly string[]).includes(k)) {
        (rule as unknown as Record<string, unknown>)[k] = k === 'group' && v === 'core' ? '' : v;
      } else {
        throw new FaultSpecError(`fault "${part}": unknown key "${k}"`);
      }
    }
    validateRule(rule);
    rules.push(rule);
  }
  return rules;
}
