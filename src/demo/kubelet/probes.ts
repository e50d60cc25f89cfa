/**
 * Probes, evaluated against what the simulated container listens on.
 *
 * A container listens on its declared `ports[].containerPort`, on the port of an `--http-port=N`
 * (or `--port=N`) argument, on 8080 when it runs agnhost `netexec` without that flag, and on the
 * well-known port of a few common images. httpGet / tcpSocket / grpc probes succeed exactly on
 * those ports; exec probes succeed unless the command says `false` or `exit N` (N > 0), or checks
 * a file (`cat /tmp/healthy`) that the container's script has not created or has removed.
 * The verdict depends only on the container spec (and its age), so it is computed once per
 * container start: a probe that can only succeed needs no periodic timer once its effect (started, ready) has been applied.
 *
 * Defaults and messages follow the kubelet: initialDelaySeconds 0, periodSeconds 10,
 * timeoutSeconds 1, successThreshold 1, failureThreshold 3; events say
 * `Liveness probe failed: Get "http://IP:PORT/PATH": dial tcp IP:PORT: connect: connection refused`.
 */
import { fileExists, statements, type FileTimeline } from './runtime';

export type ProbeType = 'liveness' | 'readiness' | 'startup';

export interface ContainerSpec {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  ports?: { containerPort?: number; name?: string; protocol?: string }[];
  livenessProbe?: ProbeSpec;
  readinessProbe?: ProbeSpec;
  startupProbe?: ProbeSpec;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  imagePullPolicy?: string;
  restartPolicy?: string;
  [k: string]: unknown;
}

export interface ProbeSpec {
  httpGet?: { path?: string; port?: number | string; host?: string; scheme?: string };
  tcpSocket?: { port?: number | string; host?: string };
  grpc?: { port?: number; service?: string };
  exec?: { command?: string[] };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

export interface ResolvedProbe {
  type: ProbeType;
  initialDelayMs: number;
  periodMs: number;
  successThreshold: number;
  failureThreshold: number;
  spec: ProbeSpec;
}

/** The exit code a command line fails with (`false` -> 1, `exit 3` -> 3), or undefined if it succeeds. */
export function commandFailureCode(argv: readonly unknown[]): number | undefined {
  const line = argv.map(String).join(' ');
  const exit = /\bexit\s+([1-9]\d*)\b/.exec(line);
  if (exit) return Number(exit[1]);
  return line.split(/[\s;&|()]+/).some((t) => t === 'false' || t.endsWith('/false')) ? 1 : undefined;
}

export const probeTitle: Record<ProbeType, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

export function resolveProbe(type: ProbeType, spec: ProbeSpec | undefined): ResolvedProbe | undefined {
  if (!spec || typeof spec !== 'object') return undefined;
  const pos = (v: unknown, d: number) => (typeof v === 'number' && v >= 1 ? v : d);
  return {
    type,
    initialDelayMs: (typeof spec.initialDelaySeconds === 'number' && spec.initialDelaySeconds > 0 ? spec.initialDelaySeconds : 0) * 1000,
    periodMs: pos(spec.periodSeconds, 10) * 1000,
    // successThreshold must be 1 for liveness and startup (API validation); honour it for readiness only.
    successThreshold: type === 'readiness' ? pos(spec.successThreshold, 1) : 1,
    failureThreshold: pos(spec.failureThreshold, 3),
    spec,
  };
}

const wellKnownPorts: [RegExp, number][] = [
  [/(^|\/)(nginx|httpd|caddy|traefik\/whoami)(:|@|$)/, 80],
  [/(^|\/)redis(:|@|$)/, 6379],
  [/(^|\/)(postgres|postgresql)(:|@|$)/, 5432],
  [/(^|\/)(mysql|mariadb)(:|@|$)/, 3306],
  [/(^|\/)memcached(:|@|$)/, 11211],
  [/(^|\/)mongo(:|@|$)/, 27017],
];

/** The TCP ports the simulated container accepts connections on. */
export function listeningPorts(c: ContainerSpec): Set<number> {
  const ports = new Set<number>();
  for (const p of c.ports ?? []) {
    if (typeof p?.containerPort === 'number' && (p.protocol === undefined || p.protocol === 'TCP')) ports.add(p.containerPort);
  }
  const argv = [...(c.command ?? []), ...(c.args ?? [])].map(String);
  let flagged = false;
  for (const a of argv) {
    const m = /^--?(?:http-port|port)=(\d+)$/.exec(a);
    if (m) {
      ports.add(Number(m[1]));
      flagged = true;
    }
  }
  for (let i = 0; i + 1 < argv.length; i++) {
    if (/^--?(?:http-port|port)$/.test(argv[i]!) && /^\d+$/.test(argv[i + 1]!)) {
      ports.add(Number(argv[i + 1]));
      flagged = true;
    }
  }
  if (!flagged && argv.includes('netexec')) ports.add(8080);
  const image = c.image ?? '';
  for (const [re, port] of wellKnownPorts) if (re.test(image)) ports.add(port);
  return ports;
}

export interface ProbeOutcome {
  ok: boolean;
  /** The event message on failure, e.g. `Liveness probe failed: ...`. */
  message?: string;
}

function resolvePort(port: number | string | undefined, c: ContainerSpec): { port?: number; error?: string } {
  if (typeof port === 'number') return { port };
  if (typeof port === 'string') {
    const named = c.ports?.find((p) => p?.name === port);
    if (named && typeof named.containerPort === 'number') return { port: named.containerPort };
    if (/^\d+$/.test(port)) return { port: Number(port) };
    return { error: `strconv.Atoi: parsing ${JSON.stringify(port)}: invalid syntax` };
  }
  return { error: 'invalid port number: 0' };
}

const hostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** A probe's result as a function of the container's age (simulated ms since it started). */
export type ProbeVerdict = { constant: ProbeOutcome } | { at: (elapsedMs: number) => ProbeOutcome };

/** The file an exec probe checks (`cat F`, `test -e F`, `[ -f F ]`, `ls F`, `stat F`), if any. */
function checkedFile(argv: readonly string[]): { file: string; cat: boolean } | undefined {
  for (const s of statements(argv)) {
    const cmd = s[0]!.slice(s[0]!.lastIndexOf('/') + 1);
    const operand = s.slice(1).find((a) => !a.startsWith('-') && a !== ']');
    if (operand && ['cat', 'ls', 'stat', 'test', '['].includes(cmd)) return { file: operand, cat: cmd === 'cat' };
  }
  return undefined;
}

/**
 * The probe's verdict for this container at this pod IP: constant unless an exec probe checks a
 * file the container's script creates or removes over time (the docs' `cat /tmp/healthy`).
 */
export function evaluateProbe(p: ResolvedProbe, c: ContainerSpec, podIP: string, files: FileTimeline = new Map()): ProbeVerdict {
  const title = probeTitle[p.type];
  const failed = (output: string): ProbeOutcome => ({ ok: false, message: `${title} probe failed: ${output}` });
  const errored = (err: string): ProbeVerdict => ({ constant: { ok: false, message: `${title} probe errored: ${err}` } });
  const ok: ProbeVerdict = { constant: { ok: true } };
  const s = p.spec;
  if (s.exec) {
    const argv = (s.exec.command ?? []).map(String);
    if (commandFailureCode(argv) !== undefined) return { constant: failed('') };
    const check = checkedFile(argv);
    if (!check) return ok;
    const missing = failed(check.cat ? `cat: can't open '${check.file}': No such file or directory` : '');
    if (!files.has(check.file)) return { constant: missing };
    return { at: (elapsed) => (fileExists(files, check.file, elapsed) ? { ok: true } : missing) };
  }
  const listening = listeningPorts(c);
  if (s.httpGet) {
    const r = resolvePort(s.httpGet.port, c);
    if (r.error) return errored(r.error);
    const host = s.httpGet.host || podIP;
    if (listening.has(r.port!) && host === podIP) return ok;
    const scheme = (s.httpGet.scheme ?? 'HTTP').toLowerCase();
    const addr = hostPort(host, r.port!);
    return { constant: failed(`Get "${scheme}://${addr}${s.httpGet.path ?? ''}": dial tcp ${addr}: connect: connection refused`) };
  }
  if (s.tcpSocket) {
    const r = resolvePort(s.tcpSocket.port, c);
    if (r.error) return errored(r.error);
    const host = s.tcpSocket.host || podIP;
    if (listening.has(r.port!) && host === podIP) return ok;
    return { constant: failed(`dial tcp ${hostPort(host, r.port!)}: connect: connection refused`) };
  }
  if (s.grpc) {
    const port = s.grpc.port ?? 0;
    if (listening.has(port)) return ok;
    return { constant: failed(`timeout: failed to connect service "${hostPort(podIP, port)}" within 1s: context deadline exceeded`) };
  }
  return errored('missing probe handler');
}

/** True when the probe can only ever succeed. */
export function alwaysSucceeds(v: ProbeVerdict): boolean {
  return 'constant' in v && v.constant.ok;
}
