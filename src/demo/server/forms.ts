/**
 * Response forms chosen by the Accept header (content negotiation), as the apiserver does:
 * the plain object, PartialObjectMetadata(List) (metadata only), and Table (server-side printing,
 * with kube-apiserver's columns for the built-ins printers.ts knows), in JSON, or in protobuf where
 * the request may have it (`offer`, below). The first media range in the Accept header that we can
 * serve wins.
 */
import type { DemoObject } from '../store';
import { parseAccept } from './discovery';
import { PROTOBUF_TYPE } from './exchange';
import { rowConditions, tableColumns, type Column } from './printers';
import { ApiError } from './status';

export type Form =
  { kind: 'object'; protobuf?: true } | { kind: 'metadata'; version: 'v1' | 'v1beta1'; protobuf?: true } | { kind: 'table'; version: 'v1' | 'v1beta1' };

/**
 * What a read (list, get, watch) can give in protobuf: the full object when `object` (a built-in
 * kind the demo has a schema for), and PartialObjectMetadata(List) v1 always, custom resources
 * included, as kube-apiserver encodes those itself. Without an offer protobuf ranges are passed
 * over, for JSON (writes answer JSON).
 */
export interface ProtobufOffer {
  object: boolean;
}

/**
 * The form of the answer. `target` is what one answer holds: a list, or one object (a get, and
 * each event of a watch: kube-apiserver transforms a watch's objects one by one, so a watch asks
 * for PartialObjectMetadata). When every range asked is protobuf and none can be served in it (a
 * custom resource's full objects), a 406, as kube-apiserver answers.
 */
export function negotiate(accept: string | undefined, target: 'list' | 'one', offer?: ProtobufOffer): Form {
  const ranges = parseAccept(accept);
  for (const m of ranges) {
    const as = m.params.as;
    if (m.type === PROTOBUF_TYPE && offer) {
      if (!as && offer.object) return { kind: 'object', protobuf: true };
      const wanted = target === 'list' ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
      if (as === wanted && m.params.g === 'meta.k8s.io' && m.params.v === 'v1') return { kind: 'metadata', version: 'v1', protobuf: true };
      continue;
    }
    const isJson = m.type === 'application/json' || m.type === '*/*' || m.type === 'application/*';
    if (!isJson) continue; // yaml, cbor, protobuf we do not serve: fall through to the next range, then to JSON
    if (!as) return { kind: 'object' };
    if (m.params.g !== 'meta.k8s.io' || (m.params.v !== 'v1' && m.params.v !== 'v1beta1')) continue;
    const version = m.params.v;
    if (as === 'Table') return { kind: 'table', version };
    if (as === 'PartialObjectMetadataList' && target === 'list') return { kind: 'metadata', version };
    if (as === 'PartialObjectMetadata' && target === 'one') return { kind: 'metadata', version };
  }
  if (offer && ranges.length > 0 && ranges.every((m) => m.type === PROTOBUF_TYPE)) {
    throw new ApiError(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml');
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
