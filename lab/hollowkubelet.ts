/**
 * Real kubelets for a started ControlPlane (./controlplane.ts): one `hollow-kubelet` process per
 * node name (scripts/controlplane/kubelet, built by scripts/build-controlplane.sh with the
 * apiserver). Each is the real kubelet sync loop, pod workers, PLEG, status manager, prober and
 * event recorder over a fake container runtime whose containers do what their spec says, with a
 * control endpoint to make a container exit, to set exec-probe verdicts and to inject CRI faults.
 * Only node: builtins, as in ./controlplane.ts.
 *
 * Guarantees: start resolves once every Node is Ready in the API; a kubelet that exits during
 * start-up fails the start at once with its log's tail (and stops the others), unless its port was
 * taken after freePorts() released it: that kubelet is launched again on a fresh port, up to three
 * times, the failed attempt's log kept as <log>.port-race-N. Each kubelet runs
 * with TZ=UTC, the admin credentials (its own copy of the kubeconfig), free ports, its own loopback
 * pod CIDR (a random /24 inside 127.64.0.0/10, distinct between the nodes of one call), its root
 * dir in cp.dir, and logs (stderr, klog) to <cp.dir>/hollow-kubelet-<node>.log. stop() ends a
 * kubelet (SIGTERM, then SIGKILL after 5 s) and removes what it left behind: its root dir, its CRI
 * socket and any /tmp/hollow-kubelet.* dir its log names; the pids are recorded in <cp.dir>/pids
 * so the ControlPlane's watchdog kills them if the test process dies without stopping them.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import { ensureControlPlaneBinaries, type ControlPlane } from './controlplane';
import { freePorts, launch, PortRaceError, terminate, waitWhileRunning, type LabProcess } from './process';

/** A container as the fake runtime holds it (GET /containers). */
export interface RuntimeContainer {
  podUID: string;
  namespace: string;
  pod: string;
  container: string;
  id: string;
  attempt: number;
  state: 'created' | 'running' | 'exited' | 'unknown';
  exitCode: number;
  reason: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** The CRI methods whose next calls can be made to fail. */
export type FaultMethod = 'PullImage' | 'RunPodSandbox' | 'CreateContainer' | 'StartContainer' | 'StopContainer';

export interface HollowKubelet {
  name: string;
  logPath: string;
  /** The kubelet's log so far. */
  log(): string;
  /** http://127.0.0.1:PORT of its control endpoint. */
  controlUrl: string;
  /** Makes the container's running instance exit now (e.g. 137 'OOMKilled'); rejects if none runs. */
  exit(ns: string, pod: string, container: string, exitCode: number, reason?: string, message?: string): Promise<void>;
  /** From now on every exec probe of the container fails (true) / succeeds (false); null: back to its spec's rules. */
  execProbe(ns: string, pod: string, container: string, fail: boolean | null, message?: string): Promise<void>;
  /** The next `count` calls of the CRI method fail with `message` (count 0 clears). */
  fault(method: FaultMethod, count: number, message?: string): Promise<void>;
  /** What faults are still pending, by method. */
  faults(): Promise<Partial<Record<FaultMethod, { count: number; message: string }>>>;
  containers(): Promise<RuntimeContainer[]>;
  stop(): Promise<void>;
}

export interface HollowKubelets {
  nodes: HollowKubelet[];
  /** The kubelet of this node (throws for an unknown name). */
  node(name: string): HollowKubelet;
  stop(): Promise<void>;
}

export interface HollowKubeletOptions {
  nodes: string[];
  /** klog verbosity (default 4: the sync loop's lines). */
  v?: number;
  binDir?: string;
  /** The kubelet's syncFrequency (default '1m', the kubelet's own default). */
  syncFrequency?: string;
  /** Added to the environment (TZ is always UTC). */
  env?: Record<string, string>;
  /** Whole start-up, until every Node is Ready; default 90 s (the machine is shared). */
  startTimeoutMs?: number;
  signal?: AbortSignal;
  /** The kubelets' server ports, one per node (default: free ports); a taken one is replaced. */
  kubeletPorts?: number[];
}

/** Launches per kubelet when its port is taken between freePorts() and its bind. */
const MAX_LAUNCHES = 3;

/** A hollow kubelet's process; `name` is "hollow-kubelet NODE". */
interface Running extends LabProcess {
  node: string;
  rootDir: string;
  addrFile: string;
}

export async function startHollowKubelets(cp: ControlPlane, opts: HollowKubeletOptions): Promise<HollowKubelets> {
  if (new Set(opts.nodes).size !== opts.nodes.length || opts.nodes.length === 0)
    throw new Error(`node names must be distinct and at least one: ${opts.nodes.join(', ')}`);
  if (opts.kubeletPorts && opts.kubeletPorts.length !== opts.nodes.length) throw new Error(`one kubelet port per node: ${opts.kubeletPorts.join(', ')}`);
  const binDir = opts.binDir ?? (await ensureControlPlaneBinaries());
  const deadline = Date.now() + (opts.startTimeoutMs ?? 90_000);
  const kubeletPorts = opts.kubeletPorts ?? (await freePorts(opts.nodes.length));
  const cidrs = distinctPodCidrs(opts.nodes.length);
  const running: Running[] = [];
  const stopOne = (r: Running) => stopKubelet(r);
  const stopAll = async () => {
    await Promise.all(running.map(stopOne));
  };
  try {
    opts.nodes.forEach((name, i) => running.push(launchKubelet(binDir, cp, name, kubeletPorts[i]!, cidrs[i]!, opts)));
    const launches = running.map(() => 1);
    for (;;) {
      try {
        await waitUntilReady(cp, running, deadline, opts.signal);
        break;
      } catch (e) {
        // The kubelet exits 1 when its port was taken after freePorts released it: that one kubelet
        // goes again on a fresh port (at most MAX_LAUNCHES in all), its failed log kept beside.
        const i = e instanceof PortRaceError ? running.indexOf(e.process as Running) : -1;
        if (i < 0 || launches[i]! >= MAX_LAUNCHES) throw e;
        const r = running[i]!;
        await stopKubelet(r);
        fs.renameSync(r.logFile, `${r.logFile}.port-race-${launches[i]}`);
        const [port] = await freePorts(1);
        process.stderr.write(`hollow-kubelet ${r.node}: its port was taken before it bound it; launching it again on ${port}\n`);
        running[i] = launchKubelet(binDir, cp, r.node, port!, cidrs[i]!, opts);
        launches[i]!++;
      }
    }
  } catch (e) {
    await stopAll();
    throw e;
  }
  const nodes = running.map((r): HollowKubelet => {
    const controlUrl = `http://${fs.readFileSync(r.addrFile, 'utf8').trim()}`;
    const call = <T>(method: 'GET' | 'POST', p: string, body?: unknown) => control<T>(controlUrl, method, p, body);
    return {
      name: r.node,
      logPath: r.logFile,
      log: () => fs.readFileSync(r.logFile, 'utf8'),
      controlUrl,
      exit: async (namespace, pod, container, exitCode, reason, message) => {
        await call('POST', '/containers/exit', { namespace, pod, container, exitCode, ...(reason ? { reason } : {}), ...(message ? { message } : {}) });
      },
      execProbe: async (namespace, pod, container, fail, message) => {
        await call('POST', '/probes/exec', { namespace, pod, container, fail, ...(message ? { message } : {}) });
      },
      fault: async (method, count, message) => {
        await call('POST', '/faults', { method, count, ...(message ? { message } : {}) });
      },
      faults: () => call('GET', '/faults'),
      containers: () => call<RuntimeContainer[]>('GET', '/containers'),
      stop: () => stopOne(r),
    };
  });
  return {
    nodes,
    node: (name) => {
      const n = nodes.find((x) => x.name === name);
      if (!n) throw new Error(`no hollow kubelet for node ${name}`);
      return n;
    },
    stop: stopAll,
  };
}

/** Every kubelet's control endpoint up, then every Node Ready; a kubelet that exits ends it (./process.ts). */
async function waitUntilReady(cp: ControlPlane, running: Running[], deadline: number, signal: AbortSignal | undefined): Promise<void> {
  for (const r of running) {
    await waitWhileRunning(`${r.node}'s control endpoint`, running, deadline, signal, async () => {
      if (!fs.readFileSync(r.addrFile, 'utf8').endsWith('\n')) throw new Error('no address yet');
    });
  }
  for (const r of running) {
    await waitWhileRunning(`Node ${r.node} Ready`, running, deadline, signal, async () => {
      const a = await apiGet(cp, `/api/v1/nodes/${r.node}`);
      if (a.status !== 200) throw new Error(`GET node: ${a.status}`);
      const node = JSON.parse(a.body) as { status?: { conditions?: { type: string; status: string }[] } };
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
      if (ready?.status !== 'True') throw new Error(`Ready is ${ready?.status ?? 'missing'}`);
    });
  }
}

function launchKubelet(binDir: string, cp: ControlPlane, name: string, kubeletPort: number, podCidr: string, opts: HollowKubeletOptions): Running {
  const base = path.join(cp.dir, `hollow-kubelet-${name}`);
  const rootDir = `${base}.root`;
  const logPath = `${base}.log`;
  const addrFile = `${base}.addr`;
  const kubeconfig = `${base}.kubeconfig`; // its own copy: never a file the test may rewrite
  fs.copyFileSync(cp.kubeconfigPath, kubeconfig);
  fs.mkdirSync(rootDir, { recursive: true });
  const args = [
    `--name=${name}`,
    `--kubeconfig=${kubeconfig}`,
    `--kubelet-port=${kubeletPort}`,
    '--control-addr=127.0.0.1:0',
    `--control-addr-file=${addrFile}`,
    `--root-dir=${rootDir}`,
    `--pod-cidr=${podCidr}`,
    `--sync-frequency=${opts.syncFrequency ?? '1m'}`,
    `--v=${opts.v ?? 4}`,
  ];
  const p = launch(path.join(binDir, 'hollow-kubelet'), args, {
    name: `hollow-kubelet ${name}`,
    logFile: logPath,
    pidsFile: path.join(cp.dir, 'pids'),
    env: { ...process.env, ...opts.env, TZ: 'UTC' },
  });
  return Object.assign(p, { node: name, rootDir, addrFile });
}

/** SIGTERM, SIGKILL after 5 s; then removes what the process left behind. Idempotent. */
async function stopKubelet(r: Running): Promise<void> {
  await terminate(r);
  let log = '';
  try {
    log = fs.readFileSync(r.logFile, 'utf8');
  } catch {
    /* removed with the control plane's dir */
  }
  // kubemark's own temp dir (removed by the binary at start, unless it died first) and the CRI
  // socket (in the root dir, unless a stock build put it in /tmp).
  const leftovers = [
    ...[...log.matchAll(/Using (\/tmp\/hollow-kubelet\.\d+) as root dir/g)].map((m) => m[1]!),
    ...[...log.matchAll(/endpoint="unix:\/\/(\/tmp\/kubelet_remote_\d+\.sock)"/g)].map((m) => m[1]!),
    r.rootDir,
    r.addrFile,
  ];
  for (const p of leftovers) fs.rmSync(p, { recursive: true, force: true });
}

/** A call to a control endpoint; rejects with the endpoint's {error} on a non-2xx answer. */
function control<T>(base: string, method: 'GET' | 'POST', p: string, body?: unknown): Promise<T> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${p}`,
      { method, agent: false, headers: data ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          if (status >= 200 && status < 300) resolve(parsed as T);
          else reject(new Error(`${method} ${p}: ${status} ${(parsed as { error?: string })?.error ?? text}`));
        });
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${base}${p} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

/** A GET on the API server with the admin token, verified against the control plane's CA. */
function apiGet(cp: ControlPlane, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${cp.server}${p}`,
      { ca: fs.readFileSync(cp.caFile), agent: false, headers: { Authorization: `Bearer ${cp.adminToken}` } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.setTimeout(5000, () => req.destroy(new Error(`GET ${p} timed out`)));
    req.on('error', reject);
  });
}

/** n distinct random /24s inside 127.64.0.0/10: unlikely to meet another run's on this host. */
function distinctPodCidrs(n: number): string[] {
  const picked = new Set<number>();
  while (picked.size < n) picked.add(Math.floor(Math.random() * (1 << 14)));
  return [...picked].map((x) => `127.${64 + (x >> 8)}.${x & 0xff}.0/24`);
}
