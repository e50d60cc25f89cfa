/**
 * A kubelet stand-in for a control plane with a real controller manager and scheduler: it
 * registers one Node, keeps it Ready by renewing its Lease in kube-node-lease (the heartbeat the
 * node lifecycle controller reads, so it neither taints nor evicts), and runs every pod the
 * scheduler binds to it, as the demo's kubelet simulation reads a pod spec:
 * - a container whose restartPolicy is Always runs until deleted, Ready at once (no probes);
 * - in a pod with restartPolicy Never (or OnFailure: no restarts are played) a `sh -c` script ends: `exit N` (N != 0) fails
 *   the pod (phase Failed, reason Error), anything else succeeds (phase Succeeded, Completed);
 * - a pod given a deletionTimestamp is confirmed deleted (grace 0, same uid), as a kubelet does
 *   once its containers stopped.
 * It learns of pods through a watch (fieldSelector spec.nodeName), re-listing when the watch ends;
 * pods are handled one at a time, in event order. Failures of its own writes are kept in
 * `errors` (a 404/409 on a pod deleted meanwhile is not one), so a test can say why it waited.
 * Its kubelet port (the Node's daemonEndpoints) serves containerLogs with what the demo's kubelet
 * simulation says the container writes (src/demo/kubelet/output.ts: nginx's entry point lines, an
 * echo script's text) since it started, so `kubectl logs` goes the real way: apiserver -> node proxy.
 * Not a kubelet's: no image pulls or kubelet Events, containers are Ready at once, and a finished
 * pod's Ready condition says ContainersNotReady where a kubelet says PodCompleted (./kubelet.ts's
 * status writer); the scenarios read none of these from the real side.
 */
import { setTimeout as delay } from 'node:timers/promises';
import * as fs from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { ControlPlane } from '../../lab/controlplane';
import { kubeTimestamp, readyNodeStatus, ScriptedKubelet, type ContainerState } from './kubelet';
import type { Api } from './support';
import { opensslCa } from '../unit/kube-helpers';
import { ContainerLog } from '../../src/demo/kubelet/logs';
import { planOutput } from '../../src/demo/kubelet/output';
import type { ContainerSpec } from '../../src/demo/kubelet/probes';
import { formatEntry } from '../../src/demo/server/logslice';

type Obj = Record<string, any>;

/** The Lease's renewTime: RFC 3339 with microseconds (metav1.MicroTime). */
const microTime = () => new Date().toISOString().replace(/Z$/, '000Z');

/** The exit code a Job-like container's script ends with (`exit N`), else 0. */
export function scriptExitCode(c: Obj): number {
  const line = [...(c.command ?? []), ...(c.args ?? [])].join(' ');
  const m = /\bexit\s+(\d+)/.exec(line);
  return m ? Number(m[1]) : 0;
}

export interface NodeKubeletOptions {
  /** How often the Lease is renewed, ms (default 10 s, the kubelet's: a quarter of its 40 s duration). */
  leaseRenewMs?: number;
  /** false: the Lease is written once and never renewed (a node whose kubelet died). Default true. */
  heartbeat?: boolean;
  /** Registers the Node with spec.unschedulable (the scheduler binds nothing to it). */
  unschedulable?: boolean;
}

export class NodeKubelet {
  readonly errors: string[] = [];
  private readonly scripted: ScriptedKubelet;
  private readonly started = new Map<string, string>(); // pod uid -> startTime
  /** Started pods by namespace/name: their containers and start, for containerLogs. */
  private readonly running = new Map<string, { containers: ContainerSpec[]; startMs: number }>();
  private readonly confirmed = new Set<string>();
  private readonly life = new AbortController();
  private queue: Promise<void> = Promise.resolve();
  private heartbeat?: NodeJS.Timeout;
  private logServer?: https.Server;
  private watching?: Promise<void>;

  constructor(
    private readonly cp: ControlPlane,
    private readonly api: Api,
    readonly node: string,
    private readonly opts: NodeKubeletOptions = {},
  ) {
    this.scripted = new ScriptedKubelet(api, node);
  }

  /** Registers the Node (Ready, InternalIP 127.0.0.1, its kubelet port), starts the heartbeat and the pod watch. */
  async start(): Promise<void> {
    const port = await this.serveLogs();
    await this.api.must('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: this.node, labels: { 'kubernetes.io/hostname': this.node, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' } },
      spec: this.opts.unschedulable ? { unschedulable: true } : {},
    });
    const now = kubeTimestamp();
    await this.api.must(
      'PATCH',
      `/api/v1/nodes/${this.node}/status`,
      {
        status: {
          // InternalIP only: the apiserver proxies logs to the first address of its preferred types.
          addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
          daemonEndpoints: { kubeletEndpoint: { Port: port } },
          capacity: { cpu: '4', memory: '8Gi', pods: '110' },
          allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
          ...readyNodeStatus(now),
        },
      },
      [200],
      { 'Content-Type': 'application/merge-patch+json' },
    );
    const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
    await this.api.must('POST', leases, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.node },
      spec: { holderIdentity: this.node, leaseDurationSeconds: 40, renewTime: microTime() },
    });
    // The kubelet renews every 10 s (a quarter of the 40 s lease); the node monitor's grace is 50 s.
    if (this.opts.heartbeat !== false) {
      this.heartbeat = setInterval(() => {
        this.api
          .request('PATCH', `${leases}/${this.node}`, { spec: { renewTime: microTime() } }, { 'Content-Type': 'application/merge-patch+json' })
          .then((r) => r.status === 200 || this.errors.push(`lease renew: ${r.status}`))
          .catch((e: Error) => this.life.signal.aborted || this.errors.push(`lease renew: ${e.message}`));
      }, this.opts.leaseRenewMs ?? 10_000);
      this.heartbeat.unref();
    }
    this.watching = this.watchLoop();
  }

  async stop(): Promise<void> {
    this.life.abort();
    clearInterval(this.heartbeat);
    await this.watching?.catch(() => undefined);
    await this.queue;
    await new Promise<void>((r) => (this.logServer ? this.logServer.close(() => r()) : r()));
  }

  private async serveLogs(): Promise<number> {
    const key = path.join(this.cp.dir, `kubelet-${this.node}.key`);
    const crt = path.join(this.cp.dir, `kubelet-${this.node}.crt`);
    opensslCa(key, crt, this.node, 'IP:127.0.0.1');
    // The apiserver verifies no kubelet serving cert without --kubelet-certificate-authority.
    this.logServer = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(crt) }, (req, res) => {
      if (req.url?.startsWith('/containerLogs/')) {
        // /containerLogs/{namespace}/{pod}/{container}
        const [ns, pod, container] = new URL(req.url, 'https://kubelet').pathname.split('/').slice(2).map(decodeURIComponent);
        const p = this.running.get(`${ns}/${pod}`);
        const c = p?.containers.find((x) => x.name === container);
        const body = c
          ? new ContainerLog('stand-in', planOutput(c), p!.startMs, 1, Date.now)
              .read()
              .entries.map((e) => formatEntry(e, false))
              .join('')
          : '';
        res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(body)) });
        res.end(body);
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => this.logServer!.listen(0, '127.0.0.1', r));
    return (this.logServer.address() as AddressInfo).port;
  }

  /** list + watch of this node's pods until stopped; each event's pod goes through handle(), in order. */
  private async watchLoop(): Promise<void> {
    const sel = encodeURIComponent(`spec.nodeName=${this.node}`);
    while (!this.life.signal.aborted) {
      try {
        const list = await this.api.list(`/api/v1/pods?fieldSelector=${sel}`);
        for (const p of list.items) this.enqueue(p);
        await this.watch(`/api/v1/pods?watch=1&allowWatchBookmarks=true&fieldSelector=${sel}&resourceVersion=${list.resourceVersion}`);
      } catch (e) {
        if (this.life.signal.aborted) return;
        this.errors.push(`pod watch: ${(e as Error).message}`);
        // A reflector's back-off before it lists again (not a test's wait: the loop's pacing).
        await delay(500, undefined, { signal: this.life.signal }).catch(() => undefined);
      }
    }
  }

  private watch(p: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = https.get(
        `${this.cp.server}${p}`,
        {
          ca: fs.readFileSync(this.cp.caFile),
          headers: { Authorization: `Bearer ${this.cp.adminToken}`, Accept: 'application/json' },
          signal: this.life.signal,
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`watch answered ${res.statusCode}`));
            return;
          }
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
              const line = buf.slice(0, i);
              buf = buf.slice(i + 1);
              if (!line.trim()) continue;
              const ev = JSON.parse(line) as { type: string; object: Obj };
              if (ev.type === 'ERROR') {
                // 410 Gone: the resourceVersion is too old, so list again (a reflector's relist); else a failure.
                if (ev.object?.code === 410) {
                  resolve();
                  return void req.destroy();
                }
                return void req.destroy(new Error(`watch ERROR ${JSON.stringify(ev.object)}`));
              }
              if (ev.type === 'ADDED' || ev.type === 'MODIFIED') this.enqueue(ev.object);
            }
          });
          res.on('end', resolve);
          res.on('error', reject);
        },
      );
      req.on('error', reject);
    });
  }

  private enqueue(pod: Obj): void {
    this.queue = this.queue.then(() => this.handle(pod)).catch((e: Error) => void this.errors.push(`${pod.metadata?.name}: ${e.message}`));
  }

  private async handle(pod: Obj): Promise<void> {
    if (this.life.signal.aborted) return;
    const { namespace: ns, name, uid } = pod.metadata;
    const ignoreGone = (e: Error) => {
      if (!/: (404|409) /.test(e.message)) throw e;
    };
    if (pod.metadata.deletionTimestamp) {
      if (this.confirmed.has(uid)) return;
      this.confirmed.add(uid);
      this.running.delete(`${ns}/${name}`);
      await this.scripted.confirmDeletion(ns, name, uid).catch(ignoreGone);
      return;
    }
    const jobLike = pod.spec.restartPolicy !== 'Always';
    if (!this.started.has(uid)) {
      const startTime = kubeTimestamp();
      this.started.set(uid, startTime);
      this.running.set(`${ns}/${name}`, { containers: pod.spec.containers, startMs: Date.now() });
      const ids = new Map<string, string>();
      const containers: ContainerState[] = pod.spec.containers.map((c: Obj) => {
        const id = this.scripted.newContainerId();
        ids.set(c.name, id);
        return { name: c.name, image: c.image, id, state: { running: { startedAt: startTime } }, ready: true, started: true, restartCount: 0 };
      });
      await this.scripted.writeStatus(ns, name, containers, startTime).catch(ignoreGone);
      if (!jobLike) return;
      // The script ran: every container terminated with its exit code.
      const codes = pod.spec.containers.map(scriptExitCode);
      const done: ContainerState[] = pod.spec.containers.map((c: Obj, i: number) => ({
        name: c.name,
        image: c.image,
        id: ids.get(c.name),
        state: {
          terminated: {
            exitCode: codes[i],
            reason: codes[i] === 0 ? 'Completed' : 'Error',
            startedAt: startTime,
            finishedAt: kubeTimestamp(),
            containerID: ids.get(c.name),
          },
        },
        ready: false,
        started: false,
        restartCount: 0,
      }));
      await this.scripted.writeStatus(ns, name, done, startTime, codes.every((c: number) => c === 0) ? 'Succeeded' : 'Failed').catch(ignoreGone);
    }
  }
}
