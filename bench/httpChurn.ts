// Churn over real HTTP, for benches that must start it after a load (the demo's own --churn runs from
// start-up, which would change the object count under the load being timed). The mix follows the
// demo's churn (src/demo/churn.ts): ConfigMap data changes, pod label changes, pods created and
// deleted (half of them in the big namespace, so its 10,000-pod kind changes membership), at a
// steady rate per second. Deterministic targets (seeded PRNG); pods in `protect` are never touched.
import * as http from 'node:http';
import * as https from 'node:https';
import type { requestBase } from './types';

type Base = Awaited<ReturnType<typeof requestBase>>;

/** One API request; resolves with the status code (0 when the connection failed). Never rejects. */
export function apiCall(base: Base, agent: http.Agent, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<number> {
  const mod = base.server.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = mod.request(
      new URL(path, base.server),
      { ...base.options, method, agent, headers: { ...(base.options.headers as object), 'content-type': contentType } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export interface ChurnTargets {
  /** `namespace/name` of every pod at start. */
  pods: string[];
  configmaps: string[];
  bigNamespace: string;
  /** Namespaces other pods are created in. */
  namespaces: string[];
  /** `namespace/name` of pods churn must leave alone (the bench's probes change them). */
  protect: ReadonlySet<string>;
}

export interface ChurnStats {
  sent: number;
  failed: number;
  /** Writes not sent because too many were in flight (the server fell behind). */
  skipped: number;
}

const MAX_IN_FLIGHT = 256;

/** A list with O(1) add, remove-at-random. */
class Pool {
  readonly items: string[] = [];
  add(x: string): void {
    this.items.push(x);
  }
  take(rand: () => number): string | undefined {
    if (!this.items.length) return undefined;
    const i = Math.floor(rand() * this.items.length);
    const x = this.items[i]!;
    this.items[i] = this.items[this.items.length - 1]!;
    this.items.pop();
    return x;
  }
  pick(rand: () => number): string | undefined {
    return this.items.length ? this.items[Math.floor(rand() * this.items.length)] : undefined;
  }
}

export function startHttpChurn(base: Base, perSecond: number, t: ChurnTargets, seed = 42): { stop(): Promise<void>; stats(): ChurnStats } {
  const agent = new (base.server.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 32 });
  let s = seed >>> 0;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const big = new Pool();
  const other = new Pool();
  for (const p of t.pods) if (!t.protect.has(p)) (p.startsWith(`${t.bigNamespace}/`) ? big : other).add(p);
  const cms = new Pool();
  for (const c of t.configmaps) cms.add(c);
  const stats: ChurnStats = { sent: 0, failed: 0, skipped: 0 };
  const inFlight = new Set<Promise<void>>();
  let serial = 0;
  const path = (key: string, kind: string, sub = '') => {
    const [ns, name] = key.split('/') as [string, string];
    return `/api/v1/namespaces/${ns}/${kind}/${encodeURIComponent(name)}${sub}`;
  };
  const send = (method: string, p: string, body: unknown, ct?: string, after?: (ok: boolean) => void) => {
    if (inFlight.size >= MAX_IN_FLIGHT) {
      stats.skipped++;
      return;
    }
    stats.sent++;
    const done = apiCall(base, agent, method, p, body, ct).then((code) => {
      const ok = code >= 200 && code < 300;
      if (!ok) stats.failed++;
      after?.(ok);
      inFlight.delete(done);
    });
    inFlight.add(done);
  };
  const merge = 'application/merge-patch+json';
  const one = () => {
    const x = rand();
    const n = ++serial;
    if (x < 0.35) {
      const c = cms.pick(rand);
      if (c) send('PATCH', path(c, 'configmaps'), { data: { 'churn.revision': String(n) } }, merge);
    } else if (x < 0.6) {
      const p = (rand() < 0.5 ? big : other).pick(rand);
      if (p) send('PATCH', path(p, 'pods'), { metadata: { labels: { 'churn.kubeloop.dev/revision': String(n) } } }, merge);
    } else if (x < 0.8) {
      const ns = rand() < 0.5 ? t.bigNamespace : t.namespaces[Math.floor(rand() * t.namespaces.length)]!;
      const name = `churn-${n}`;
      send(
        'POST',
        `/api/v1/namespaces/${ns}/pods`,
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: ns, labels: { app: 'churn' } },
          spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
          status: { phase: 'Pending' },
        },
        undefined,
        (ok) => ok && (ns === t.bigNamespace ? big : other).add(`${ns}/${name}`),
      );
    } else {
      const p = (rand() < 0.5 ? big : other).take(rand);
      if (p) send('DELETE', `${path(p, 'pods')}?gracePeriodSeconds=0`, undefined);
    }
  };
  let owed = 0;
  const timer = setInterval(() => {
    owed += perSecond / 10;
    for (; owed >= 1; owed--) one();
  }, 100);
  return {
    stats: () => ({ ...stats }),
    stop: async () => {
      clearInterval(timer);
      await Promise.all([...inFlight]);
      agent.destroy();
    },
  };
}
