/**
 * Credentials that live in files rotated under a running client: a user's `token-file` (a projected
 * service-account token is rewritten well before it expires) and `client-certificate` /
 * `client-key` files (cert-manager, a kubelet-style rotation). A long sync loop must pick up the new
 * ones without a restart and without a storm of 401s.
 *
 * TokenFile, as client-go's cached file token source (transport/token_source.go,
 * NewCachedFileTokenSource): the token read last is used for a minute, then the file is read again
 * at its next use; a 401 to the token in use makes the next use read it at once (client-go's
 * ResetTokenOlderThan), so the transport's one retry after a 401 already carries the new token. A
 * read that fails, or finds the file empty, keeps the token in hand (client-go: "Unable to rotate
 * token"); the next 401 or minute tries again.
 *
 * KeyPairFiles, as client-go's reloading of certificate files (transport.go, ReloadTLSFiles, used
 * when both come from files): the files are looked at (stat) at most once a second, and at once
 * after a 401; when either changed they are read again, and a pair whose key does not match its
 * certificate (caught between the two writes of a rotation) is not taken: the old pair stays until
 * a later look finds a matching one. A new pair makes new connections (auth.ts), as client-go's
 * certificate rotation closes its connections.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { Clock } from '../../clock';

/** client-go's file token source period. */
const TOKEN_FILE_PERIOD_MS = 60_000;
/** client-go's certificate-file cache (isStale: older than a second). */
const KEY_PAIR_CHECK_MS = 1_000;

export class TokenFile {
  private readAt: number;
  /** Increases whenever the token changes. */
  generation = 0;

  constructor(
    private readonly path: string,
    private readonly clock: Clock,
    /** What the file said when the kubeconfig was read. */
    private current: string,
  ) {
    this.current = current.trim();
    this.readAt = clock.now();
  }

  /**
   * The token to send. `refused`: a request got 401 with the token of that generation; if it is
   * still the current one the file is read now.
   */
  token(refused?: number): string {
    const now = this.clock.now();
    if ((refused !== undefined && refused === this.generation) || now - this.readAt >= TOKEN_FILE_PERIOD_MS) {
      this.readAt = now;
      let next: string | undefined;
      try {
        next = readFileSync(this.path, 'utf8').trim();
      } catch {
        next = undefined; // keep the token in hand (see above)
      }
      if (next && next !== this.current) {
        this.current = next;
        this.generation++;
      }
    }
    return this.current;
  }
}

interface KeyPair {
  cert: Buffer;
  key: Buffer;
}

function signature(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (e) {
    return `error:${(e as NodeJS.ErrnoException).code ?? ''}`;
  }
}

function matches(p: KeyPair): boolean {
  try {
    return new X509Certificate(p.cert).checkPrivateKey(createPrivateKey(p.key));
  } catch {
    return false;
  }
}

export class KeyPairFiles {
  private checkedAt: number;
  private seen: string;

  constructor(
    private readonly certFile: string,
    private readonly keyFile: string,
    private readonly clock: Clock,
    /** The pair read when the transport was made. */
    public current: KeyPair,
  ) {
    this.checkedAt = clock.now();
    this.seen = this.signatures();
  }

  private signatures(): string {
    return `${signature(this.certFile)}|${signature(this.keyFile)}`;
  }

  /** The pair to use for new connections; `now`: look at the files whatever the time (after a 401). */
  pair(now = false): KeyPair {
    const t = this.clock.now();
    if (!now && t - this.checkedAt < KEY_PAIR_CHECK_MS) return this.current;
    this.checkedAt = t;
    const sig = this.signatures();
    if (sig === this.seen) return this.current;
    let next: KeyPair;
    try {
      next = { cert: readFileSync(this.certFile), key: readFileSync(this.keyFile) };
    } catch {
      return this.current; // not recorded as seen: looked at again next time
    }
    if (!matches(next)) return this.current;
    this.seen = sig;
    if (!next.cert.equals(this.current.cert) || !next.key.equals(this.current.key)) this.current = next;
    return this.current;
  }
}
