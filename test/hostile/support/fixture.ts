/**
 * One case's world: a demo cluster (no kubelet, no controllers: its store holds still, so counts
 * compare exactly), the hostile relay in front of it, and a kubeconfig that points at the relay
 * with a bearer token. `baseline()` is what `kubeloop load` finds on the demo itself, straight, no
 * relay: per type, the count every hostile run must still reach for the types not under attack.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { dump } from 'js-yaml';
import { startDemoCluster, type DemoCluster, type DemoCRD } from '../../../src/demo';
import { selfSignedCert } from '../../../src/demo/server/tls';
import { runLoad } from '../../../src/cli/load';
import { capture } from '../../support/capture';
import { startRelay, type Relay, type RelayOptions } from './relay';

/** The bearer token of every case: no output, recording or message may ever hold it. */
export const TOKEN = 'hostile-token-5b1e9d0c7a43f2e8';

export type Tls = 'valid' | 'wrong-name' | 'none';

export interface CaseOptions {
  tls?: Tls;
  crds?: DemoCRD[];
  /** Objects the case plants in the demo's store before anything runs. */
  plant?: (demo: DemoCluster) => void;
  misbehave?: (demo: DemoCluster) => RelayOptions['misbehave'];
}

export interface TypeCount {
  group: string;
  resource: string;
  count: number;
}

export interface HostileCase {
  demo: DemoCluster;
  relay: Relay;
  /** Points at the relay, with TOKEN. */
  kubeconfig: string;
  dir: string;
  /** A fresh XDG_CACHE_HOME per run. */
  cacheDir(): string;
  baseline(): Promise<TypeCount[]>;
  stop(): Promise<void>;
}

const execFileP = promisify(execFile);
let wrongName: Promise<{ key: string; cert: string }> | undefined;
/** A certificate for kubernetes.other.example only (not 127.0.0.1), which the kubeconfig trusts as its CA. */
function wrongNameCert(): Promise<{ key: string; cert: string }> {
  wrongName ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-hostile-cert-'));
    try {
      const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'];
      const more = ['-subj', '/CN=kubernetes.other.example', '-addext', 'subjectAltName=DNS:kubernetes.other.example'];
      await execFileP('openssl', [...args, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), ...more], { timeout: 30_000 });
      return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return wrongName;
}

function kubeconfigFor(server: string, ca: string | undefined): string {
  const cluster: Record<string, unknown> = { server };
  if (ca) cluster['certificate-authority-data'] = Buffer.from(ca).toString('base64');
  return dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'hostile', cluster }],
    users: [{ name: 'tenant', user: { token: TOKEN } }],
    contexts: [{ name: 'hostile', context: { cluster: 'hostile', user: 'tenant', namespace: 'default' } }],
    'current-context': 'hostile',
  });
}

export async function startCase(o: CaseOptions = {}): Promise<HostileCase> {
  const tlsMode = o.tls ?? 'valid';
  const demo = await startDemoCluster({ kubelet: false, objects: 400, seed: 42, crds: o.crds });
  o.plant?.(demo);
  const tls = tlsMode === 'valid' ? await selfSignedCert('127.0.0.1') : tlsMode === 'wrong-name' ? await wrongNameCert() : undefined;
  const relay = await startRelay({
    upstream: demo.url,
    ...(tls ? { tls, token: TOKEN } : {}),
    ...(o.misbehave ? { misbehave: o.misbehave(demo) } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-hostile-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, kubeconfigFor(relay.url, tls?.cert), { mode: 0o600 });
  const direct = join(dir, 'direct-kubeconfig');
  await demo.writeKubeconfig(direct);
  let caches = 0;
  return {
    demo,
    relay,
    kubeconfig,
    dir,
    cacheDir: () => join(dir, `cache-${caches++}`),
    async baseline() {
      const c = capture();
      const code = await runLoad(['--kubeconfig', direct, '--json', '--no-discovery-cache'], c.io);
      if (code !== 0) throw new Error(`the baseline load of the demo itself failed (${code}): ${c.err}`);
      const j = JSON.parse(c.out) as { types: (TypeCount & { outcome: string })[] };
      return j.types.map((t) => ({ group: t.group, resource: t.resource, count: t.count }));
    },
    async stop() {
      await relay.close();
      await demo.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
