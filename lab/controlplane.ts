// Test harness: a real etcd + kube-apiserver on loopback, started the way
// controller-runtime's envtest does it (no kubelet, no controller-manager).
// Binaries come from scripts/build-controlplane.sh (built from Go modules and
// cached outside the repo). Only node: builtins are imported on purpose, so the
// harness works before/without the extension's own dependencies.
import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { eventually, EventuallyTimeoutError } from '../test/support/eventually';
import { freePorts, launch, logTail, PortRaceError, PORT_IN_USE, terminate, type LabProcess } from './process';

export interface ControlPlane {
  server: string; // https://127.0.0.1:<port>
  kubeconfigPath: string;
  /** The admin kubeconfig's text with its context named `context` (default kubeloop) and given `extensions`. */
  kubeconfigText(context?: string, extensions?: { name: string; extension: unknown }[]): string;
  adminToken: string;
  caFile: string; // CA that signed the apiserver's self-signed serving cert
  dir: string; // temp dir holding everything; removed by stop()
  etcdUrl: string;
  stop(): Promise<void>;
  tokens: Record<string, string>; // user name -> bearer token (admin + extraUsers)
  /**
   * A rolling restart, as behind a load balancer: a second kube-apiserver with the same flags
   * binds the same port (SO_REUSEPORT), and once it is ready the first one is sent SIGTERM. The
   * old server closes its watches cleanly (--shutdown-watch-termination-grace-period) and stops
   * listening, so every reconnect lands on the new server, whose watch cache starts afresh.
   */
  restartApiserver(): Promise<void>;
  /**
   * Compacts etcd at its current revision (etcd's v3 JSON gateway, POST /v3/kv/compaction, physical)
   * and records it under compact_rev_key, the key the apiserver's own compactor writes and every
   * apiserver watches, so the watch cache also drops its list snapshots below it (it polls every
   * 15 s). Returns the compacted revision. Continue tokens and watches older than it get 410s.
   */
  compactEtcd(): Promise<number>;
  /** The apiserver's log so far (the current process's, after restarts). */
  apiserverLog(): string;
}

export interface ControlPlaneOptions {
  binDir?: string; // default: ensureControlPlaneBinaries()
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  etcdCompactionInterval?: string; // e.g. '1s'; apiserver-driven compaction (default 5m)
  extraUsers?: { name: string; token: string; groups?: string[] }[];
  signal?: AbortSignal;
  extraApiserverArgs?: string[]; // '--flag=value'; a later flag overrides an earlier one
  startTimeoutMs?: number; // whole start-up, until /readyz and the default namespace; default 90 s
  /**
   * Keep the ServiceAccount admission plugin on (pods get their kube-api-access projected volume, as
   * in any real cluster). Only with a controller manager running, whose serviceaccount controller
   * creates each namespace's `default` ServiceAccount: until then a pod is refused. Default off.
   */
  serviceAccountAdmission?: boolean;
}

const ADMIN_USER = 'kubeloop-admin';
const SCRIPT = path.resolve(__dirname, '../scripts/build-controlplane.sh');

let binaries: Promise<string> | undefined;

/** Runs scripts/build-controlplane.sh (a no-op when cached) once per process; resolves to its bin dir. */
export function ensureControlPlaneBinaries(): Promise<string> {
  binaries ??= new Promise<string>((resolve, reject) => {
    // A cold build of kube-apiserver takes many minutes on 2 cores: no timeout here.
    execFile('bash', [SCRIPT], { maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) {
        binaries = undefined; // let a later call retry
        reject(new Error(`${SCRIPT} failed (${err.message.split('\n')[0]}):\n${stderr}`));
        return;
      }
      const lines = stdout.trim().split('\n');
      resolve(lines[lines.length - 1]); // the script prints the bin dir last
    });
  });
  return binaries;
}

/** Starts etcd and kube-apiserver on free loopback ports; retries once if a port got taken meanwhile. */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binDir = opts.binDir ?? (await ensureControlPlaneBinaries());
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binDir, opts);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof PortRaceError)) throw err;
    }
  }
}

/** What every step of one start attempt shares: the binaries, the temp dir, the processes so far (in start order) and the deadline. */
interface Boot {
  readonly binDir: string;
  readonly dir: string;
  readonly procs: LabProcess[];
  readonly opts: ControlPlaneOptions;
  readonly deadline: number;
}

async function startOnce(binDir: string, opts: ControlPlaneOptions): Promise<ControlPlane> {
  opts.signal?.throwIfAborted();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeloop-cp-'));
  const [etcdClient, etcdPeer, apiPort] = await freePorts(3);
  const etcdUrl = `http://127.0.0.1:${etcdClient}`;
  const server = `https://127.0.0.1:${apiPort}`;
  const boot: Boot = { binDir, dir, procs: [], opts, deadline: Date.now() + (opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS) };
  const cleanup = installCleanup(boot);
  const { stop } = cleanup;
  try {
    boot.procs.push(launchBinary(binDir, 'etcd', etcdArgs(boot, etcdUrl, etcdPeer!), dir));
    cleanup.watchdog = startWatchdog(dir);
    await waitFor('etcd /health', boot.procs, opts, boot.deadline, async () => {
      const r = await request(`${etcdUrl}/health`, {});
      return (r.status === 200 && r.body.includes('"health":"true"')) || `${r.status} ${r.body.trim()}`;
    });

    const { adminToken, tokens } = writeCredentials(boot);
    const apiArgs = apiserverArgs(boot, etcdUrl, apiPort!);
    boot.procs.push(launchBinary(binDir, 'kube-apiserver', apiArgs, dir));
    const auth = { token: adminToken, insecure: true };
    await waitReady(boot, server, auth);
    const caFile = path.join(dir, 'ca.crt');
    const caWorks = await writeCa(dir, caFile, server, adminToken);

    // The apiserver creates the 'default' namespace a moment after it is ready.
    await waitFor('namespace "default"', boot.procs, opts, boot.deadline, async () => {
      const r = await request(`${server}/api/v1/namespaces/default`, auth);
      return r.status === 200 || `${r.status}`;
    });

    const kubeconfigPath = path.join(dir, 'kubeconfig');
    fs.writeFileSync(kubeconfigPath, kubeconfig(server, caWorks ? caFile : undefined, adminToken), { mode: 0o600 });
    const kubeconfigText = (context?: string, extensions?: { name: string; extension: unknown }[]) =>
      kubeconfig(server, caWorks ? caFile : undefined, adminToken, context, extensions);
    const restartApiserver = apiserverRestarter(boot, apiArgs, server, auth);
    const compactEtcd = () => compactEtcdAt(etcdUrl);
    const apiserverLog = (): string => fs.readFileSync(boot.procs[boot.procs.length - 1]!.logFile, 'utf8');
    return { server, kubeconfigPath, kubeconfigText, adminToken, caFile, dir, etcdUrl, stop, tokens, restartApiserver, compactEtcd, apiserverLog };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * stop() (idempotent; also on the signal) and the last-resort handlers for process exit and
 * termination signals, which kill what this attempt started and remove its dir. `watchdog` is
 * set once started, so both kill it too.
 */
function installCleanup(boot: Boot): { stop: () => Promise<void>; watchdog?: ChildProcess } {
  const { dir, procs, opts } = boot;
  let stopping: Promise<void> | undefined;
  const cleanup: { stop: () => Promise<void>; watchdog?: ChildProcess } = {
    stop: (): Promise<void> =>
      (stopping ??= (async () => {
        process.off('exit', onExit);
        for (const s of SIGNALS) process.off(s, onSignal);
        opts.signal?.removeEventListener('abort', onAbort);
        // apiserver first so it doesn't spend its last seconds retrying a dead etcd.
        for (const p of [...procs].reverse()) await terminate(p);
        cleanup.watchdog?.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      })()),
  };
  // Last-resort cleanup: 'exit' handlers must be synchronous. Everything started beside the
  // control plane (controller manager, scheduler, hollow kubelets) recorded its pid in <dir>/pids:
  // it goes too, before the watchdog that would have killed it.
  const onExit = (): void => {
    for (const p of procs) if (p.exitCode === undefined) p.child.kill('SIGKILL');
    for (const pid of recordedPids(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    cleanup.watchdog?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // Ctrl-C / runner timeouts: clean up, then die by the same signal as before.
  const onSignal = (sig: NodeJS.Signals): void => {
    onExit();
    for (const s of SIGNALS) process.off(s, onSignal);
    process.kill(process.pid, sig);
  };
  const onAbort = (): void => void cleanup.stop();
  process.on('exit', onExit);
  for (const s of SIGNALS) process.on(s, onSignal);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  return cleanup;
}

/** etcd: single member, throwaway data; no fsync since durability is irrelevant here. */
function etcdArgs(boot: Boot, etcdUrl: string, etcdPeer: number): string[] {
  const args = [
    '--name=kubeloop',
    `--data-dir=${path.join(boot.dir, 'etcd')}`,
    `--listen-client-urls=${etcdUrl}`,
    `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
    `--initial-cluster=kubeloop=http://127.0.0.1:${etcdPeer}`,
    '--log-level=warn',
  ];
  if (supportsFlag(boot.binDir, 'etcd', '--unsafe-no-fsync')) args.push('--unsafe-no-fsync');
  return args;
}

/** The service-account signing key pair and the static token file (admin + extraUsers) in the dir. */
function writeCredentials(boot: Boot): { adminToken: string; tokens: Record<string, string> } {
  const { dir, opts } = boot;
  const saKey = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  fs.writeFileSync(path.join(dir, 'sa.key'), saKey.privateKey, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'sa.pub'), saKey.publicKey);

  const adminToken = randomBytes(24).toString('hex');
  const tokens: Record<string, string> = { [ADMIN_USER]: adminToken };
  // token,user,uid,"group1,group2" (static token file format).
  const rows = [`${adminToken},${ADMIN_USER},${ADMIN_USER},"system:masters"`];
  for (const u of opts.extraUsers ?? []) {
    tokens[u.name] = u.token;
    rows.push(`${u.token},${u.name},${u.name}` + (u.groups?.length ? `,"${u.groups.join(',')}"` : ''));
  }
  fs.writeFileSync(path.join(dir, 'tokens.csv'), rows.join('\n') + '\n', { mode: 0o600 });
  return { adminToken, tokens };
}

/** kube-apiserver's flags: envtest's set, and the options'. */
function apiserverArgs(boot: Boot, etcdUrl: string, apiPort: number): string[] {
  const { dir, opts } = boot;
  const apiArgs = [
    `--etcd-servers=${etcdUrl}`,
    `--cert-dir=${path.join(dir, 'cert')}`, // no --tls-cert-file: apiserver writes a self-signed CA + serving cert here
    `--secure-port=${apiPort}`,
    '--bind-address=127.0.0.1', // also puts 127.0.0.1 into the serving cert's SANs
    '--advertise-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${path.join(dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${path.join(dir, 'sa.key')}`,
    `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
    '--authorization-mode=RBAC', // system:masters still bypasses authorization
    // Without a controller manager nothing creates the 'default' ServiceAccount, so the
    // ServiceAccount admission plugin would reject every Pod.
    ...(opts.serviceAccountAdmission ? [] : ['--disable-admission-plugins=ServiceAccount']),
    // restartApiserver(): a second server binds the same port while the first still serves.
    '--permit-port-sharing',
    // On SIGTERM, end watches at once (cleanly, as at their timeout) instead of waiting for them.
    '--shutdown-watch-termination-grace-period=2s',
  ];
  if (opts.maxRequestsInflight !== undefined) apiArgs.push(`--max-requests-inflight=${opts.maxRequestsInflight}`);
  if (opts.maxMutatingRequestsInflight !== undefined) apiArgs.push(`--max-mutating-requests-inflight=${opts.maxMutatingRequestsInflight}`);
  if (opts.etcdCompactionInterval !== undefined) apiArgs.push(`--etcd-compaction-interval=${opts.etcdCompactionInterval}`);
  apiArgs.push(...(opts.extraApiserverArgs ?? []));
  return apiArgs;
}

/** /readyz covers etcd, RBAC bootstrap roles and the other post-start hooks. */
async function waitReady(boot: Boot, server: string, auth: RequestOpts): Promise<void> {
  await waitFor('kube-apiserver /readyz', boot.procs, boot.opts, boot.deadline, async () => {
    const r = await request(`${server}/readyz?verbose`, auth); // verbose: lists the failing checks
    return (
      r.status === 200 ||
      `${r.status}: ${r.body
        .split('\n')
        .filter((l) => l.startsWith('[-]'))
        .join('; ')}`
    );
  });
}

/**
 * The self-signed apiserver.crt holds the serving cert followed by its CA; hand clients only the
 * CA, and prove it verifies before relying on it. False when it did not (caFile then holds the
 * whole bundle and the kubeconfig falls back to insecure-skip-tls-verify).
 */
async function writeCa(dir: string, caFile: string, server: string, adminToken: string): Promise<boolean> {
  const bundle = fs.readFileSync(path.join(dir, 'cert', 'apiserver.crt'), 'utf8');
  try {
    fs.writeFileSync(caFile, extractCa(bundle));
    await request(`${server}/version`, { token: adminToken, ca: fs.readFileSync(caFile) });
    return true;
  } catch {
    fs.writeFileSync(caFile, bundle);
    return false;
  }
}

/** ControlPlane.restartApiserver for this control plane. */
function apiserverRestarter(boot: Boot, apiArgs: string[], server: string, auth: RequestOpts): () => Promise<void> {
  const { binDir, dir, procs, opts } = boot;
  let restarts = 0;
  /** Starts a second apiserver on the same port and resolves once it serves and is ready. */
  const startSecond = async (): Promise<LabProcess> => {
    const next = launchBinary(binDir, 'kube-apiserver', apiArgs, dir, `kube-apiserver-${++restarts}`);
    procs.push(next);
    const until = Date.now() + (opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
    try {
      // Until the new server listens, every answer is the old one's; after that the kernel spreads
      // new connections over both, so a run of fresh-connection 200s means the new one is ready too.
      await waitFor(
        'the new kube-apiserver to listen',
        [procs[0]!, next],
        opts,
        until,
        async () => fs.readFileSync(next.logFile, 'utf8').includes('Serving securely on') || 'not yet',
      );
      let streak = 0;
      await waitFor('both kube-apiservers /readyz', [procs[0]!, next], opts, until, async () => {
        const r = await request(`${server}/readyz`, auth);
        streak = r.status === 200 ? streak + 1 : 0;
        return streak >= 16 || `${r.status} (${streak} in a row)`;
      });
      return next;
    } catch (e) {
      await terminate(next);
      procs.splice(procs.indexOf(next), 1);
      throw e;
    }
  };
  return async (): Promise<void> => {
    const old = procs[procs.length - 1]!;
    try {
      await startSecond();
    } catch (e) {
      // Seen once on a saturated machine: the new server's post-start IP repair did not finish
      // within its one minute and it exited. That is the harness's trouble, not the test's: once more.
      if (opts.signal?.aborted) throw e;
      await startSecond();
    }
    await terminate(old);
    procs.splice(procs.indexOf(old), 1);
  };
}

/** ControlPlane.compactEtcd. */
async function compactEtcdAt(etcdUrl: string): Promise<number> {
  const b64 = (t: string) => Buffer.from(t).toString('base64');
  const head = JSON.parse((await post(`${etcdUrl}/v3/kv/range`, { key: b64('compact_rev_key') })).body) as { header: { revision: string } };
  const revision = Number(head.header.revision);
  const done = await post(`${etcdUrl}/v3/kv/compaction`, { revision: String(revision), physical: true });
  if (done.status !== 200) throw new Error(`etcd compaction at ${revision}: ${done.status} ${done.body}`);
  const put = await post(`${etcdUrl}/v3/kv/put`, { key: b64('compact_rev_key'), value: b64(String(revision)) });
  if (put.status !== 200) throw new Error(`etcd put compact_rev_key: ${put.status} ${put.body}`);
  return revision;
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const DEFAULT_START_TIMEOUT_MS = 90_000;

function launchBinary(binDir: string, name: string, args: string[], dir: string, logName = name): LabProcess {
  return launch(path.join(binDir, name), args, { name, logFile: path.join(dir, `${logName}.log`), pidsFile: path.join(dir, 'pids') });
}

/**
 * A SIGKILLed test process runs no handlers, so a small shell watches our pid
 * and kills whatever launch() recorded in <dir>/pids if we vanish without stop().
 */
function startWatchdog(dir: string): ChildProcess {
  const script = 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -9 $(cat "$2/pids") 2>/dev/null; rm -rf "$2"';
  const w = spawn('sh', ['-c', script, 'watchdog', String(process.pid), dir], { stdio: 'ignore' });
  w.unref();
  return w;
}

const helpTexts = new Map<string, string>();
function supportsFlag(binDir: string, name: string, flag: string): boolean {
  const bin = path.join(binDir, name);
  let help = helpTexts.get(bin);
  if (help === undefined) {
    try {
      help = execFileSync(bin, ['--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      // Some versions print --help to stderr or exit non-zero.
      help = `${(e as { stdout?: string }).stdout ?? ''}${(e as { stderr?: string }).stderr ?? ''}`;
    }
    helpTexts.set(bin, help);
  }
  return help.includes(flag);
}

/**
 * Waits (with `eventually`, checks at most 200 ms apart) until ok() says true (or gives the reason it
 * is not yet), bounded by the shared start deadline. A process of the control plane that exits ends
 * the wait at once with its logs (a port race as PortRaceError), never at the deadline.
 */
async function waitFor(what: string, procs: LabProcess[], opts: ControlPlaneOptions, deadline: number, ok: () => Promise<true | string>): Promise<void> {
  const died = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, died.signal]) : died.signal;
  try {
    await eventually(
      async () => {
        const dead = procs.find((p) => p.exitCode !== undefined);
        if (dead) {
          const logs = tails(procs);
          died.abort(
            PORT_IN_USE.test(logs)
              ? new PortRaceError(`port race while waiting for ${what}\n${logs}`, dead)
              : new Error(`${dead.name} exited (code ${dead.exitCode}) while waiting for ${what}\n${logs}`),
          );
          return false;
        }
        const r = await ok();
        if (r !== true) throw new Error(r);
        return true;
      },
      { description: what, timeoutMs: Math.max(0, deadline - Date.now()), signal, maxIntervalMs: 200 },
    );
  } catch (e) {
    if (!(e instanceof EventuallyTimeoutError)) throw e;
    const ms = opts.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    throw new Error(`control plane not up within ${ms} ms: timed out waiting for ${what} (last: ${e.lastFailure})\n${tails(procs)}`);
  }
}

function tails(procs: LabProcess[], n = 25): string {
  return procs.map((p) => logTail(p, n)).join('\n');
}

/** The pids launched processes recorded in <dir>/pids (none when it is gone). */
function recordedPids(dir: string): number[] {
  try {
    return fs
      .readFileSync(path.join(dir, 'pids'), 'utf8')
      .split('\n')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0);
  } catch {
    return [];
  }
}

function extractCa(bundle: string): string {
  const pems = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const ca = pems.find((p) => new X509Certificate(p).ca);
  return (ca ?? pems[pems.length - 1] ?? bundle) + '\n';
}

/** A kubeconfig for the admin user: one cluster, one user, one context (named `context`, with `extensions` if given). */
function kubeconfig(
  server: string,
  caFile: string | undefined,
  token: string,
  context = 'kubeloop',
  extensions?: { name: string; extension: unknown }[],
): string {
  // JSON-quoted scalars are valid YAML and need no escaping rules of our own.
  const q = JSON.stringify;
  const cluster = caFile ? `certificate-authority: ${q(caFile)}` : 'insecure-skip-tls-verify: true';
  const ext = extensions?.length ? `\n    extensions: ${q(extensions)}` : '';
  return `apiVersion: v1
kind: Config
clusters:
- name: ${q(context)}
  cluster:
    server: ${q(server)}
    ${cluster}
users:
- name: ${ADMIN_USER}
  user:
    token: ${q(token)}
contexts:
- name: ${q(context)}
  context:
    cluster: ${q(context)}
    user: ${ADMIN_USER}${ext}
current-context: ${q(context)}
`;
}

interface RequestOpts {
  token?: string;
  ca?: Buffer;
  insecure?: boolean;
}

/** POST of a JSON body to etcd's v3 JSON gateway (plain http on loopback). */
function post(url: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`POST ${url} timed out`)));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Minimal GET used for readiness polling (http for etcd, https for the apiserver). */
function request(url: string, o: RequestOpts): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = o.token ? { Authorization: `Bearer ${o.token}` } : {};
    const done = (res: http.IncomingMessage): void => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    };
    const req = url.startsWith('https:')
      ? https.get(url, { headers, ca: o.ca, rejectUnauthorized: !o.insecure, agent: false }, done)
      : http.get(url, { headers, agent: false }, done);
    req.setTimeout(2000, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}
