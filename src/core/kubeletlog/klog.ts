/**
 * klog's text format, as a kubelet writes it to stderr (k8s.io/klog/v2, structured logging):
 *
 *   I1207 03:01:26.123456   12345 kubelet.go:2709] "SyncLoop ADD" source="api" pods=["default/probe-me"]
 *   E1207 03:01:27.000001   12345 kubelet.go:2646] "Skipping pod synchronization" err="PLEG is not healthy: ..."
 *
 * Header: severity (I, W, E, F), month and day, wall-clock time to the microsecond (the process's
 * time zone: run the kubelet with TZ=UTC), thread id, file:line. Then the message, quoted as Go's %q
 * for a structured call (an unstructured one is the bare text), then key=value pairs: a value is a
 * Go-quoted string, a bracketed or braced structure (`["a","b"]`, `{"ID":...}`, `&{...}`), or a bare
 * token. A multi-line string value is written `key=<` ... ` >` over several lines.
 *
 * Guarantees: parseKlogLine never throws; a line that is not a klog header line gives undefined
 * (the caller treats it as a continuation or noise). Values are kept as the text klog wrote (quotes
 * removed from strings), so nothing is guessed: the records layer (records.ts) reads what it needs.
 */
export type KlogSeverity = 'I' | 'W' | 'E' | 'F';

export interface KlogLine {
  severity: KlogSeverity;
  /** Wall-clock ms since the epoch, in UTC (the header has no year: the caller's year is used). */
  at: number;
  /** The header's time as written, "03:01:26.123456" (microseconds, for ordering ties). */
  time: string;
  thread: number;
  /** file:line of the call, e.g. "kubelet.go:2709". */
  source: string;
  /** The message, unquoted. */
  msg: string;
  /** key -> value, in order; string values unquoted, structures as written. */
  kv: Record<string, string>;
  /** The line as read. */
  raw: string;
}

const HEADER = /^([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6})\s+(\d+) ([^\]\s]+)\] ?(.*)$/;

/**
 * One klog line. `year` fills in the year klog leaves out (default: this year, UTC); a line dated
 * later than `notAfter` (ms) is taken as last year's (a log read across New Year).
 */
export function parseKlogLine(raw: string, year = new Date().getUTCFullYear(), notAfter?: number): KlogLine | undefined {
  const m = HEADER.exec(raw);
  if (!m) return undefined;
  const [, sev, mon, day, hh, mm, ss, us, thread, source, rest] = m;
  let at = Date.UTC(year, Number(mon) - 1, Number(day), Number(hh), Number(mm), Number(ss), Math.floor(Number(us) / 1000)) + (Number(us) % 1000) / 1000;
  if (notAfter !== undefined && at > notAfter + 86_400_000)
    at = Date.UTC(year - 1, Number(mon) - 1, Number(day), Number(hh), Number(mm), Number(ss), Math.floor(Number(us) / 1000));
  const { msg, kv } = parseBody(rest ?? '');
  return { severity: sev as KlogSeverity, at, time: `${hh}:${mm}:${ss}.${us}`, thread: Number(thread), source: source!, msg, kv, raw };
}

/** The message and key=value pairs after the header. */
export function parseBody(body: string): { msg: string; kv: Record<string, string> } {
  let i = 0;
  let msg: string;
  if (body.startsWith('"')) {
    const q = readQuoted(body, 0);
    msg = q.value;
    i = q.end;
  } else {
    // An unstructured line (klog.Infof): the whole body is the message.
    return { msg: body, kv: {} };
  }
  const kv: Record<string, string> = {};
  for (;;) {
    while (i < body.length && body[i] === ' ') i++;
    if (i >= body.length) break;
    const eq = body.indexOf('=', i);
    if (eq < 0) break;
    const key = body.slice(i, eq);
    if (!/^[A-Za-z0-9_.\-/]+$/.test(key)) break; // not a key: stop rather than guess
    const v = readValue(body, eq + 1);
    kv[key] = v.value;
    i = v.end;
  }
  return { msg, kv };
}

/** A value starting at `i`: a quoted string, a balanced structure, or a bare token up to a space. */
function readValue(s: string, i: number): { value: string; end: number } {
  const c = s[i];
  if (c === '"') return readQuoted(s, i);
  if (c === '[' || c === '{' || (c === '&' && s[i + 1] === '{')) return readBalanced(s, i);
  let j = i;
  while (j < s.length && s[j] !== ' ') j++;
  return { value: s.slice(i, j), end: j };
}

/** A Go-quoted string ("a\"b\n") from the quote at `i`; unterminated: to the end of the line. */
function readQuoted(s: string, i: number): { value: string; end: number } {
  let out = '';
  let j = i + 1;
  while (j < s.length) {
    const ch = s[j]!;
    if (ch === '"') return { value: out, end: j + 1 };
    if (ch === '\\' && j + 1 < s.length) {
      const n = s[j + 1]!;
      if (n === 'n') out += '\n';
      else if (n === 't') out += '\t';
      else if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(j + 2, j + 6))) {
        out += String.fromCharCode(parseInt(s.slice(j + 2, j + 6), 16));
        j += 6;
        continue;
      } else out += n;
      j += 2;
      continue;
    }
    out += ch;
    j++;
  }
  return { value: out, end: j };
}

/** A bracketed or braced structure from `i`, with strings inside skipped as strings; kept as written. */
function readBalanced(s: string, i: number): { value: string; end: number } {
  let depth = 0;
  let j = i;
  if (s[j] === '&') j++;
  for (; j < s.length; j++) {
    const ch = s[j];
    if (ch === '"') {
      j = readQuoted(s, j).end - 1;
      continue;
    }
    if (ch === '[' || ch === '{') depth++;
    else if (ch === ']' || ch === '}') {
      depth--;
      if (depth === 0) return { value: s.slice(i, j + 1), end: j + 1 };
    }
  }
  return { value: s.slice(i), end: s.length };
}

/** `["a/b","c/d"]` or `[a/b c/d]` (klog.KObjSlice, as JSON or as Go prints it) -> ['a/b', 'c/d']. */
export function parseList(v: string | undefined): string[] {
  if (!v) return [];
  const t = v.trim();
  if (t.startsWith('[')) {
    try {
      const j = JSON.parse(t) as unknown;
      if (Array.isArray(j)) return j.map(String);
    } catch {
      // Go's %v of a slice: [a b c]
    }
    return t
      .slice(1, -1)
      .split(/[\s,]+/)
      .map((x) => x.replace(/^"|"$/g, ''))
      .filter(Boolean);
  }
  return [t];
}

/**
 * A struct value as klog writes it: JSON (`{"ID":"u","Type":"ContainerStarted","Data":"c"}`) or
 * Go's %+v (`&{ID:u Type:ContainerStarted Data:c}`) -> its fields as strings.
 */
export function parseStruct(v: string | undefined): Record<string, string> {
  if (!v) return {};
  const t = v.trim().replace(/^&/, '');
  try {
    const j = JSON.parse(t) as unknown;
    if (j && typeof j === 'object' && !Array.isArray(j)) {
      return Object.fromEntries(Object.entries(j as Record<string, unknown>).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)]));
    }
  } catch {
    // Go's %+v
  }
  const out: Record<string, string> = {};
  const inner = t.replace(/^\{|\}$/g, '');
  for (const m of inner.matchAll(/(\w+):("(?:[^"\\]|\\.)*"|\S*)/g)) out[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  return out;
}
