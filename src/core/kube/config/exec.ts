/**
 * ExecCredentialProvider: a kubeconfig user's `exec` credential plugin
 * (client.authentication.k8s.io/v1 and v1beta1), run as client-go's exec authenticator runs it.
 *
 * Why our own: client-node 1.4's ExecAuth runs the plugin again for every request whose cached
 * credential has no expirationTimestamp (Date.parse(undefined) is NaN), lets concurrent requests
 * each start a run, has no timeout, sets no KUBERNETES_EXEC_INFO, runs a relative command against
 * the working directory, and puts JSON.parse's message (which quotes the plugin's output, the
 * token) into its error.
 *
 * Guarantees:
 * - One run at a time: every caller that needs a credential while a run is going waits for that
 *   run (one shared refresh), and a failed run fails all of them with the same error.
 * - A credential is kept until its expirationTimestamp; one without it is kept until the server
 *   answers 401 to it (`invalidate(generation)` from the request that got the 401; a 401 to an
 *   older credential than the current one does not cause another run).
 * - A run is killed after `timeoutMs` (default 60 s) and fails with a message that says so; the
 *   plugin's stdin is not a terminal, so a plugin that insists on interactive input (interactiveMode
 *   Always) is refused up front, as client-go refuses it without a terminal.
 * - The plugin gets KUBERNETES_EXEC_INFO: an ExecCredential of the configured apiVersion with
 *   spec.interactive=false and, when provideClusterInfo is set, spec.cluster (server,
 *   tls-server-name, insecure-skip-tls-verify, certificate-authority-data, proxy-url,
 *   disable-compression and the cluster's client.authentication.k8s.io/exec extension as config). The kubeconfig's exec.env is
 *   added to this process's environment.
 * - A command with a path separator was made absolute against its kubeconfig's folder when the file
 *   was read (kubeconfig.ts); a bare name is looked up on PATH by execPath.ts, never in the current
 *   folder, and the plugin started by its absolute path.
 * - The credential: status.token, and/or status.clientCertificateData with clientKeyData (both or
 *   neither). Errors name the command, the exit status and the plugin's last stderr line (what
 *   kubectl shows of it); never the plugin's stdout, which holds the credential.
 * - `get(signal)`: the caller's abort rejects its wait at once; the shared run goes on for others.
 */
import { spawn } from 'node:child_process';
import { abortReason } from '../../clock';
import { KubeConfigError } from '../errors';
import { lookPath, spawnable } from './execPath';
import type { ExecConfig } from './kubeconfig';

export interface ExecCredential {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** Wall-clock ms; undefined = valid until the server answers 401. */
  expiresAt?: number;
  /** Increases with every run that produced a credential. */
  generation: number;
}

/** What a plugin may learn of its cluster (provideClusterInfo), in kubeconfig terms. */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  /** Base64 of the CA bundle (as []byte encodes in JSON). */
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  config?: unknown;
}

export interface ExecProviderOptions {
  /** Default 60 s. */
  timeoutMs?: number;
  /** Wall clock for expirationTimestamp (ms since the epoch). Default Date.now. */
  wallNow?: () => number;
  env?: NodeJS.ProcessEnv;
  /** Names the context in messages. */
  contextName?: string;
}

const STDOUT_LIMIT = 4 << 20;

export class ExecCredentialProvider {
  private cred: ExecCredential | undefined;
  private running: Promise<ExecCredential> | undefined;
  private generation = 0;
  /** Plugin runs started (for tests and diagnostics). */
  runs = 0;

  constructor(
    private readonly cfg: ExecConfig,
    private readonly cluster: ExecClusterInfo,
    private readonly opts: ExecProviderOptions = {},
  ) {}

  /** The generation of the credential handed out last (0 before any). */
  get currentGeneration(): number {
    return this.cred?.generation ?? 0;
  }

  /** A valid credential: the cached one, the one being fetched, or a new run's. */
  get(signal?: AbortSignal): Promise<ExecCredential> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const now = (this.opts.wallNow ?? Date.now)();
    if (this.cred && (this.cred.expiresAt === undefined || now < this.cred.expiresAt)) return Promise.resolve(this.cred);
    if (!this.running) {
      this.cred = undefined;
      const run = this.run().finally(() => {
        if (this.running === run) this.running = undefined;
      });
      this.running = run;
      run.then(
        (c) => (this.cred = c),
        () => {},
      );
    }
    const shared = this.running;
    if (!signal) return shared;
    return new Promise<ExecCredential>((resolve, reject) => {
      const onAbort = () => reject(abortReason(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      shared.then(
        (c) => (signal.removeEventListener('abort', onAbort), resolve(c)),
        (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
      );
    });
  }

  /** The server refused the credential of `generation` (401): the next get() runs the plugin again. */
  invalidate(generation: number): void {
    if (this.cred && this.cred.generation === generation) this.cred = undefined;
  }

  private what(): string {
    return `${this.opts.contextName ? `context "${this.opts.contextName}": ` : ''}exec plugin "${this.cfg.command}"`;
  }

  private execInfo(): string {
    const spec: Record<string, unknown> = { interactive: false };
    if (this.cfg.provideClusterInfo) spec.cluster = this.cluster;
    return JSON.stringify({ apiVersion: this.cfg.apiVersion, kind: 'ExecCredential', spec });
  }

  private run(): Promise<ExecCredential> {
    const what = this.what();
    if (this.cfg.interactiveMode === 'Always') {
      return Promise.reject(
        new KubeConfigError(`${what}: interactiveMode is Always, but there is no terminal to interact on (standard input is not a terminal)`),
      );
    }
    const hint = this.cfg.installHint ? `; ${this.cfg.installHint.trim()}` : '';
    const file = lookPath(this.cfg.command, { env: this.opts.env ?? process.env });
    if (file === undefined) return Promise.reject(new KubeConfigError(`${what}: cannot run it: command not found${hint}`));
    const how = spawnable(file, this.cfg.args, { env: this.opts.env ?? process.env });
    if (typeof how === 'string') return Promise.reject(new KubeConfigError(`${what}: cannot run it: ${how}`));
    this.runs++;
    const timeoutMs = this.opts.timeoutMs ?? 60_000;
    const env: NodeJS.ProcessEnv = { ...(this.opts.env ?? process.env) };
    for (const e of this.cfg.env) env[e.name] = e.value;
    env.KUBERNETES_EXEC_INFO = this.execInfo();
    return new Promise<ExecCredential>((resolve, reject) => {
      let done = false;
      const out: Buffer[] = [];
      let outSize = 0;
      let errTail = '';
      const fail = (message: string) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new KubeConfigError(`${what}: ${message}`));
      };
      const child = spawn(how.file, how.args, {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        ...(how.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {}),
      });
      const timer = setTimeout(() => fail(`no credential within ${timeoutMs} ms (killed)`), timeoutMs);
      child.stdout.on('data', (c: Buffer) => {
        outSize += c.length;
        if (outSize > STDOUT_LIMIT) fail(`printed more than ${STDOUT_LIMIT} bytes`);
        else out.push(c);
      });
      child.stderr.on('data', (c: Buffer) => (errTail = (errTail + c.toString('utf8')).slice(-2000)));
      child.on('error', (e: NodeJS.ErrnoException) => {
        fail(`cannot run it: ${e.code === 'ENOENT' ? `command not found${hint}` : e.message}`);
      });
      child.on('close', (code, sig) => {
        if (done) return;
        if (code !== 0) {
          const last = errTail.trim().split('\n').pop()?.slice(0, 300);
          return fail(`exited with ${sig ? `signal ${sig}` : `status ${code}`}${last ? `: ${last}` : ''}`);
        }
        let cred: ExecCredential;
        try {
          cred = this.parse(Buffer.concat(out).toString('utf8'));
        } catch (e) {
          return fail((e as Error).message);
        }
        done = true;
        clearTimeout(timer);
        resolve(cred);
      });
    });
  }

  /** The plugin's ExecCredential; errors never quote the output. */
  private parse(text: string): ExecCredential {
    let o: { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> };
    try {
      o = JSON.parse(text) as typeof o;
    } catch {
      throw new Error(`printed no valid ExecCredential JSON (${text.length} bytes)`);
    }
    if (!o || typeof o !== 'object') throw new Error('printed no ExecCredential object');
    if (o.kind !== 'ExecCredential') throw new Error(`printed kind "${String(o.kind)}", not ExecCredential`);
    if (o.apiVersion !== this.cfg.apiVersion) throw new Error(`is configured for ${this.cfg.apiVersion} but printed apiVersion "${String(o.apiVersion)}"`);
    const s = o.status;
    if (!s || typeof s !== 'object') throw new Error('printed an ExecCredential without status');
    const str = (k: string) => (typeof s[k] === 'string' && s[k] ? (s[k] as string) : undefined);
    const token = str('token');
    const cert = str('clientCertificateData');
    const key = str('clientKeyData');
    if (!!cert !== !!key) throw new Error('printed only one of clientCertificateData and clientKeyData (both or neither)');
    if (!token && !cert) throw new Error('printed an ExecCredential with neither a token nor a client certificate');
    let expiresAt: number | undefined;
    const exp = str('expirationTimestamp');
    if (exp) {
      expiresAt = Date.parse(exp);
      if (Number.isNaN(expiresAt)) throw new Error(`printed an expirationTimestamp that is not a time ("${exp.slice(0, 40)}")`);
    }
    return { token, clientCertificateData: cert, clientKeyData: key, expiresAt, generation: ++this.generation };
  }
}
