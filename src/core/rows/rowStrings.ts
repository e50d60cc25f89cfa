/**
 * RowStrings: the few string values many rows repeat (a kind, a STATUS such as Running or
 * CrashLoopBackOff, a phase, a READY such as 1/1), each held once and named by a small number, so a
 * row stores two bytes per such column instead of a pointer to a string of its own.
 *
 * Guarantees:
 * - idOf(s) and valueOf(id) invert each other: valueOf(idOf(s)) === s for every s given an id.
 * - Bounded: at most MAX_ROW_STRINGS values, never forgotten (an id, once given, stays valid for
 *   every row that holds it). Past the bound idOf answers NO_ROW_STRING and the caller keeps that
 *   value another way (PackedRows keeps such a row whole).
 */
/** The id that names no string (a column's "absent"); one above the last id given. */
export const NO_ROW_STRING = 0xffff;
/** Ids are 0 .. MAX_ROW_STRINGS - 1: two bytes a column. */
export const MAX_ROW_STRINGS = 0xffff;

export class RowStrings {
  private readonly ids = new Map<string, number>();
  private readonly values: string[] = [];

  get size(): number {
    return this.values.length;
  }

  /** The id of `s`, given now if it has none; NO_ROW_STRING once the table is full. */
  idOf(s: string): number {
    const id = this.ids.get(s);
    if (id !== undefined) return id;
    if (this.values.length >= MAX_ROW_STRINGS) return NO_ROW_STRING;
    this.ids.set(s, this.values.length);
    this.values.push(s);
    return this.values.length - 1;
  }

  /** The id of `s` if it has one (never gives one). */
  find(s: string): number {
    return this.ids.get(s) ?? NO_ROW_STRING;
  }

  valueOf(id: number): string {
    return this.values[id]!;
  }
}
