/**
 * Plans: a message's schema (schema.generated.ts) narrowed to the fields a pick names, ready for
 * the walker (walk.ts) and for the projection of a JSON object to the same fields (project).
 *
 * A pick speaks JSON: field names as the JSON form spells them, nested as the JSON nests them (the
 * fields of a Go `json:",inline"` struct, such as a Probe's handler or a Volume's source, sit at
 * their parent's level). `true` keeps a field whole; an object keeps the fields it names; the key
 * '*' keeps every field it does not name, and `false` leaves a field out of a '*'.
 *
 * Guarantees:
 * - A pick naming a field its message does not have throws when compiled (at module load, for the
 *   field sets of fieldsets.ts), so a typo never silently keeps nothing.
 * - Plans are built once per (message, pick object) and shared; a whole message (`true`) has one plan.
 * - What a plan renders for a field follows Go's encoding/json on the decoded Go struct: see
 *   `fill` and walk.ts.
 */
import { MESSAGES, type FieldDef } from './schema.generated';

export type Pick = true | { readonly [json: string]: Pick | false };

export const K_STRING = 0;
export const K_BYTES = 1;
export const K_BOOL = 2;
export const K_INT32 = 3;
export const K_INT64 = 4;
export const K_UINT32 = 5;
export const K_UINT64 = 6;
export const K_TIME = 7;
export const K_MICROTIME = 8;
export const K_FIELDSV1 = 9;
export const K_QUANTITY = 10;
export const K_INTORSTR = 11;
export const K_MESSAGE = 12;

const KIND_OF: Record<string, number> = {
  string: K_STRING,
  bytes: K_BYTES,
  bool: K_BOOL,
  int32: K_INT32,
  int64: K_INT64,
  uint32: K_UINT32,
  uint64: K_UINT64,
  Time: K_TIME,
  MicroTime: K_MICROTIME,
  FieldsV1: K_FIELDSV1,
  Quantity: K_QUANTITY,
  IntOrString: K_INTORSTR,
};

export const F_REPEATED = 1;
export const F_POINTER = 2;
export const F_OMITEMPTY = 4;
export const F_INLINE = 8;
export const F_MAP = 16;
/** Go's `omitzero`: a zero value is left out (metadata.creationTimestamp since apimachinery 0.36). */
export const F_OMITZERO = 32;

export interface FieldPlan {
  readonly number: number;
  /** JSON name; '' for an inlined struct (its fields are written into the parent). */
  readonly name: string;
  /** K_*: of the value, or of a map's values. */
  readonly kind: number;
  readonly flags: number;
  /** Wire type of one value (0 varint, 2 length-delimited). */
  readonly wire: number;
  /** Message kinds: the plan of the nested message. */
  readonly sub: MessagePlan | undefined;
}

export interface MessagePlan {
  readonly message: string;
  /** Kept fields by field number (undefined: skipped by length). */
  readonly byNumber: readonly (FieldPlan | undefined)[];
  /** Kept fields in number order. */
  readonly fields: readonly FieldPlan[];
  /** Kept fields Go's JSON writes even when the wire had none (see `needsFill`). */
  readonly fill: readonly FieldPlan[];
}

const WHOLE = new Map<string, MessagePlan>();
const PICKED = new Map<string, WeakMap<object, MessagePlan>>();

/** The plan of `message` narrowed to `pick`. */
export function compile(message: string, pick: Pick): MessagePlan {
  if (pick === true) {
    let p = WHOLE.get(message);
    if (!p) {
      p = build(message, true);
      WHOLE.set(message, p);
    }
    return p;
  }
  let byPick = PICKED.get(message);
  if (!byPick) PICKED.set(message, (byPick = new WeakMap()));
  let p = byPick.get(pick);
  if (!p) {
    p = build(message, pick);
    byPick.set(pick, p);
    const unknown = Object.keys(pick).filter((k) => k !== '*' && !jsonNames(message).has(k));
    if (unknown.length > 0) throw new Error(`protobuf field set: ${message} has no field ${unknown.map((k) => JSON.stringify(k)).join(', ')}`);
  }
  return p;
}

function defsOf(message: string): readonly FieldDef[] {
  const defs = MESSAGES[message];
  if (!defs) throw new Error(`protobuf schema: no message ${message}`);
  return defs;
}

/** The JSON names a message's JSON form has (an inlined struct's fields included). */
function jsonNames(message: string): Set<string> {
  const out = new Set<string>();
  for (const [, name, type, flags] of defsOf(message)) {
    if (flags & F_INLINE) for (const n of jsonNames(type)) out.add(n);
    else out.add(name);
  }
  return out;
}

function build(message: string, pick: Pick): MessagePlan {
  const defs = defsOf(message);
  // Sized up front and filled: a packed array (no holes) is what V8 indexes fastest.
  const byNumber: (FieldPlan | undefined)[] = Array.from({ length: (defs[defs.length - 1]?.[0] ?? 0) + 1 }, () => undefined);
  const fields: FieldPlan[] = [];
  const fill: FieldPlan[] = [];
  // A whole message's plan is registered before its fields are built: nothing in Kubernetes'
  // schema is recursive today, but a recursive one (JSONSchemaProps) must not loop here.
  const plan: MessagePlan = { message, byNumber, fields, fill };
  if (pick === true) WHOLE.set(message, plan);
  for (const [number, name, type, flags] of defs) {
    let sub: MessagePlan | undefined;
    if (flags & F_INLINE) {
      sub = compile(type, pick);
      if (sub.fields.length === 0) continue;
    } else {
      const p = pick === true ? true : name in pick ? pick[name] : pick['*'] === true ? true : undefined;
      if (p === undefined || p === false) continue;
      if (!(type in KIND_OF)) sub = compile(type, p);
      else if (p !== true) throw new Error(`protobuf field set: ${message}.${name} is a ${type}: keep it whole (true)`);
    }
    const kind = KIND_OF[type] ?? K_MESSAGE;
    if (flags & F_MAP && kind === K_MESSAGE) throw new Error(`protobuf schema: ${message}.${name}: map of ${type} values is not supported`);
    const isVarint = kind === K_BOOL || kind === K_INT32 || kind === K_INT64 || kind === K_UINT32 || kind === K_UINT64;
    const f: FieldPlan = { number, name, kind, flags, wire: isVarint && !(flags & F_MAP) ? 0 : 2, sub };
    byNumber[number] = f;
    fields.push(f);
    if (needsFill(f)) fill.push(f);
  }
  return plan;
}

/**
 * Whether Go's JSON writes the field when the wire had none (Go's zero value): a non-pointer
 * struct always (encoding/json's omitempty never omits a struct: `creationTimestamp: null`,
 * `status: {}`), an inlined struct's own fields, and anything without omitempty.
 */
function needsFill(f: FieldPlan): boolean {
  if (f.flags & F_OMITZERO) return false;
  if (f.flags & F_INLINE) return true;
  if (f.flags & (F_REPEATED | F_MAP)) return !(f.flags & F_OMITEMPTY);
  if (f.flags & F_POINTER) return !(f.flags & F_OMITEMPTY);
  if (f.kind === K_BYTES) return !(f.flags & F_OMITEMPTY);
  if (f.kind >= K_TIME) return true; // Time, MicroTime, FieldsV1, Quantity, IntOrString, messages: structs
  return !(f.flags & F_OMITEMPTY);
}

/** The JSON value Go writes for the field's zero value (see needsFill). */
export function zeroValue(f: FieldPlan): unknown {
  if (f.flags & (F_REPEATED | F_MAP | F_POINTER)) return null;
  switch (f.kind) {
    case K_STRING:
      return '';
    case K_BOOL:
      return false;
    case K_BYTES:
    case K_TIME:
    case K_MICROTIME:
    case K_FIELDSV1:
      return null;
    case K_QUANTITY:
      return '0';
    case K_MESSAGE: {
      const o: Record<string, unknown> = {};
      fillZeros(f.sub!, o);
      return o;
    }
    default:
      return 0;
  }
}

/** Sets every field of `plan.fill` that `o` does not have to its zero value (inlined ones into `o`). */
export function fillZeros(plan: MessagePlan, o: Record<string, unknown>): void {
  for (const f of plan.fill) {
    if (f.flags & F_INLINE) fillZeros(f.sub!, o);
    else if (o[f.name] === undefined) o[f.name] = zeroValue(f);
  }
}

type Json = Record<string, unknown>;

/**
 * A JSON object (as the API server's JSON form has it) narrowed to the plan's fields: what the
 * walker yields for the same object in protobuf. The parity tests' other side.
 */
export function project(o: unknown, plan: MessagePlan): unknown {
  if (o === null || typeof o !== 'object') return o;
  const out: Json = {};
  projectInto(o as Json, plan, out);
  return out;
}

function projectInto(o: Json, plan: MessagePlan, out: Json): void {
  for (const f of plan.fields) {
    if (f.flags & F_INLINE) {
      projectInto(o, f.sub!, out);
      continue;
    }
    if (!(f.name in o)) continue;
    const v = o[f.name];
    if (f.kind !== K_MESSAGE || v === null) out[f.name] = v;
    else if (f.flags & F_REPEATED) out[f.name] = (v as unknown[]).map((x) => project(x, f.sub!));
    else out[f.name] = project(v, f.sub!);
  }
}
