/**
 * Response forms chosen by the Accept header (content negotiation), as the apiserver does:
 * the plain object (JSON; protobuf requests fall back to JSON), PartialObjectMetadata(List)
 * (metadata only), and Table (server-side printing, with kube-apiserver's columns for the built-ins printers.ts knows).
 * The first media range in the Accept header that we can serve wins.
 */
import type { DemoObject } from '../store';
import { parseAccept } from './discovery';
import { rowConditions, tableColumns, type Column } from './printers';

export type Form = { kind: 'object' } | { kind: 'metadata'; version: 'v1' | 'v1beta1' } | { kind: 'table'; version: 'v1' | 'v1beta1' };

export function negotiate(accept: string | undefined, target: 'list' | 'one'): Form {
  for (const m of parseAccept(accept)) {
    const as = m.params.as;
    const isJson = m.type === 'application/json' || m.type === '*/*' || m.type === 'application/*';
    if (!isJson) continue; // protobuf, yaml, cbor: fall through to the next range, then to JSON
    if (!as) return { kind: 'object' };
    if (m.params.g !== 'meta.k8s.io' || (m.params.v !== 'v1' && m.params.v !== 'v1beta1')) continue;
    const version = m.params.v;
    if (as === 'Table') return { kind: 'table', version };
    if (as === 'PartialObjectMetadataList' && target === 'list') return { kind: 'metadata', version };
    if (as === 'PartialObjectMetadata' && target === 'one') return { kind: 'metadata', version };
  }
  return { kind: 'object' };
}

/** A v1.36 apiserver labels every JSON form plain application/json (the as/g/v parameters are not echoed). */
export function formContentType(_f: Form, _target: 'list' | 'one'): string {
  return 'application/json';
}

export function partialObject(o: DemoObject, version: 'v1' | 'v1beta1' = 'v1') {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: o.metadata };
}

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function table(
  resource: string,
  group: string,
  items: readonly DemoObject[],
  meta: ListMeta | { resourceVersion?: string },
  opts: { version: 'v1' | 'v1beta1'; includeObject?: IncludeObject; noHeaders?: boolean; now: Date },
) {
  const columns: Column[] = tableColumns(group, resource);
  const include = opts.includeObject ?? 'Metadata';
  const rows = items.map((o) => {
    const row: { cells: unknown[]; object?: unknown; conditions?: unknown[] } = { cells: columns.map((c) => c.cell(o, opts.now)) };
    const conditions = rowConditions(group, resource, o);
    if (conditions) row.conditions = conditions;
    if (include === 'Metadata') row.object = partialObject(o, opts.version);
    else if (include === 'Object') row.object = o;
    return row;
  });
  const out: Record<string, unknown> = { kind: 'Table', apiVersion: `meta.k8s.io/${opts.version}`, metadata: meta };
  if (!opts.noHeaders) {
    out.columnDefinitions = columns.map(columnDefinition);
  }
  out.rows = rows;
  return out;
}

const partialJson = { v1: new WeakMap<object, string>(), v1beta1: new WeakMap<object, string>() };

/** partialObject(o) as JSON, cached per stored (frozen) object like the full forms' encodings. */
export function partialObjectJson(o: DemoObject, version: 'v1' | 'v1beta1' = 'v1'): string {
  let s = partialJson[version].get(o);
  if (s === undefined) partialJson[version].set(o, (s = JSON.stringify(partialObject(o, version))));
  return s;
}

/** A PartialObjectMetadataList as JSON text, each item from its cached encoding. */
export function metadataListJson(items: readonly DemoObject[], meta: ListMeta, version: 'v1' | 'v1beta1'): string {
  return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/${version}","metadata":${JSON.stringify(meta)},"items":[${items.map((o) => partialObjectJson(o, version)).join(',')}]}`;
}

/**
 * table(...) as JSON text, the same document: cells and conditions encoded per request (Age moves
 * with the clock), each row's PartialObjectMetadata from its cached encoding.
 */
export function tableJson(
  resource: string,
  group: string,
  items: readonly DemoObject[],
  meta: ListMeta | { resourceVersion?: string },
  opts: { version: 'v1' | 'v1beta1'; includeObject?: IncludeObject; noHeaders?: boolean; now: Date },
): string {
  const columns: Column[] = tableColumns(group, resource);
  const include = opts.includeObject ?? 'Metadata';
  const rows = items.map((o) => {
    const conditions = rowConditions(group, resource, o);
    const object = include === 'Metadata' ? partialObjectJson(o, opts.version) : include === 'Object' ? JSON.stringify(o) : undefined;
    return `{"cells":${JSON.stringify(columns.map((c) => c.cell(o, opts.now)))}${conditions ? `,"conditions":${JSON.stringify(conditions)}` : ''}${object ? `,"object":${object}` : ''}}`;
  });
  const head = `{"kind":"Table","apiVersion":"meta.k8s.io/${opts.version}","metadata":${JSON.stringify(meta)}`;
  const defs = opts.noHeaders ? '' : `,"columnDefinitions":${JSON.stringify(columns.map(columnDefinition))}`;
  return `${head}${defs},"rows":[${rows.join(',')}]}`;
}

function columnDefinition(c: Column) {
  return { name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority ?? 0 };
}

export function parseIncludeObject(v: string | null): IncludeObject | undefined {
  return v === 'None' || v === 'Metadata' || v === 'Object' ? v : undefined;
}
