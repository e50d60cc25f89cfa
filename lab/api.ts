/**
 * A plain JSON client for the lab's API server over node:https, with real TLS verification, one
 * keep-alive agent and a bearer token: the lab's (and the real-control-plane tests') own eyes and
 * hands on the server, independent of KubeLoop's transport. Only node: builtins.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { ControlPlane } from './controlplane';

export interface Answer {
  status: number;
  body: any; // parsed Kubernetes JSON (or the raw text when it is not JSON); shape checked by the tests
  /** The raw body (a watch's newline-delimited events). */
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A minimal API client with real TLS verification, one keep-alive agent, and a bearer token; over
 * plain http:// (the demo cluster without TLS) neither CA nor token is needed.
 */
export class Api {
  private readonly agent: http.Agent;
  private readonly ca: Buffer | undefined;
  private readonly transport: typeof https | typeof http;

  constructor(
    readonly server: string,
    caFile: string | undefined,
    private readonly token: string | undefined,
    maxSockets = 16,
  ) {
    const plain = server.startsWith('http://');
    this.transport = plain ? http : https;
    this.ca = caFile ? fs.readFileSync(caFile) : undefined;
    this.agent = plain
      ? new http.Agent({ keepAlive: true, maxSockets })
      : new https.Agent({ keepAlive: true, maxSockets, ...(this.ca ? { ca: this.ca } : {}) });
  }

  private auth(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  static admin(cp: ControlPlane, maxSockets?: number): Api {
    return new Api(cp.server, cp.caFile, cp.adminToken, maxSockets);
  }

  request(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = this.transport.request(
        `${this.server}${p}`,
        {
          method,
          agent: this.agent,
          headers: {
            ...this.auth(),
            Accept: 'application/json',
            // An explicit length: Node sends a DELETE body unframed otherwise (no chunking for DELETE).
            ...(data ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(data)) } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              // not JSON: keep the text
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, text, headers: res.headers });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${p}: no answer in 60 s`)));
      req.on('error', reject);
      req.end(data);
    });
  }

  /** A request that must answer `want` (201 for creates); otherwise throws with the server's Status. */
  async must(method: string, p: string, body?: unknown, want = [200, 201], headers?: Record<string, string>): Promise<any> {
    const r = await this.request(method, p, body, headers);
    if (!want.includes(r.status)) throw new Error(`${method} ${p}: ${r.status} ${typeof r.body === 'string' ? r.body : JSON.stringify(r.body)}`);
    return r.body;
  }

  /**
   * Streams a watch (`p` includes watch=1): onEvent for each event, in order; resolves when the
   * server ends the stream or the signal aborts, rejects on a non-200 answer or a broken stream.
   */
  watch(p: string, signal: AbortSignal, onEvent: (type: string, object: any) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return resolve();
      const req = this.transport.get(
        `${this.server}${p}`,
        { ...(this.ca ? { ca: this.ca } : {}), agent: false, headers: { ...this.auth(), Accept: 'application/json' } },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`GET ${p}: ${res.statusCode}`));
            return;
          }
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            buf += c;
            for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
              const line = buf.slice(0, i).trim();
              buf = buf.slice(i + 1);
              if (!line) continue;
              const ev = JSON.parse(line) as { type: string; object: unknown };
              onEvent(ev.type, ev.object);
            }
          });
          res.on('end', resolve);
          res.on('error', (e) => (signal.aborted ? resolve() : reject(e)));
        },
      );
      const onAbort = () => req.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('close', () => signal.removeEventListener('abort', onAbort));
      req.on('error', (e) => (signal.aborted ? resolve() : reject(e)));
    });
  }

  /** One plain, unpaged GET of a whole collection (what the loader's counts are checked against). */
  async list(p: string, accept?: string): Promise<{ items: any[]; resourceVersion: string }> {
    const body = await this.must('GET', p, undefined, [200], accept ? { Accept: accept } : undefined);
    return { items: body.items ?? [], resourceVersion: body.metadata?.resourceVersion ?? '' };
  }

  close(): void {
    this.agent.destroy();
  }
}
