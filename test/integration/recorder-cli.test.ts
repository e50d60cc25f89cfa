/**
 * The flight recorder end to end, every part a real process over real sockets:
 * `kubeloop sync --record` records churn on the demo cluster and is SIGKILLed; the cut-off
 * recording opens; `kubeloop demo-cluster --replay` serves it; a second `kubeloop sync --record`
 * records the replay; both recordings hold the same objects at every keyframe of the first and
 * exactly the same number of changes per type and operation. A planted Secret value and the bearer
 * token appear in neither recording nor in their exports (raw and decompressed bytes), and the
 * trace export follows the Trace Event format's rules.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Recording } from '../../src/core/recorder/reader';
import { applyDelta } from '../../src/core/recorder/reader';
import { parseKey, type Obj } from '../../src/core/recorder/records';
import { eventually } from '../support/eventually';
import { runKubectl } from '../support/kubectl';
import { traceViolations } from '../support/traceRules';

const root = join(__dirname, '..', '..');
const never = new AbortController().signal;
const TOKEN = 'tok-planted-8c21f0aa5e';
const SECRET = 'planted-secret-value-73d1';

interface Proc {
  child: ChildProcess;
  exited: Promise<number | null>;
  readonly out: string;
}

function cli(args: string[]): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    get out() {
      return out;
    },
  };
}

async function demoUp(p: Proc): Promise<void> {
  await eventually(() => (p.child.exitCode !== null ? Promise.reject(new Error(`exited: ${p.out}`)) : /demo cluster: \S+/.test(p.out) || undefined), {
    description: `the demo cluster's url line (${p.out.slice(-300)})`,
    timeoutMs: 60_000,
  });
}

/** Opens the recording, or undefined while it is not there yet. */
async function tryOpen(path: string): Promise<Recording | undefined> {
  if (!existsSync(path)) return undefined;
  try {
    return await Recording.open(path, never);
  } catch {
    return undefined;
  }
}

/** What a replay keeps of an object: not the server's bookkeeping (managedFields are the replay server's own writes). */
function normal(o: Obj): Obj {
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, generation: _g, managedFields: _m, ...meta } = o.metadata as Obj;
  return { ...o, metadata: meta };
}

const typeOf = (key: string) => parseKey(key)!.type;

/** Per type and op, how many changes a recording holds. */
async function counts(rec: Recording): Promise<Record<string, number>> {
  const c: Record<string, number> = {};
  for await (const r of rec.records(never)) if (r.k === 'D') c[`${typeOf(r.key)} ${r.op}`] = (c[`${typeOf(r.key)} ${r.op}`] ?? 0) + 1;
  return c;
}

/** Each complete keyframe: how many changes of each type came before it, and its objects by type. */
async function keyframes(rec: Recording): Promise<{ seen: Map<string, number>; objects: Map<string, Map<string, Obj>> }[]> {
  const out: { seen: Map<string, number>; objects: Map<string, Map<string, Obj>> }[] = [];
  const seen = new Map<string, number>();
  let objects = new Map<string, Map<string, Obj>>();
  for await (const r of rec.records(never)) {
    if (r.k === 'D') seen.set(typeOf(r.key), (seen.get(typeOf(r.key)) ?? 0) + 1);
    else if (r.k === 'K') {
      const t = typeOf(r.key);
      if (!objects.has(t)) objects.set(t, new Map());
      objects.get(t)!.set(r.key, normal(r.o));
    } else if (r.k === 'KE') {
      out.push({ seen: new Map(seen), objects });
      objects = new Map();
    }
  }
  return out;
}

async function exportOf(path: string, format: 'trace' | 'jsonl', out: string): Promise<string> {
  const p = cli(['export', path, out, '--format', format]);
  assert.equal(await p.exited, 0, p.out);
  return readFileSync(out, 'utf8');
}

function assertClean(what: string, hay: string): void {
  for (const needle of [TOKEN, SECRET, Buffer.from(SECRET).toString('base64')]) assert.ok(!hay.includes(needle), `${what} holds ${needle}`);
}

describe('kubeloop sync --record, export and demo-cluster --replay', () => {
  it('records churn, survives SIGKILL, replays to the same objects at every keyframe, and never writes a Secret value or the token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-rec-'));
    const procs: Proc[] = [];
    const start = (args: string[]) => {
      const p = cli(args);
      procs.push(p);
      return p;
    };
    try {
      const kc = join(dir, 'kc');
      const rec1 = join(dir, 'one.klr');
      const demo = start(['demo-cluster', '--objects', '120', '--seed', '5', '--churn', '40', '--no-kubelet', '--token', TOKEN, '--kubeconfig-out', kc]);
      await demoUp(demo);
      const k1 = await runKubectl(['create', 'secret', 'generic', 'planted', '-n', 'default', `--from-literal=password=${SECRET}`], { kubeconfig: kc });
      assert.equal(k1.code, 0, k1.stderr);
      const watch = ['--watch', 'configmaps', '--watch', 'secrets'];
      const sync = start(['sync', '--kubeconfig', kc, ...watch, '--json', '--record', rec1, '--record-keyframe-seconds', '1']);
      // Enough churn for several keyframes.
      await eventually(
        async () => {
          const r = await tryOpen(rec1);
          const ok = r && r.keyframes.length >= 4 && (await counts(r))['pods M'] !== undefined;
          r?.close();
          return ok || undefined;
        },
        { description: 'a recording with 4 keyframes and pod changes', timeoutMs: 90_000 },
      );
      const k2 = await runKubectl(['create', 'secret', 'generic', 'planted-later', '-n', 'default', `--from-literal=token=${SECRET}`], { kubeconfig: kc });
      assert.equal(k2.code, 0, k2.stderr);
      await eventually(
        async () => {
          const r = await tryOpen(rec1);
          const has = r && (await r.objectsAt(Infinity, never)).has('secrets/default/planted-later');
          r?.close();
          return has || undefined;
        },
        { description: 'the Secret planted while recording is recorded', timeoutMs: 30_000 },
      );
      sync.child.kill('SIGKILL');
      assert.equal(await sync.exited, null);
      demo.child.kill('SIGINT');
      assert.equal(await demo.exited, 0, demo.out);

      // The cut-off recording opens and holds the churn.
      const one = await Recording.open(rec1, never);
      const c1 = await counts(one);
      const kf1 = await keyframes(one);
      const last = await one.objectsAt(Infinity, never);
      one.close();
      assert.ok(kf1.length >= 4, `keyframes ${kf1.length}`);
      assert.ok([...last.keys()].filter((k) => k.startsWith('pods/')).length > 0);
      assert.ok(last.has('secrets/default/planted'));

      // Replay it (4x), record the replay.
      const kc2 = join(dir, 'kc2');
      const rec2 = join(dir, 'two.klr');
      const replay = start(['demo-cluster', '--replay', rec1, '--speed', '4', '--replay-wait-watches', '4', '--token', TOKEN, '--kubeconfig-out', kc2]);
      await demoUp(replay);
      const sync2 = start(['sync', '--kubeconfig', kc2, ...watch, '--record', rec2]);
      await eventually(() => /replay: done \((\d+) changes applied, 0 skipped\)/.test(replay.out) || undefined, {
        description: `the replay to finish (${replay.out.slice(-300)})`,
        timeoutMs: 120_000,
      });
      const total = Object.values(c1).reduce((a, b) => a + b, 0);
      await eventually(
        async () => {
          const r = await tryOpen(rec2);
          const n = r ? Object.values(await counts(r)).reduce((a, b) => a + b, 0) : 0;
          r?.close();
          return n >= total || undefined;
        },
        { description: `the replay's recording to hold ${total} changes`, timeoutMs: 60_000 },
      );
      sync2.child.kill('SIGINT');
      assert.equal(await sync2.exited, 0, sync2.out);
      replay.child.kill('SIGINT');
      assert.equal(await replay.exited, 0, replay.out);

      const two = await Recording.open(rec2, never);
      assert.deepEqual(await counts(two), c1, 'the same changes per type and operation');
      // The replay's objects after as many changes of a type as the original had at each keyframe.
      const targets = new Map<string, { count: number; kf: number }[]>();
      kf1.forEach((k, i) => {
        for (const t of new Set([...k.seen.keys(), ...k.objects.keys()])) {
          if (!targets.has(t)) targets.set(t, []);
          targets.get(t)!.push({ count: k.seen.get(t) ?? 0, kf: i });
        }
      });
      const state = new Map<string, Map<string, Obj>>();
      const seen = new Map<string, number>();
      let compared = 0;
      const check = (t: string) => {
        for (const { count, kf } of targets.get(t) ?? []) {
          if (count !== (seen.get(t) ?? 0)) continue;
          const want = kf1[kf]!.objects.get(t) ?? new Map();
          const got = new Map([...(state.get(t) ?? new Map<string, Obj>())].map(([k, o]) => [k, normal(o)]));
          assert.deepEqual(Object.fromEntries(got), Object.fromEntries(want), `${t} at keyframe ${kf}`);
          compared++;
        }
      };
      for (const t of targets.keys()) check(t);
      for await (const r of two.records(never)) {
        if (r.k !== 'D') continue;
        const t = typeOf(r.key);
        if (!state.has(t)) state.set(t, new Map());
        applyDelta(state.get(t)!, r.key, r);
        seen.set(t, (seen.get(t) ?? 0) + 1);
        check(t);
      }
      two.close();
      assert.equal(
        compared,
        [...targets.values()].reduce((n, l) => n + l.length, 0),
        'every keyframe of every type compared',
      );

      // No Secret value, no token: raw bytes of every segment, the decompressed records, the trace.
      for (const p of [rec1, rec2]) {
        assertClean(`${p} (raw)`, readFileSync(p).toString('latin1'));
        const jsonl = await exportOf(p, 'jsonl', `${p}.jsonl`);
        assert.ok(jsonl.includes('secrets/default/planted'), 'the planted Secret is in the export (masked)');
        assertClean(`${p} (jsonl)`, jsonl);
        const trace = await exportOf(p, 'trace', `${p}.trace.json`);
        assertClean(`${p} (trace)`, trace);
        assert.deepEqual(traceViolations(trace).slice(0, 5), []);
        assert.ok((JSON.parse(trace) as { traceEvents: unknown[] }).traceEvents.length > 100);
      }
    } finally {
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
