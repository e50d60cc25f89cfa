/**
 * What a simulated container's process does once started, read from its command line the way a
 * reader of the pod spec would: a shell script (`sh -c "touch /tmp/healthy; sleep 30; rm -f
 * /tmp/healthy; sleep 600"`) is played statement by statement (files appear and disappear, sleeps
 * take time, `exit N` / a final `false` fail, the end of the script exits 0); a program that is not
 * a shell utility (a server) runs until killed, except in Job-like pods (restartPolicy Never or
 * OnFailure) and init containers, where it does its work and completes after a short run.
 */
import type { ContainerSpec } from './probes';

export interface ExitPlan {
  /** Simulated milliseconds from start to exit. */
  afterMs: number;
  exitCode: number;
  /** The runtime's reason when it is not the exit code's (OOMKilled). */
  reason?: string;
}

/** When a file exists, in simulated ms since the container started (`to` undefined: until the end). */
export type FileTimeline = Map<string, { from: number; to?: number }[]>;

export interface ProcessPlan {
  exit?: ExitPlan;
  files: FileTimeline;
  /** PID 1 ignores SIGTERM (a shell without a trap, a bare sleep): only the grace period's SIGKILL stops it. */
  ignoresSigterm?: boolean;
}

/** How long a short-lived program runs before it exits, in simulated milliseconds. */
export const SHORT_RUN_MS = 1000;

/** Commands that finish promptly; any other command is a program that may run indefinitely. */
const UTILITIES = new Set([
  'echo',
  'printf',
  'touch',
  'rm',
  'sleep',
  'mkdir',
  'cat',
  'cp',
  'mv',
  'ls',
  'date',
  'true',
  'false',
  'exit',
  'set',
  'export',
  'cd',
  'test',
  '[',
  'chmod',
  'chown',
  'ln',
  'env',
  'hostname',
  'wget',
  'curl',
  'nslookup',
  'sync',
  'id',
]);

const SHELLS = /(^|\/)(sh|bash|ash|dash|zsh)$/;

/** Statements (as argv) the container runs: a shell's `-c` script split on ; && || and newlines, or argv itself. */
export function statements(argv: readonly string[]): string[][] {
  const script = shellScript(argv);
  if (script === undefined) return argv.length ? [[...argv]] : [];
  return shellStatements(script);
}

/** The script of a shell's `-c` (`sh -c SCRIPT`, or `-c SCRIPT` as args to a shell image), if argv is one. */
export function shellScript(argv: readonly string[]): string | undefined {
  const dashC = argv.indexOf('-c');
  return dashC >= 0 && dashC + 1 < argv.length && (SHELLS.test(argv[0]!) || dashC === 0) ? argv[dashC + 1] : undefined;
}

/** Words of a script, quote-aware; statements end at ; && || newlines outside quotes. */
export function shellStatements(script: string): string[][] {
  const out: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endStatement = () => {
    endWord();
    if (words.length) out.push(words);
    words = [];
  };
  for (let i = 0; i < script.length; i++) {
    const ch = script[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && /["\\$`]/.test(script[i + 1] ?? '')) word += script[++i];
      else word += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < script.length) {
      word += script[++i];
      inWord = true;
    } else if (ch === ';' || ch === '\n' || ((ch === '&' || ch === '|') && script[i + 1] === ch)) {
      if (ch === '&' || ch === '|') i++;
      endStatement();
    } else if (/\s/.test(ch)) {
      endWord();
    } else {
      word += ch;
      inWord = true;
    }
  }
  endStatement();
  return out;
}

/** sleep(1)'s operand in seconds (`30`, `1.5m`, `2h`), or undefined for `infinity` and the unparseable. */
export function seconds(arg: string | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(arg ?? '');
  if (!m) return undefined; // `infinity` or unparseable: forever
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}

/** Bytes of a Kubernetes quantity ("100Mi", "1G", "128974848") or a stress size ("250M" = MiB), or undefined. */
export function parseBytes(q: unknown, binary = false): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMGT]i?|[kmgt]|[BbEP]?)?$/.exec(String(q ?? '').trim());
  if (!m) return undefined;
  const unit = m[2] ?? '';
  const pow = { k: 1, K: 1, M: 2, G: 3, T: 4 }[unit[0] as 'k'] ?? 0;
  const base = unit.endsWith('i') || binary ? 1024 : 1000;
  return Number(m[1]) * base ** pow;
}

/**
 * A memory hog over its limit: `stress --vm-bytes 250M` (or stress-ng's) in a container whose
 * resources.limits.memory is smaller. The kernel's OOM killer ends it: exit code 137, reason
 * OOMKilled (the docs' memory-limit example).
 */
function oomPlan(argv: readonly string[], c: ContainerSpec): ExitPlan | undefined {
  const limit = parseBytes(c.resources?.limits?.memory);
  if (limit === undefined) return undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = a.startsWith('--vm-bytes=') ? a.slice('--vm-bytes='.length) : a === '--vm-bytes' ? argv[i + 1] : undefined;
    const bytes = v === undefined ? undefined : parseBytes(v, true);
    if (bytes !== undefined && bytes > limit) return { afterMs: SHORT_RUN_MS, exitCode: 137, reason: 'OOMKilled' };
  }
  return undefined;
}

export function planProcess(c: ContainerSpec, restartPolicy: string, isInit: boolean): ProcessPlan {
  const argv = [...(c.command ?? []), ...(c.args ?? [])].map(String);
  const oom = oomPlan(argv, c);
  if (oom) return { files: new Map(), exit: oom };
  const plan = planArgv(argv, c, restartPolicy, isInit);
  const first = argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '';
  const script = argv.indexOf('-c') >= 0 && SHELLS.test(argv[0] ?? '');
  if ((script && !argv.join(' ').includes('trap')) || first === 'sleep') plan.ignoresSigterm = true;
  return plan;
}

function planArgv(argv: string[], c: ContainerSpec, restartPolicy: string, isInit: boolean): ProcessPlan {
  const files: FileTimeline = new Map();
  const jobLike = (isInit && c.restartPolicy !== 'Always') || restartPolicy !== 'Always';
  const serves = argv.includes('netexec') || argv.includes('serve-hostname') || (c.ports?.length ?? 0) > 0;
  const program = (): ProcessPlan => ({ files, exit: jobLike && !serves ? { afterMs: SHORT_RUN_MS, exitCode: 0 } : undefined });
  const stmts = statements(argv);
  if (stmts.length === 0) return program();
  let t = 0;
  let lastFailed = false;
  for (const s of stmts) {
    const cmd = s[0]!.slice(s[0]!.lastIndexOf('/') + 1);
    const args = s.slice(1);
    lastFailed = false;
    if (/^(while|until|for)$/.test(cmd) || (cmd === 'tail' && args.includes('-f'))) return { files };
    if (!UTILITIES.has(cmd)) return program();
    if (cmd === 'sleep') {
      const n = seconds(args[0]);
      if (n === undefined) return { files };
      t += n * 1000;
    } else if (cmd === 'touch') {
      for (const f of args) if (!f.startsWith('-')) (files.get(f) ?? files.set(f, []).get(f)!).push({ from: t });
    } else if (cmd === 'rm') {
      for (const f of args) {
        const open = files.get(f)?.find((i) => i.to === undefined);
        if (open) open.to = t;
      }
    } else if (cmd === 'exit') {
      return { files, exit: { afterMs: Math.max(t, SHORT_RUN_MS), exitCode: Number(args[0] ?? 0) || 0 } };
    } else if (cmd === 'false') {
      lastFailed = true;
    }
    const redirect = s.findIndex((x) => x === '>' || x === '>>');
    if (redirect >= 0 && s[redirect + 1]) (files.get(s[redirect + 1]!) ?? files.set(s[redirect + 1]!, []).get(s[redirect + 1]!)!).push({ from: t });
  }
  return { files, exit: { afterMs: Math.max(t, SHORT_RUN_MS), exitCode: lastFailed ? 1 : 0 } };
}

export function fileExists(files: FileTimeline, path: string, atMs: number): boolean {
  return (files.get(path) ?? []).some((i) => i.from <= atMs && (i.to === undefined || atMs < i.to));
}
