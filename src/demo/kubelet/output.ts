/**
 * What a simulated container writes to stdout/stderr, read from its command line and image the way
 * ./runtime.ts reads its exit (same statements, same sleeps, so a line's time agrees with the
 * container's timeline):
 * - a shell script's `echo` / `printf` print their text at their time (`$VAR` from the container's
 *   env or the script's own assignments, `$(date)` as date(1) prints the moment, `$((i+1))`
 *   counters); a redirection to a file prints nothing, `>&2` goes to stderr; a `while true` loop
 *   repeats its body every sum-of-its-sleeps, as a periodic series;
 * - agnhost `netexec` logs its start-up lines (Go's log package: `2006/01/02 15:04:05 ` prefix)
 *   and a `GET /path` line per HTTP probe request to its port;
 * - the official nginx image prints its docker-entrypoint lines and nginx's start-up notices
 *   (stderr), and an access-log line per HTTP probe request for `/`.
 * Anything else writes nothing.
 *
 * Guarantee: pure and deterministic. A plan's lines are functions of their wall time (and a
 * series' iteration), so a log can be produced lazily, for any span of time, without timers.
 */
import type { ContainerSpec, ProbeSpec } from './probes';
import { resolveProbe } from './probes';
import { seconds, shellScript, shellStatements } from './runtime';

export type LogStream = 'stdout' | 'stderr';

export interface OutputLine {
  /** Simulated ms since the container started (within a series: since the iteration began). */
  at: number;
  stream: LogStream;
  /** The line's text (no newline) written at wall time `wallMs`, in iteration `k` of its series. */
  text(wallMs: number, k: number): string;
}

/** Lines repeated every periodMs from fromMs on, for as long as the container runs. */
export interface OutputSeries {
  fromMs: number;
  periodMs: number;
  body: OutputLine[];
}

export interface OutputPlan {
  lines: OutputLine[];
  series: OutputSeries[];
}

export interface OutputContext {
  /** The node's IP, the source address of the kubelet's probe requests. */
  hostIP?: string;
  /** The pod's name, the container's $HOSTNAME. */
  podName?: string;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's log.LstdFlags prefix and nginx's error-log time: `2006/01/02 15:04:05` (UTC). */
export function logDate(wallMs: number): string {
  const d = new Date(Math.floor(wallMs));
  return `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** date(1) in the C locale, UTC: `Wed Dec  2 03:50:00 UTC 2026`. */
export function dateCommand(wallMs: number): string {
  const d = new Date(Math.floor(wallMs));
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} UTC ${d.getUTCFullYear()}`;
}

/** nginx's access-log time: `02/Dec/2026:03:50:00 +0000`. */
function nginxAccessDate(wallMs: number): string {
  const d = new Date(Math.floor(wallMs));
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

const fixed = (at: number, text: string, stream: LogStream = 'stdout'): OutputLine => ({ at, stream, text: () => text });
const goLog = (at: number, text: string): OutputLine => ({ at, stream: 'stderr', text: (w) => `${logDate(w)} ${text}` });

/** A variable's value: a literal string, or a counter (`i=0` then `i=$((i+1))` each iteration). */
type Value = { s: string } | { base: number; step: number };

/** Expands $VAR, ${VAR}, $(date), `date` and $((NAME+N)) in a word, at wall time w in iteration k. */
function expand(word: string, vars: Map<string, Value>, w: number, k: number): string {
  const val = (name: string): string => {
    const v = vars.get(name);
    if (!v) return '';
    return 's' in v ? v.s : String(v.base + v.step * k);
  };
  return word
    .replace(/\$\(\(\s*(\w+)\s*([+-])\s*(\d+)\s*\)\)/g, (_, n: string, op: string, d: string) =>
      String(Number(val(n) || 0) + (op === '+' ? 1 : -1) * Number(d)),
    )
    .replace(/\$\(\s*date\s*\)|`\s*date\s*`/g, () => dateCommand(w))
    .replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => val((a ?? b)!));
}

/** printf's format with %s/%d/%% and the backslash escapes; extra arguments reuse the format. */
function printf(format: string, args: string[]): string {
  let out = '';
  let i = 0;
  do {
    out += format
      .replace(/%([sd%])/g, (_, f: string) => (f === '%' ? '%' : (args[i++] ?? (f === 'd' ? '0' : ''))))
      .replace(/\\n/g, '\n')
      .replace(/\\t/g, '\t');
  } while (i > 0 && i < args.length);
  return out;
}

interface Printed {
  stream: LogStream;
  /** Text lines of one statement, at wall time w in iteration k. */
  lines: (w: number, k: number) => string[];
}

/** What one echo/printf statement prints, or undefined (another command, or redirected to a file). */
function printedBy(s: string[], vars: Map<string, Value>): Printed | undefined {
  const cmd = s[0]!.slice(s[0]!.lastIndexOf('/') + 1);
  if (cmd !== 'echo' && cmd !== 'printf') return undefined;
  let stream: LogStream = 'stdout';
  const args: string[] = [];
  for (let i = 1; i < s.length; i++) {
    const a = s[i]!;
    if (a === '>&2' || a === '1>&2') stream = 'stderr';
    else if (/^[12]?>>?$/.test(a))
      return undefined; // `> file`: into the file
    else if (/^[12]?>>?[^&]/.test(a)) return undefined;
    else args.push(a);
  }
  const snapshot = new Map(vars);
  if (cmd === 'printf') {
    if (!args.length) return undefined;
    return {
      stream,
      lines: (w, k) =>
        splitLines(
          printf(
            expand(args[0]!, snapshot, w, k),
            args.slice(1).map((a) => expand(a, snapshot, w, k)),
          ),
        ),
    };
  }
  let escapes = false;
  while (args[0] && /^-[neE]+$/.test(args[0])) escapes = args.shift()!.includes('e') || escapes;
  return {
    stream,
    lines: (w, k) => {
      const text = args.map((a) => expand(a, snapshot, w, k)).join(' ');
      return escapes ? text.split(/\\n/) : [text];
    },
  };
}

function splitLines(text: string): string[] {
  const parts = text.split('\n');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Lines one printed statement adds at `at`. */
function linesOf(p: Printed, at: number): OutputLine[] {
  // How many lines a statement prints does not depend on the time: evaluate once at 0.
  const n = p.lines(0, 0).length;
  return Array.from({ length: n }, (_, i) => ({ at, stream: p.stream, text: (w: number, k: number) => p.lines(w, k)[i] ?? '' }));
}

/** A shell script's output: echo/printf at their times, a `while true` loop as a series. */
function scriptOutput(script: string, env: Map<string, Value>): OutputPlan {
  const stmts = shellStatements(script);
  const vars = new Map(env);
  const lines: OutputLine[] = [];
  let t = 0;
  for (let i = 0; i < stmts.length; i++) {
    const s = stmts[i]!;
    const cmd = s[0]!.slice(s[0]!.lastIndexOf('/') + 1);
    if ((cmd === 'while' && /^(true|:)$/.test(s[1] ?? '')) || (cmd === 'until' && s[1] === 'false')) {
      const body: OutputLine[] = [];
      let bt = 0;
      const end = stmts.findIndex((b, j) => j > i && b[0] === 'done');
      const bodyStmts = stmts
        .slice(i + 1, end < 0 ? stmts.length : end)
        .map((b) => (b[0] === 'do' ? b.slice(1) : b))
        .filter((b) => b.length);
      const counterOf = (b: string[]) => {
        const m = /^(\w+)=\$\(\(\s*(\w+)\s*\+\s*(\d+)\s*\)\)$/.exec(b[0]!);
        return m && m[1] === m[2] && b.length === 1 ? { name: m[1]!, step: Number(m[3]) } : undefined;
      };
      // A counter (`i=$((i+1))`) is init + step*k in iteration k before its increment, one step more after.
      const loopVars = new Map(vars);
      const init = (name: string) => {
        const v = vars.get(name);
        return v && 's' in v ? Number(v.s) || 0 : 0;
      };
      for (const b of bodyStmts) {
        const c = counterOf(b);
        if (c) loopVars.set(c.name, { base: init(c.name), step: c.step });
      }
      for (const b of bodyStmts) {
        const c = counterOf(b);
        if (c) {
          loopVars.set(c.name, { base: init(c.name) + c.step, step: c.step });
          continue;
        }
        if (b[0] === 'sleep') bt += (seconds(b[1]) ?? Infinity) * 1000;
        const p = printedBy(b, loopVars);
        if (p) body.push(...linesOf(p, bt));
      }
      if (body.length && Number.isFinite(bt) && bt > 0) return { lines, series: [{ fromMs: t, periodMs: bt, body }] };
      return { lines, series: [] };
    }
    if (cmd === 'for' || cmd === 'tail') return { lines, series: [] };
    const assign = /^(\w+)=(.*)$/.exec(s[0]!);
    if (assign && s.length === 1) {
      vars.set(assign[1]!, { s: expand(assign[2]!, vars, 0, 0) });
      continue;
    }
    if (cmd === 'export' && s[1]?.includes('=')) {
      const [n, ...v] = s[1].split('=');
      vars.set(n!, { s: v.join('=') });
      continue;
    }
    if (cmd === 'sleep') {
      const n = seconds(s[1]);
      if (n === undefined) return { lines, series: [] };
      t += n * 1000;
      continue;
    }
    if (cmd === 'exit') break;
    const p = printedBy(s, vars);
    if (p) lines.push(...linesOf(p, t));
  }
  return { lines, series: [] };
}

/** The ports netexec listens on: --http-port (8080), --udp-port (8081, -1 = off). */
function netexecPorts(argv: string[]): { http: number; udp: number } {
  const flag = (name: string, d: number) => {
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      if (a.startsWith(`--${name}=`)) return Number(a.slice(name.length + 3));
      if (a === `--${name}` && argv[i + 1] !== undefined) return Number(argv[i + 1]);
    }
    return d;
  };
  return { http: flag('http-port', 8080), udp: flag('udp-port', 8081) };
}

/** The official nginx image run with its default command (or `nginx ...` as args). */
function isNginx(c: ContainerSpec): boolean {
  const image = (c.image ?? '').replace(/@.*$/, '');
  const repo = image.replace(/:[^/:]*$/, '');
  if (!/^((docker\.io\/)?library\/)?nginx$/.test(repo) && repo !== 'docker.io/nginx') return false;
  if (c.command?.length) return false;
  const first = c.args?.[0];
  return first === undefined || first === 'nginx' || first === 'nginx-debug';
}

function nginxVersion(image: string): string {
  const tag = /:([^/:@]+)(@|$)/.exec(image)?.[1] ?? 'latest';
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(tag);
  return m ? `${m[1]}.${m[2]}.${m[3] ?? '0'}` : '1.29.0';
}

function nginxStart(c: ContainerSpec): OutputLine[] {
  const e = '/docker-entrypoint.sh';
  const d = '/docker-entrypoint.d';
  const ipv6 = '10-listen-on-ipv6-by-default.sh';
  const alpine = /alpine/.test(c.image ?? '');
  const notice = (at: number, text: string): OutputLine => ({ at, stream: 'stderr', text: (w) => `${logDate(w)} [notice] 1#1: ${text}` });
  return [
    fixed(0, `${e}: ${d}/ is not empty, will attempt to perform configuration`),
    fixed(0, `${e}: Looking for shell scripts in ${d}/`),
    fixed(0, `${e}: Launching ${d}/${ipv6}`),
    fixed(0, `${ipv6}: info: Getting the checksum of /etc/nginx/conf.d/default.conf`),
    fixed(0, `${ipv6}: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf`),
    fixed(0, `${e}: Sourcing ${d}/15-local-resolvers.envsh`),
    fixed(0, `${e}: Launching ${d}/20-envsubst-on-templates.sh`),
    fixed(0, `${e}: Launching ${d}/30-tune-worker-processes.sh`),
    fixed(0, `${e}: Configuration complete; ready for start up`),
    notice(0, 'using the "epoll" event method'),
    notice(0, `nginx/${nginxVersion(c.image ?? '')}`),
    notice(0, alpine ? 'built by gcc 14.2.0 (Alpine 14.2.0) ' : 'built by gcc 12.2.0 (Debian 12.2.0-14) '),
    notice(0, 'OS: Linux 6.8.0-1019-kubeloop'),
    notice(0, 'getrlimit(RLIMIT_NOFILE): 1048576:1048576'),
    notice(0, 'start worker processes'),
    notice(0, 'start worker process 29'),
    notice(0, 'start worker process 30'),
  ];
}

/** The port number an HTTP probe asks, resolving a named port. */
function probePort(p: ProbeSpec, c: ContainerSpec): number | undefined {
  const port = p.httpGet?.port;
  if (typeof port === 'number') return port;
  const named = c.ports?.find((x) => x?.name === port)?.containerPort;
  return typeof named === 'number' ? named : /^\d+$/.test(String(port ?? '')) ? Number(port) : undefined;
}

/** netexec's log line for a request path: its handlers log their own path; `/` catches the rest. */
function netexecRequestLine(path: string): string {
  const p = path.split('?')[0]!;
  return ['/healthz', '/hostname', '/hostName', '/clientip', '/shutdown', '/upload'].includes(p) ? `GET ${p}` : 'GET /';
}

/**
 * The kubelet's HTTP probe requests that reach a server which logs them (netexec, nginx), as
 * series: every periodSeconds from initialDelaySeconds on. Probes of a served port always succeed
 * in the simulation, so each tick is one request and one line.
 */
function probeSeries(c: ContainerSpec, serves: { port: number; line: (path: string) => OutputLine }[]): OutputSeries[] {
  const out: OutputSeries[] = [];
  for (const type of ['startup', 'readiness', 'liveness'] as const) {
    const p = resolveProbe(type, c[`${type}Probe`] as ProbeSpec | undefined);
    if (!p?.spec.httpGet || (p.spec.httpGet.scheme ?? 'HTTP') !== 'HTTP') continue;
    const port = probePort(p.spec, c);
    const server = serves.find((s) => s.port === port);
    if (!server) continue;
    // A startup probe stops once it succeeded: its first request only.
    if (type === 'startup') out.push({ fromMs: p.initialDelayMs, periodMs: Number.MAX_SAFE_INTEGER, body: [server.line(p.spec.httpGet.path ?? '/')] });
    else out.push({ fromMs: p.initialDelayMs, periodMs: p.periodMs, body: [server.line(p.spec.httpGet.path ?? '/')] });
  }
  return out;
}

/** The output plan of one container instance. */
export function planOutput(c: ContainerSpec, ctx: OutputContext = {}): OutputPlan {
  const argv = [...(c.command ?? []), ...(c.args ?? [])].map(String);
  const env = new Map<string, Value>();
  if (ctx.podName) env.set('HOSTNAME', { s: ctx.podName });
  for (const e of (c.env as { name?: string; value?: unknown }[] | undefined) ?? []) {
    if (e?.name && typeof e.value === 'string') env.set(e.name, { s: e.value });
  }
  const script = shellScript(argv);
  if (script !== undefined) return scriptOutput(script, env);
  if (argv.includes('netexec')) {
    const { http, udp } = netexecPorts(argv);
    const lines = [goLog(0, `Started HTTP server on port ${http}`)];
    // netexec formats "port %s %d" with the listen address, empty when it binds to all.
    if (udp !== -1) lines.push(goLog(0, `Started UDP server on port  ${udp}`));
    return { lines, series: probeSeries(c, [{ port: http, line: (path) => goLog(0, netexecRequestLine(path)) }]) };
  }
  if (isNginx(c)) {
    const src = ctx.hostIP || '10.244.0.1';
    const access = (path: string): OutputLine => ({
      at: 0,
      stream: 'stdout',
      text: (w) => `${src} - - [${nginxAccessDate(w)}] "GET ${path} HTTP/1.1" 200 615 "-" "kube-probe/1.34" "-"`,
    });
    const served = [{ port: 80, line: access }];
    return {
      lines: nginxStart(c),
      series: probeSeries(c, served).filter((s) => ['/', '/index.html'].some((p) => s.body[0]!.text(0, 0).includes(`GET ${p} `))),
    };
  }
  if (argv[0] === 'echo' || argv[0]?.endsWith('/echo')) {
    const p = printedBy(argv, env);
    return { lines: p ? linesOf(p, 0) : [], series: [] };
  }
  return { lines: [], series: [] };
}
