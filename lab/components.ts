/**
 * The rest of a control plane for a started ControlPlane (./controlplane.ts): a real
 * kube-controller-manager and kube-scheduler, built by scripts/build-controlplane.sh with the
 * apiserver. Both run with the admin credentials (system:masters) through their own kubeconfig,
 * no leader election, and their secure port on a free loopback port; the controller manager runs
 * every default controller (the cloud ones do not start without a cloud provider) and signs
 * ServiceAccount tokens with the apiserver's key. Only node: builtins, as in ./controlplane.ts.
 *
 * Guarantees: start resolves once both answer /healthz (and the controller manager has created
 * the 'default' ServiceAccount, proof that its informers sync); a component that exits during
 * start-up fails the start at once with its log's tail (both start again on fresh ports, up to three
 * times, when its secure port was taken after freePorts() released it); stop() ends both (SIGTERM, then SIGKILL
 * after 5 s) and is also run by the ControlPlane's own stop() (it kills every recorded pid).
 */
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { ensureControlPlaneBinaries, type ControlPlane } from './controlplane';
import { freePorts, launch, PortRaceError, terminate, waitWhileRunning, type LabProcess } from './process';

export interface Components {
  stop(): Promise<void>;
  /** The log so far of 'kube-controller-manager' or 'kube-scheduler'. */
  log(name: ComponentName): string;
}

export type ComponentName = 'kube-controller-manager' | 'kube-scheduler';

export interface ComponentsOptions {
  binDir?: string;
  signal?: AbortSignal;
  /** Whole start-up, until both are healthy; default 120 s (the machine is shared). */
  startTimeoutMs?: number;
  /** The node lifecycle controller's --node-monitor-grace-period (upstream's default 50s). */
  nodeMonitorGracePeriod?: string;
}

export async function startControllerManagerAndScheduler(cp: ControlPlane, opts: ComponentsOptions = {}): Promise<Components> {
  const binDir = opts.binDir ?? (await ensureControlPlaneBinaries());
  const deadline = Date.now() + (opts.startTimeoutMs ?? 120_000);
  // A secure port taken between freePorts() and the component's bind: both go again on fresh ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(cp, binDir, deadline, opts);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof PortRaceError)) throw e;
      process.stderr.write(`${e.process.name}: its port was taken before it bound it; starting the components again\n`);
    }
  }
}

async function startOnce(cp: ControlPlane, binDir: string, deadline: number, opts: ComponentsOptions): Promise<Components> {
  // Their own copy of the admin kubeconfig: a component never shares a file the test may rewrite.
  const kubeconfig = path.join(cp.dir, 'kubeconfig-components');
  fs.copyFileSync(cp.kubeconfigPath, kubeconfig);
  const [kcmPort, schedPort] = await freePorts(2);
  const running: LabProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const r of [...running].reverse()) await terminate(r);
  };
  try {
    running.push(
      launchComponent(binDir, 'kube-controller-manager', cp.dir, [
        `--kubeconfig=${kubeconfig}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${kcmPort}`,
        '--controllers=*', // every default controller; node-ipam, the cloud and the signer ones stay off by themselves
        '--use-service-account-credentials=false', // every controller acts as the admin user
        `--service-account-private-key-file=${path.join(cp.dir, 'sa.key')}`,
        `--root-ca-file=${cp.caFile}`,
        '--cluster-name=kubeloop',
        ...(opts.nodeMonitorGracePeriod ? [`--node-monitor-grace-period=${opts.nodeMonitorGracePeriod}`] : []),
        '--v=1',
      ]),
    );
    running.push(
      launchComponent(binDir, 'kube-scheduler', cp.dir, [
        `--kubeconfig=${kubeconfig}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${schedPort}`,
        '--v=1',
      ]),
    );
    await waitWhileRunning('kube-controller-manager /healthz', running, deadline, opts.signal, () => healthz(kcmPort));
    await waitWhileRunning('kube-scheduler /healthz', running, deadline, opts.signal, () => healthz(schedPort));
    // The serviceaccount controller creates 'default' in every namespace once its informers synced.
    await waitWhileRunning("the controller manager's 'default' ServiceAccount", running, deadline, opts.signal, async () => {
      const a = await get(`${cp.server}/api/v1/namespaces/default/serviceaccounts/default`, cp.adminToken);
      if (a.status !== 200) throw new Error(`${a.status}`);
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { stop, log: (name) => fs.readFileSync(running.find((r) => r.name === name)!.logFile, 'utf8') };
}

function launchComponent(binDir: string, name: ComponentName, dir: string, args: string[]): LabProcess {
  return launch(path.join(binDir, name), args, { name, logFile: path.join(dir, `${name}.log`), pidsFile: path.join(dir, 'pids') });
}

async function healthz(port: number): Promise<void> {
  const a = await get(`https://127.0.0.1:${port}/healthz`);
  if (a.status !== 200) throw new Error(`${a.status} ${a.body}`);
}

/** A GET over https (the components serve a self-signed cert: not verified; loopback only). */
function get(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { rejectUnauthorized: false, agent: false, headers: token ? { Authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(2000, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
  });
}
