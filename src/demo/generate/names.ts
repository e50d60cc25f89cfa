/** Word lists for names that look like a real organisation's cluster, and unique-name bookkeeping. */
import type { Rng } from './prng';

export const TEAMS = [
  'payments',
  'checkout',
  'search',
  'catalog',
  'identity',
  'billing',
  'shipping',
  'inventory',
  'analytics',
  'ml-platform',
  'notifications',
  'frontend',
  'mobile-api',
  'ledger',
  'risk',
  'pricing',
  'recommendations',
  'media',
  'messaging',
  'support',
  'observability',
  'data-ingest',
  'reporting',
  'growth',
  'partners',
  'loyalty',
  'fulfillment',
  'returns',
  'fraud',
  'platform',
];
export const ENVS = ['prod', 'staging', 'dev', 'qa', 'perf', 'sandbox'];
export const COMPONENTS = [
  'api',
  'worker',
  'web',
  'gateway',
  'scheduler',
  'consumer',
  'producer',
  'sync',
  'cache',
  'db-proxy',
  'auth',
  'admin',
  'cron',
  'exporter',
  'indexer',
  'grpc',
  'graphql',
  'bff',
  'reconciler',
  'webhook',
  'stream',
  'batch',
  'ui',
  'edge',
];
export const IMAGES: { image: string; port: number }[] = [
  { image: 'registry.k8s.io/e2e-test-images/agnhost:2.47', port: 8080 },
  { image: 'nginx:1.27.3', port: 80 },
  { image: 'ghcr.io/acme/{app}:v{ver}', port: 8080 },
  { image: 'quay.io/acme/{app}:{ver}', port: 9090 },
  { image: 'europe-docker.pkg.dev/acme-prod/apps/{app}:{ver}', port: 8443 },
  { image: 'redis:7.4.1', port: 6379 },
  { image: 'docker.io/bitnami/postgresql:16.4.0', port: 5432 },
];
export const ENV_NAMES = [
  'LOG_LEVEL',
  'PORT',
  'DB_HOST',
  'DB_NAME',
  'REDIS_URL',
  'FEATURE_FLAGS',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'REGION',
  'GOMAXPROCS',
  'JAVA_OPTS',
  'NODE_ENV',
  'CACHE_TTL',
  'WORKERS',
  'KAFKA_BROKERS',
  'UPSTREAM_URL',
  'TIMEOUT_MS',
];

/** Hands out names unique within a scope (type + namespace), drawing fresh suffixes on collision. */
export class NameBook {
  private readonly used = new Map<string, Set<string>>();

  take(scope: string, base: string, rng: Rng, suffixLen = 5, alwaysSuffix = true): string {
    let set = this.used.get(scope);
    if (!set) this.used.set(scope, (set = new Set()));
    let name = alwaysSuffix ? `${base}-${rng.suffix(suffixLen)}` : base;
    for (let i = 2; set.has(name); i++) name = alwaysSuffix ? `${base}-${rng.suffix(suffixLen)}` : `${base}-${i}`;
    set.add(name);
    return name;
  }
}

export function namespaceNames(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const team = TEAMS[i % TEAMS.length]!;
    const env = ENVS[Math.floor(i / TEAMS.length) % ENVS.length]!;
    const round = Math.floor(i / (TEAMS.length * ENVS.length));
    out.push(round === 0 ? `${team}-${env}` : `${team}-${env}-${round + 1}`);
  }
  return out;
}
