/**
 * The events of a watch, as bytes in the form negotiated (forms.ts): newline-delimited JSON
 * `{"type":..,"object":..}` (the object full, as PartialObjectMetadata, or as a one-row Table),
 * or protobuf frames (protobuf-forms.ts) of full objects or PartialObjectMetadata, as
 * kube-apiserver writes them. A bookmark is the watched kind (PartialObjectMetadata in a metadata
 * watch) with only its resourceVersion, and the initial-events-end annotation when it ends them.
 */
import type { DemoObject } from '../store';
import { type Form, parseIncludeObject, partialObject, table } from './forms';
import { PROTOBUF_WATCH_TYPE, protobufObject, protobufStatus, protobufTransient, protobufWatchFrame } from './protobuf-forms';
import { served, type ServerContext, type Target } from './serverContext';
import type { Exchange } from './exchange';
import type { Status } from './status';

export type WireType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEncoder {
  contentType: string;
  object(type: WireType, o: DemoObject): Buffer | string;
  bookmark(rv: string, initialEventsEnd?: boolean): Buffer | string;
  error(s: Status): Buffer | string;
}

export function watchEncoder(ctx: ServerContext, t: Target, x: Exchange, form: Form): WatchEncoder {
  const line = (type: WireType, object: unknown) => `${JSON.stringify({ type, object })}\n`;
  if (form.kind !== 'table' && form.protobuf) {
    const metadata = form.kind === 'metadata';
    return {
      contentType: PROTOBUF_WATCH_TYPE,
      object: (type, o) => protobufWatchFrame(type, protobufObject(t.apiVersion, t.type.kind, o, metadata)),
      bookmark: (rv, end) =>
        protobufWatchFrame(
          'BOOKMARK',
          metadata
            ? protobufTransient('meta.k8s.io/v1', 'PartialObjectMetadata', bookmark(t, rv, end))
            : protobufTransient(t.apiVersion, t.type.kind, bookmark(t, rv, end)),
        ),
      error: (s) => protobufWatchFrame('ERROR', protobufStatus(s)),
    };
  }
  let tableHeaderSent = false;
  const includeObject = parseIncludeObject(x.query.get('includeObject'));
  const render = (o: DemoObject): unknown => {
    if (form.kind === 'table') {
      const noHeaders = tableHeaderSent;
      tableHeaderSent = true;
      return table(
        t.resource,
        t.group,
        [o],
        { resourceVersion: o.metadata.resourceVersion },
        { version: form.version, includeObject, noHeaders, now: ctx.options.now() },
      );
    }
    if (form.kind === 'metadata') return partialObject(o, form.version);
    return served(t, o);
  };
  return {
    contentType: 'application/json',
    object: (type, o) => line(type, render(o)),
    bookmark: (rv, end) => line('BOOKMARK', bookmark(t, rv, end)),
    error: (s) => line('ERROR', s),
  };
}

function bookmark(t: Target, rv: string, initialEventsEnd = false) {
  const metadata: Record<string, unknown> = { resourceVersion: rv };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { kind: t.type.kind, apiVersion: t.apiVersion, metadata };
}
