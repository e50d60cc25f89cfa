// CPU time from /proc, per process and per role (the extension host, the workbench's renderers, the
// demo cluster...), over a window: what every process on the machine used while a figure was taken.
// A wall time says how long something took; on a 2-core machine shared by a browser, VS Code's
// server, the extension host and the cluster, the CPU beside it says who else had the cores.
// Linux only (the benches run there); USER_HZ is 100 on every Linux this runs on.
import { readdirSync, readFileSync } from 'node:fs';

/** CPU ms (user + system) from a /proc stat file (a process's, or one of its threads'). */
export function statCpuMs(path: string): number {
  const f = readFileSync(path, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * 10; // utime, stime in clock ticks (USER_HZ 100)
}

/** A process's CPU ms so far, or undefined once it is gone. */
export function pidCpuMs(pid: number): number | undefined {
  try {
    return statCpuMs(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
}

/**
 * CPU (ms) this process's threads have used, from /proc/self/task/TID/stat: the main thread and
 * all others together (Node names them all "node": V8's workers, which mark and compile in
 * parallel and concurrently, and libuv's pool). Clock ticks of 10 ms, so only sums over many
 * seconds mean anything.
 */
export function threadCpuMs(): { main: number; others: number } {
  const out = { main: 0, others: 0 };
  for (const tid of readdirSync('/proc/self/task')) {
    let ms: number;
    try {
      ms = statCpuMs(`/proc/self/task/${tid}/stat`);
    } catch {
      continue; // a thread that ended meanwhile
    }
    if (Number(tid) === process.pid) out.main += ms;
    else out.others += ms;
  }
  return out;
}

export interface CpuSnapshot {
  at: number;
  byPid: Map<number, { role: string; ms: number }>;
}

/**
 * Every process's CPU so far, each given a role by `roleOf(pid, cmdline)`. A process that exits
 * between two snapshots is missing from the later one and its last part is not counted: a window's
 * total is a lower bound when short-lived processes ran in it.
 */
export function cpuSnapshot(roleOf: (pid: number, cmdline: string) => string): CpuSnapshot {
  const at = performance.now();
  const byPid = new Map<number, { role: string; ms: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const pid = Number(d);
    try {
      const ms = statCpuMs(`/proc/${d}/stat`);
      const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
      byPid.set(pid, { role: roleOf(pid, cmdline), ms });
    } catch {
      // gone meanwhile, or a kernel thread without a readable cmdline
    }
  }
  return { at, byPid };
}

/** CPU ms by role between two snapshots (a process born in between counts from 0), largest first. */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): { wallMs: number; totalMs: number; byRole: [string, number][] } {
  const byRole = new Map<string, number>();
  for (const [pid, p] of b.byPid) {
    const d = p.ms - (a.byPid.get(pid)?.ms ?? 0);
    if (d > 0) byRole.set(p.role, (byRole.get(p.role) ?? 0) + d);
  }
  const sorted = [...byRole].sort((x, y) => y[1] - x[1]);
  return { wallMs: b.at - a.at, totalMs: sorted.reduce((s, [, ms]) => s + ms, 0), byRole: sorted };
}

/** "total 2,710 ms in 1,494 ms on 2 cores (91 %): extension host 1,450, ..." */
export function formatCpu(w: ReturnType<typeof cpuBetween>, cores: number): string {
  const busy = (100 * w.totalMs) / (w.wallMs * cores);
  return `${w.totalMs.toFixed(0)} ms of CPU in ${w.wallMs.toFixed(0)} ms on ${cores} cores (${busy.toFixed(0)} % busy): ${w.byRole.map(([r, ms]) => `${r} ${ms.toFixed(0)}`).join(', ')}`;
}
