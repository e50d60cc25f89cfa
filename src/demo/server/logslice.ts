/**
 * PodLogOptions as kube-apiserver decodes and validates them, and the kubelet's reading of a log
 * file with them (kuberuntime's ReadLogs): tailLines picks the last N lines first, then lines
 * older than the since-time are skipped, timestamps prefix each line with its RFC3339Nano time and
 * a space, and limitBytes cuts the output after that many bytes (mid-line if it falls there).
 *
 * Guarantee: pure (the current time is an argument).
 */
import type { LogEntry } from '../kubelet/logs';
import { badRequest, invalid } from './status';

export interface LogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  /** Wall ms: lines written before it are skipped (from sinceSeconds or sinceTime). */
  since?: number;
}

/** Go's strconv.ParseBool, as the query parameter conversion uses it. */
function bool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null || v === '') return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

function int(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** Decodes and validates the query (ValidatePodLogOptions: 422 Invalid for out-of-range values). */
export function parseLogOptions(q: URLSearchParams, podName: string, nowMs: number): LogOptions {
  const o: LogOptions = { follow: bool(q, 'follow'), previous: bool(q, 'previous'), timestamps: bool(q, 'timestamps') };
  const container = q.get('container');
  if (container) o.container = container;
  const tailLines = int(q, 'tailLines');
  const limitBytes = int(q, 'limitBytes');
  const sinceSeconds = int(q, 'sinceSeconds');
  const sinceTime = q.get('sinceTime');
  const causes: { field: string; reason: string; message: string }[] = [];
  const bad = (field: string, value: number, message: string) =>
    causes.push({ field, reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${message}` });
  if (tailLines !== undefined && tailLines < 0) bad('tailLines', tailLines, 'must be greater than or equal to 0');
  if (limitBytes !== undefined && limitBytes < 1) bad('limitBytes', limitBytes, 'must be greater than 0');
  if (sinceSeconds !== undefined && sinceTime) {
    causes.push({ field: 'sinceSeconds', reason: 'FieldValueForbidden', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' });
  } else if (sinceSeconds !== undefined && sinceSeconds < 1) bad('sinceSeconds', sinceSeconds, 'must be greater than 0');
  if (causes.length) throw invalid('PodLogOptions', podName, '', causes);
  if (tailLines !== undefined) o.tailLines = tailLines;
  if (limitBytes !== undefined) o.limitBytes = limitBytes;
  if (sinceSeconds !== undefined) o.since = nowMs - sinceSeconds * 1000;
  else if (sinceTime) {
    const t = Date.parse(sinceTime);
    if (!/^\d{4}-\d\d-\d\dT/.test(sinceTime) || Number.isNaN(t)) {
      throw badRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse`);
    }
    o.since = t;
  }
  return o;
}

/** Go's time.RFC3339Nano in UTC: nanoseconds with trailing zeros dropped (`...05.1234Z`, `...05Z`). */
export function rfc3339Nano(wallMs: number): string {
  const whole = Math.floor(wallMs);
  const base = new Date(whole).toISOString().slice(0, 19);
  const nanos = (whole % 1000) * 1_000_000 + Math.round((wallMs - whole) * 1_000_000);
  const frac = String(Math.min(nanos, 999_999_999)).padStart(9, '0').replace(/0+$/, '');
  return `${base}${frac ? `.${frac}` : ''}Z`;
}

/** One line as the kubelet writes it to the client. */
export function formatEntry(e: LogEntry, timestamps: boolean): string {
  return `${timestamps ? `${rfc3339Nano(e.wallMs)} ` : ''}${e.text}\n`;
}

/** tailLines first (the last N of the file), then the since-time filter. */
export function selectEntries(entries: readonly LogEntry[], o: Pick<LogOptions, 'tailLines' | 'since'>): LogEntry[] {
  const tail = o.tailLines === undefined ? entries : o.tailLines === 0 ? [] : entries.slice(-o.tailLines);
  return o.since === undefined ? [...tail] : tail.filter((e) => e.wallMs >= o.since!);
}

/** The text as UTF-8, cut to `budget` bytes (the kubelet's LimitedWriter counts bytes). */
export function cutToBytes(text: string, budget: number): Buffer {
  const buf = Buffer.from(text, 'utf8');
  return buf.length <= budget ? buf : buf.subarray(0, Math.max(0, budget));
}
