/**
 * The three patch formats the apiserver accepts on PATCH, applied to plain JSON values:
 * - JSON merge patch (RFC 7386): objects merge recursively, null deletes, anything else replaces.
 * - strategic merge patch: a merge patch that also merges lists of objects by their `name` key
 *   (containers, env, ports, volumes: the merge key of most core lists) and honours the
 *   `$patch: delete|replace` directives; other `$` directives are dropped. This covers what
 *   kubectl sends for label, annotate, edit and apply on the fields users change.
 * - JSON patch (RFC 6902): add, remove, replace, move, copy, test.
 * Inputs are never mutated (stored objects are frozen); a new value is returned.
 */
import { ApiError } from './status';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v) as Json;
  }
  return out;
}

export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue; // $setElementOrder/, $deleteFromPrimitiveList/, $retainKeys: ordering hints we don't need
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = out[k];
    let next: unknown;
    if (Array.isArray(v) && Array.isArray(cur) && mergeable(cur) && mergeable(v)) next = mergeListByName(cur as JsonObject[], v as JsonObject[]);
    else if (Array.isArray(v)) next = v.filter((e) => !(isObject(e) && e.$patch === 'delete')).map(stripDirectives);
    else next = strategicMergePatch(cur, v);
    if (next === undefined) delete out[k];
    else out[k] = next as Json;
  }
  return out;
}

function mergeable(list: Json[]): boolean {
  return list.length > 0 && list.every((e) => isObject(e) && typeof e.name === 'string');
}

function mergeListByName(cur: JsonObject[], patch: JsonObject[]): JsonObject[] {
  const out = [...cur];
  for (const p of patch) {
    const i = out.findIndex((e) => e.name === p.name);
    if (p.$patch === 'delete') {
      if (i >= 0) out.splice(i, 1);
      continue;
    }
    if (i >= 0) out[i] = strategicMergePatch(out[i], p) as JsonObject;
    else out.push(stripDirectives(p) as JsonObject);
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = stripDirectives(x) as Json;
  return out;
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

function unprocessable(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

function parsePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw unprocessable(`the server rejected our request due to an error in our request: invalid JSON pointer "${p}"`);
  return p
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new ApiError(400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = clone(target);
  for (const raw of ops as JsonPatchOp[]) {
    const op = raw?.op;
    switch (op) {
      case 'add':
        doc = setAt(doc, parsePointer(raw.path), clone(raw.value), 'add');
        break;
      case 'replace':
        getAt(doc, parsePointer(raw.path), raw.path);
        doc = setAt(doc, parsePointer(raw.path), clone(raw.value), 'replace');
        break;
      case 'remove':
        doc = removeAt(doc, parsePointer(raw.path), raw.path);
        break;
      case 'move': {
        const v = getAt(doc, parsePointer(raw.from ?? ''), raw.from ?? '');
        doc = removeAt(doc, parsePointer(raw.from ?? ''), raw.from ?? '');
        doc = setAt(doc, parsePointer(raw.path), v, 'add');
        break;
      }
      case 'copy':
        doc = setAt(doc, parsePointer(raw.path), clone(getAt(doc, parsePointer(raw.from ?? ''), raw.from ?? '')), 'add');
        break;
      case 'test':
        if (JSON.stringify(getAt(doc, parsePointer(raw.path), raw.path)) !== JSON.stringify(raw.value)) {
          throw unprocessable(`the server rejected our request due to an error in our request: testing value ${raw.path} failed`);
        }
        break;
      default:
        throw unprocessable(`the server rejected our request due to an error in our request: Unexpected kind: ${String(op)}`);
    }
  }
  return doc;
}

function getAt(doc: unknown, path: string[], raw: string): unknown {
  let cur = doc;
  for (const seg of path) {
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isObject(cur)) cur = cur[seg];
    else cur = undefined;
    if (cur === undefined) throw unprocessable(`the server rejected our request due to an error in our request: path ${raw} not found`);
  }
  return cur;
}

function setAt(doc: unknown, path: string[], value: unknown, mode: 'add' | 'replace'): unknown {
  if (path.length === 0) return value;
  const parent = getAt(doc, path.slice(0, -1), `/${path.slice(0, -1).join('/')}`);
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length)
      throw unprocessable(`the server rejected our request due to an error in our request: array index ${last} out of bounds`);
    if (mode === 'add') parent.splice(i, 0, value as Json);
    else parent[i] = value as Json;
  } else if (isObject(parent)) {
    parent[last] = value as Json;
  } else {
    throw unprocessable(`the server rejected our request due to an error in our request: parent of /${path.join('/')} is not a container`);
  }
  return doc;
}

function removeAt(doc: unknown, path: string[], raw: string): unknown {
  getAt(doc, path, raw);
  const parent = getAt(doc, path.slice(0, -1), raw);
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (isObject(parent)) delete parent[last];
  return doc;
}
