/**
 * Label and field selectors, with the apiserver's grammar and semantics.
 *
 * Label selector requirements: `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`,
 * `k>n`, `k<n`, joined by commas. `!=` and `notin` also match objects without the label, as upstream.
 * Field selectors: `f=v`, `f==v`, `f!=v` over the fields a resource supports (metadata.name and
 * metadata.namespace everywhere, plus per-type fields); any other field is a 400, as upstream.
 */
import type { DemoObject } from '../store';
import { badRequest } from './status';

export type Matcher = (o: DemoObject) => boolean;

type LabelOp = 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';
interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

const keyRe = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const valueRe = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function parseLabelRequirement(raw: string): LabelRequirement {
  const s = raw.trim();
  const fail = (why: string) => badRequest(`unable to parse requirement: ${why}`);
  let m: RegExpExecArray | null;
  let req: LabelRequirement;
  if ((m = /^!\s*([^\s=!<>(),]+)$/.exec(s))) req = { key: m[1]!, op: '!exists', values: [] };
  else if ((m = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(s))) {
    const values = m[3]!.split(',').map((v) => v.trim());
    req = { key: m[1]!, op: m[2] as 'in' | 'notin', values };
  } else if ((m = /^([^\s=!<>(),]+)\s*(==|=|!=|>|<)\s*([^\s=!<>(),]*)$/.exec(s))) {
    const op = m[2] === '==' || m[2] === '=' ? '=' : m[2] === '!=' ? '!=' : m[2] === '>' ? 'gt' : 'lt';
    req = { key: m[1]!, op, values: [m[3]!] };
  } else if ((m = /^([^\s=!<>(),]+)$/.exec(s))) req = { key: m[1]!, op: 'exists', values: [] };
  else throw fail(`found '${s}', expected: key, !key, key=value, key!=value, key in (values), key notin (values)`);
  if (!keyRe.test(req.key) || req.key.length > 317) {
    throw fail(
      `key: Invalid value: "${req.key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  }
  for (const v of req.values) {
    if (req.op === 'gt' || req.op === 'lt') {
      if (!/^-?\d+$/.test(v)) throw fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
    } else if (!valueRe.test(v) || v.length > 63) {
      throw fail(
        `values[0][${req.key}]: Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      );
    }
  }
  return req;
}

function matchesLabel(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels![r.key]! : undefined;
  switch (r.op) {
    case 'exists':
      return has;
    case '!exists':
      return !has;
    case '=':
      return has && v === r.values[0];
    case '!=':
      return !has || v !== r.values[0];
    case 'in':
      return has && r.values.includes(v!);
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'gt':
      return has && /^-?\d+$/.test(v!) && Number(v) > Number(r.values[0]);
    case 'lt':
      return has && /^-?\d+$/.test(v!) && Number(v) < Number(r.values[0]);
  }
}

/** undefined when the selector is empty (matches everything). */
export function parseLabelSelector(sel: string | null | undefined): Matcher | undefined {
  if (!sel || !sel.trim()) return undefined;
  const reqs = splitTopLevel(sel).map(parseLabelRequirement);
  return (o) => reqs.every((r) => matchesLabel(r, o.metadata.labels));
}

/** Field paths each resource supports beyond metadata.name / metadata.namespace (upstream's field label conversions). */
const typeFields: Record<string, string[]> = {
  '/pods': [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  '/events': [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  '/secrets': ['type'],
  '/namespaces': ['status.phase'],
  '/nodes': ['spec.unschedulable'],
  '/replicationcontrollers': ['status.replicas'],
  'apps/replicasets': ['status.replicas'],
  'batch/jobs': ['status.successful'],
  'certificates.k8s.io/certificatesigningrequests': ['spec.signerName'],
  'events.k8s.io/events': ['regarding.kind', 'regarding.namespace', 'regarding.name', 'regarding.uid', 'reason', 'type'],
};

function fieldValue(o: DemoObject, path: string): string {
  if (path === 'source') return String((o as { source?: { component?: string } }).source?.component ?? '');
  let cur: unknown = o;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[p];
  }
  if (cur === undefined || cur === null) return path === 'spec.hostNetwork' || path === 'spec.unschedulable' ? 'false' : '';
  return String(cur);
}

export function parseFieldSelector(sel: string | null | undefined, group: string, resource: string): Matcher | undefined {
  if (!sel || !sel.trim()) return undefined;
  const allowed = new Set(['metadata.name', 'metadata.namespace', ...(typeFields[`${group}/${resource}`] ?? [])]);
  const reqs = sel.split(',').map((raw) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(raw);
    if (!m) throw badRequest(`invalid selector: '${sel}'; can't understand '${raw}'`);
    const field = m[1]!;
    if (!allowed.has(field)) throw badRequest(`field label not supported: ${field}`);
    return { field, neq: m[2] === '!=', value: m[3]! };
  });
  return (o) =>
    reqs.every((r) => {
      const v = fieldValue(o, r.field);
      return r.neq ? v !== r.value : v === r.value;
    });
}

/** Combines optional matchers; undefined when there is nothing to filter. */
export function both(a: Matcher | undefined, b: Matcher | undefined): Matcher | undefined {
  if (a && b) return (o) => a(o) && b(o);
  return a ?? b;
}
