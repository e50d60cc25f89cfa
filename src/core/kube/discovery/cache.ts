/**
 * Discovery on disk, the way kubectl keeps it (~/.kube/cache/discovery/<host_port>/, 6 hours): a
 * load of a far-away cluster then starts without discovery's round trips.
 *
 * Layout: <root>/<host_port>-<h(server)>/<h(server, user)>.json, root defaulting to
 * $XDG_CACHE_HOME/kubeloop/discovery (else ~/.cache/kubeloop/discovery). h is a SHA-256 prefix.
 *
 * Guarantees:
 * - Never shared across servers or users: the folder is keyed by the full server URL (scheme, host,
 *   port, path) and TLS server name, the file by the kubeconfig user entry as well (its name and its
 *   credentials, hashed: no credential is written, only a digest of it). An entry also records its
 *   server and is ignored when that does not match.
 * - A corrupt, truncated, foreign, expired (older than the TTL) or future-dated entry is a miss,
 *   never an error; so is any failure to read. Writing is best effort (a read-only home just means
 *   no cache), atomic (a temporary file renamed into place: a reader never sees half an entry), and
 *   private (folders 0700, files 0600).
 * - Only a complete discovery is written: one with failed or stale groups is not cached, so the
 *   next load asks again instead of missing those groups for hours.
 * - All file access is asynchronous (libuv's pool); parsing an entry is one JSON.parse.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Discovery } from './parse';
import type { KubeContext } from '../config/kubeconfig';

/** kubectl's TTL for its disk discovery cache (cli-runtime ConfigFlags: 6 hours). */
export const DEFAULT_DISCOVERY_CACHE_TTL_MS = 6 * 60 * 60 * 1000;
const FORMAT = 1;

export interface DiscoveryCacheOptions {
  /** Root folder; default defaultDiscoveryCacheDir(). */
  dir?: string;
  ttlMs?: number;
  /** Wall-clock ms (entries are stamped with it). Default Date.now. */
  now?: () => number;
}

export function defaultDiscoveryCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'kubeloop', 'discovery');
}

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\0')).digest('hex');

/** Where the entry of this context lives: `folder` per server, `file` per server and user. */
export function discoveryCacheLocation(ctx: KubeContext, root: string): { folder: string; file: string } {
  const server = new URL(ctx.server);
  const tlsName = ctx.cluster.tlsServerName ?? '';
  // As kubectl's computeDiscoverCacheDir: host and port with unsafe characters made '_'; plus a
  // digest of the whole URL, so two servers on one host:port (different paths) never share.
  const hostPort = server.host.replace(/[^\w.]/g, '_');
  const folder = join(root, `${hostPort}-${digest(ctx.server, tlsName).slice(0, 12)}`);
  const user = ctx.user ? JSON.stringify(ctx.user) : 'anonymous';
  return { folder, file: join(folder, `${digest(ctx.server, tlsName, user).slice(0, 24)}.json`) };
}

interface Entry {
  format: number;
  server: string;
  savedAt: number;
  discovery: Discovery;
}

function isDiscovery(d: unknown): d is Discovery {
  if (!d || typeof d !== 'object') return false;
  const x = d as Discovery;
  return (
    (x.mode === 'aggregated' || x.mode === 'legacy') &&
    Array.isArray(x.groups) &&
    Array.isArray(x.failures) &&
    x.groups.every(
      (g) =>
        g &&
        typeof g.name === 'string' &&
        typeof g.preferredVersion === 'string' &&
        Array.isArray(g.versions) &&
        g.versions.every((v) => v && typeof v.version === 'string' && Array.isArray(v.resources)),
    )
  );
}

export class DiscoveryCache {
  readonly file: string;
  readonly folder: string;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly ctx: KubeContext,
    opts: DiscoveryCacheOptions = {},
  ) {
    ({ folder: this.folder, file: this.file } = discoveryCacheLocation(ctx, opts.dir ?? defaultDiscoveryCacheDir()));
    this.ttlMs = opts.ttlMs ?? DEFAULT_DISCOVERY_CACHE_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** The cached discovery with its age, or undefined (a miss: none, corrupt, foreign or expired). */
  async read(): Promise<{ discovery: Discovery; ageMs: number } | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return undefined;
    }
    try {
      const e = JSON.parse(text) as Entry;
      if (!e || e.format !== FORMAT || e.server !== this.ctx.server || typeof e.savedAt !== 'number' || !isDiscovery(e.discovery)) return undefined;
      const ageMs = this.now() - e.savedAt;
      if (ageMs < 0 || ageMs >= this.ttlMs) return undefined;
      return { discovery: e.discovery, ageMs };
    } catch {
      return undefined;
    }
  }

  /** Stores a complete discovery (see the guarantees); false when it was not stored. */
  async write(discovery: Discovery): Promise<boolean> {
    if (discovery.failures.length > 0 || discovery.groups.some((g) => g.versions.some((v) => v.stale))) return false;
    const entry: Entry = {
      format: FORMAT,
      server: this.ctx.server,
      savedAt: this.now(),
      discovery: { mode: discovery.mode, groups: discovery.groups, failures: [] },
    };
    const tmp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await mkdir(this.folder, { recursive: true, mode: 0o700 });
      await writeFile(tmp, JSON.stringify(entry), { mode: 0o600 });
      await rename(tmp, this.file);
      return true;
    } catch {
      await rm(tmp, { force: true }).catch(() => {});
      return false;
    }
  }

  /** Forgets the entry (a miss showed it out of date). */
  async invalidate(): Promise<void> {
    await rm(this.file, { force: true }).catch(() => {});
  }
}
