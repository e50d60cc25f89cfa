/**
 * The two ways a case meets the CLI, and what every run is held to.
 *
 * Deadlines (generous for a loaded 2-core CI machine; the figures file says what each run took):
 * - ERROR_WITHIN_MS: a run reports what was wrong within 45 s of its start. A hostile peer that
 *   only trickles is cut by the request deadline the runs set (REQUEST_TIMEOUT), so this is that
 *   deadline, its retries and the CLI's start with a wide margin.
 * - HANG_AFTER_MS: a child still running 5 s past that is killed and counted as a hang.
 * Memory: RSS_CAP_MIB is the peak RSS (VmHWM) a run may reach, the CLI's own ~90 MiB plus room;
 * a case whose peer sends bodies up to the transport's 512 MiB cap states its own cap. A child past
 * twice its cap is killed at once (child.ts).
 * Every run: no crash, no hang, no secret (the kubeconfig's token) in what it prints, and no raw
 * control character (ESC, BEL, C1: what makes a terminal obey) in what it prints, the CLI believing
 * both its outputs are terminals.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { applyDelta, Recording } from '../../../src/core/recorder/reader';
import { parseKey, type Obj } from '../../../src/core/recorder/records';
import { eventually } from '../../support/eventually';
import { cliHelp, startCli, type ChildResult } from './child';
import { TOKEN, type HostileCase, type TypeCount } from './fixture';
import { recordRun } from './figures';

export const ERROR_WITHIN_MS = 45_000;
export const HANG_AFTER_MS = ERROR_WITHIN_MS + 5_000;
export const RSS_CAP_MIB = 320;
/**
 * The request deadline the runs ask for (kubectl's flag and form), given to a command whose help
 * lists the flag: a CLI without it runs with its defaults (and a trickling peer then shows why the
 * flag is needed).
 */
const REQUEST_TIMEOUT = ['--request-timeout', '5s'];
async function requestTimeout(command: 'load' | 'sync'): Promise<string[]> {
  return (await cliHelp(command)).includes(REQUEST_TIMEOUT[0]!) ? REQUEST_TIMEOUT : [];
}

// C0 but tab and newline, DEL, C1.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const typeKey = (t: { group: string; resource: string }) => (t.group ? `${t.resource}.${t.group}` : t.resource);

/** What every run is held to (see the module comment). */
export function assertClean(what: string, r: ChildResult, capMiB = RSS_CAP_MIB): void {
  const tail = `\n--- stderr (end) ---\n${r.err.slice(-2000)}`;
  assert.ok(!r.hung, `${what}: still running after ${HANG_AFTER_MS / 1000} s, killed${tail}`);
  assert.ok(!r.crashed, `${what}: crashed (exit ${r.code}, signal ${r.signal})${tail}`);
  assert.ok(!r.overCap && r.peakRssMiB <= capMiB, `${what}: peak RSS ${r.peakRssMiB} MiB, over its cap of ${capMiB} MiB${r.overCap ? ' (killed)' : ''}`);
  for (const [name, text] of [
    ['stdout', r.out],
    ['stderr', r.err],
  ] as const) {
    assert.ok(!text.includes(TOKEN), `${what}: the bearer token is in its ${name}`);
    const m = RAW_CONTROL.exec(text);
    assert.ok(
      !m,
      `${what}: a raw control character U+${m?.[0].charCodeAt(0).toString(16).padStart(4, '0')} on its terminal ${name}, at: ${JSON.stringify(text.slice(Math.max(0, (m?.index ?? 0) - 60), (m?.index ?? 0) + 20))}`,
    );
  }
}

export interface LoadRun {
  r: ChildResult;
  /** The --json document, when the run printed one. */
  json?: {
    types: (TypeCount & { outcome: string })[];
    failed: { group: string; resource: string; message: string; status: number | null; reason: string | null }[];
  };
}

/** `kubeloop load` against the case's relay; figures recorded under `caseName`. */
export async function runLoad(caseName: string, c: HostileCase, args: string[], capMiB = RSS_CAP_MIB): Promise<LoadRun> {
  const child = await startCli(['load', '--kubeconfig', c.kubeconfig, '--no-discovery-cache', ...(await requestTimeout('load')), ...args], {
    hangAfterMs: HANG_AFTER_MS,
    killRssMiB: 2 * capMiB,
    cacheDir: c.cacheDir(),
  });
  const r = await child.done;
  recordRun(caseName, `load ${args.join(' ')}`.trim(), r);
  assertClean(`kubeloop load (${caseName})`, r, capMiB);
  assert.ok(r.ms <= ERROR_WITHIN_MS, `kubeloop load (${caseName}): ended after ${r.ms} ms, not within ${ERROR_WITHIN_MS} ms`);
  let json: LoadRun['json'];
  if (args.includes('--json')) {
    const line = r.out.trim().split('\n').pop() ?? '';
    if (line.startsWith('{')) json = JSON.parse(line);
  }
  return { r, json };
}

/**
 * Nothing lost: every type the demo itself gives (baseline) but the attacked ones loaded, each with
 * the demo's count; each attacked type failed with a message matching `why`.
 */
export function assertLoadedBut(run: LoadRun, baseline: TypeCount[], attacked: Record<string, RegExp>): void {
  assert.ok(run.json, `no --json document; stdout: ${run.r.out.slice(0, 500)}; stderr: ${run.r.err.slice(-1000)}`);
  const lost: string[] = [];
  for (const b of baseline) {
    if (typeKey(b) in attacked) continue;
    const got = run.json.types.filter((t) => t.group === b.group && t.resource === b.resource);
    const count = got.reduce((n, t) => n + t.count, 0);
    if (got.length === 0 || got.some((t) => t.outcome !== 'ok') || count !== b.count)
      lost.push(`${typeKey(b)}: ${got.map((t) => t.outcome).join(',') || 'absent'}, ${count} of ${b.count}`);
  }
  assert.deepEqual(lost, [], 'types not under attack that did not load whole');
  for (const [type, why] of Object.entries(attacked)) {
    const f = run.json.failed.find((x) => typeKey(x) === type);
    assert.ok(f, `${type}: not reported failed (failed: ${JSON.stringify(run.json.failed).slice(0, 500)})`);
    assert.match(`${f.status ?? ''} ${f.reason ?? ''}: ${f.message}`, why, `${type}: the reason does not say what was wrong`);
  }
}

export interface SyncRun {
  r: ChildResult;
  /** From the start to the error line (or to the healthy state when no error was expected). */
  msToError: number;
  recording: string;
}

/** `kubeloop export RECORDING - --format jsonl` to a terminal: what a user reading a tenant's recording sees. */
export async function runExport(caseName: string, c: HostileCase, recording: string): Promise<ChildResult> {
  const child = await startCli(['export', recording, '-', '--format', 'jsonl'], {
    hangAfterMs: HANG_AFTER_MS,
    killRssMiB: 2 * RSS_CAP_MIB,
    cacheDir: c.cacheDir(),
  });
  const r = await child.done;
  recordRun(caseName, 'export --format jsonl', r);
  assertClean(`kubeloop export (${caseName})`, r);
  assert.equal(r.code, 0, `kubeloop export (${caseName}): exit ${r.code}: ${r.err.slice(-1000)}`);
  return r;
}

/** The objects a recording (all its segments) holds at its end, by key. */
export async function recordedState(path: string): Promise<Map<string, Obj>> {
  const rec = await Recording.open(path, new AbortController().signal);
  const state = new Map<string, Obj>();
  try {
    for await (const r of rec.records(new AbortController().signal)) {
      if (r.k === 'K') state.set(r.key, r.o);
      else if (r.k === 'D') applyDelta(state, r.key, r);
    }
  } finally {
    rec.close();
  }
  return state;
}

/** Per type, the object keys a recording holds at its end. */
async function recordedKeys(path: string): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const key of (await recordedState(path)).keys()) {
    const t = parseKey(key)?.type ?? '?';
    if (!out.has(t)) out.set(t, new Set());
    out.get(t)!.add(key);
  }
  return out;
}

/** The recording's files' bytes (the file and its rotated segments). */
function recordingBytes(path: string): Buffer {
  const dir = dirname(path);
  return Buffer.concat(
    readdirSync(dir)
      .filter((f) => f.startsWith(basename(path)))
      .map((f) => readFileSync(join(dir, f))),
  );
}

/**
 * `kubeloop sync --record` watching `watch` (besides pods and Events) until stderr matches `error`
 * (when given) and the recording holds every object of `healthy` the demo holds; then Ctrl-C.
 */
export async function runSync(
  caseName: string,
  c: HostileCase,
  o: {
    watch: string[];
    error?: RegExp;
    healthy: { group: string; resource: string }[];
    capMiB?: number;
    /** Without --json: the handler log as text, as a user reads it. */
    text?: boolean;
    /** Run once the healthy state is recorded, before Ctrl-C (a case's edits). */
    then?: (recording: string) => Promise<void>;
  },
): Promise<SyncRun> {
  const capMiB = o.capMiB ?? RSS_CAP_MIB;
  const recording = join(c.dir, `sync-${Date.now()}.klr`);
  const args = [
    'sync',
    '--kubeconfig',
    c.kubeconfig,
    ...(o.text ? [] : ['--json']),
    '--record',
    recording,
    ...(await requestTimeout('sync')),
    ...o.watch.flatMap((w) => ['--watch', w]),
  ];
  const child = await startCli(args, { hangAfterMs: HANG_AFTER_MS, killRssMiB: 2 * capMiB, cacheDir: c.cacheDir() });
  let msToError = 0;
  let failure: unknown;
  // a child that ends by itself ends the waits at once, saying so
  const exited = new AbortController();
  child.child.once('exit', (code, signal) =>
    exited.abort(new Error(`kubeloop sync (${caseName}) exited by itself (${code ?? signal}); stderr: ${child.err.slice(-1500)}`)),
  );
  try {
    if (o.error) {
      const error = o.error;
      await eventually(
        () => {
          if (error.test(child.err)) return true;
          throw new Error(`stderr so far: ${child.err.slice(-1500) || '(nothing)'}`);
        },
        { description: `kubeloop sync (${caseName}) saying ${error}`, timeoutMs: ERROR_WITHIN_MS, signal: exited.signal },
      );
      msToError = Date.now() - child.startedAt;
    }
    const want = o.healthy.map((t) => ({ type: typeKey(t), count: c.demo.store.count(t.group, t.resource) }));
    if (want.length > 0)
      await eventually(
        async () => {
          const keys = await recordedKeys(recording).catch(() => new Map<string, Set<string>>());
          if (want.every((w) => (keys.get(w.type)?.size ?? 0) === w.count)) return true;
          throw new Error(`recorded: ${want.map((w) => `${w.type} ${keys.get(w.type)?.size ?? 0} of ${w.count}`).join(', ')}`);
        },
        {
          description: `the recording of kubeloop sync (${caseName}) holding every healthy object`,
          timeoutMs: ERROR_WITHIN_MS,
          maxIntervalMs: 500,
          signal: exited.signal,
        },
      );
    if (!o.error) msToError = Date.now() - child.startedAt;
    await o.then?.(recording);
  } catch (e) {
    failure = e;
  } finally {
    child.interrupt();
  }
  const r = await child.done;
  recordRun(caseName, `sync ${o.watch.map((w) => `--watch ${w}`).join(' ')}`.trim(), r, failure ? r.ms : msToError);
  assertClean(`kubeloop sync (${caseName})`, r, capMiB);
  if (failure) throw failure;
  assert.ok(r.code === 0 || r.code === 2, `kubeloop sync (${caseName}): exit ${r.code} after Ctrl-C${r.err.slice(-1000)}`);
  assert.ok(!recordingBytes(recording).includes(TOKEN), `kubeloop sync (${caseName}): the token is in the recording's bytes`);
  return { r, msToError, recording };
}
