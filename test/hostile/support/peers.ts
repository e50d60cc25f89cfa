/**
 * The bad peers: answers a hostile or broken API server gives. Each is a Handler for one request
 * (relay.ts picks which requests get it). Every one that streams stops when the client goes, and
 * writes only when the socket drains, so the server's own memory stays flat whatever the client does.
 */
import type * as http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Handler } from './relay';

const listHead = (kind: string) => `{"kind":"${kind}List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`;

/** Writes `next()` chunks while the socket drains, until `next` returns undefined or the client goes. */
function stream(res: http.ServerResponse, next: () => Buffer | string | undefined): void {
  let gone = false;
  res.on('close', () => (gone = true));
  const more = () => {
    while (!gone) {
      const chunk = next();
      if (chunk === undefined) return void res.end();
      if (!res.write(chunk)) return void res.once('drain', more);
    }
  };
  more();
}

/** Sends `bytes` one at a time, one a second, on the raw socket, until the client goes. */
function trickle(socket: NodeJS.WritableStream & { on(e: 'close', f: () => void): unknown }, bytes: string): void {
  let i = 0;
  const timer = setInterval(() => {
    if (i < bytes.length) socket.write(bytes[i++]!);
  }, 1000);
  socket.on('close', () => clearInterval(timer));
  socket.write(bytes[i++]!);
}

/** A 200 list whose items never end: about 80 MB a second on loopback, for as long as the client reads. */
export function endlessBody(kind: string): Handler {
  const filler = Buffer.from('{"metadata":{"name":"again","namespace":"default"}},'.repeat(2048));
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(listHead(kind));
    stream(res, () => filler);
  };
}

let bombMember: Buffer | undefined;
/** gzip members of 64 MiB of JSON whitespace each (about 64 KB on the wire); endless: 1,000:1 and more. */
export function gzipBomb(kind: string): Handler {
  bombMember ??= gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '), { level: 9 });
  const member = bombMember;
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    res.write(gzipSync(listHead(kind)));
    stream(res, () => member);
  };
}

/** Content-Length: 1 TB, then the body one byte a second. */
export function hugeLengthTrickle(kind: string): Handler {
  return (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1e12) });
    res.flushHeaders();
    trickle(res, listHead(kind) + ' '.repeat(100_000));
  };
}

/** The status line and headers one byte a second, on the raw socket (no body ever comes). */
export function slowHeaders(): Handler {
  return (req) => trickle(req.socket, 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: ' + 'x'.repeat(100_000) + '\r\n\r\n');
}

/** A watch that streams one event that never ends: no newline, ever. */
export function watchWithoutNewline(): Handler {
  const filler = Buffer.from('x'.repeat(64 * 1024));
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.write('{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"');
    stream(res, () => filler);
  };
}

/** Every page holds one object and the same continue token: a pager that trusts it never ends. */
export function repeatingContinue(kind: string, apiVersion: string): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: `${kind}List`,
        apiVersion,
        metadata: { resourceVersion: '7', continue: 'c2FtZS10b2tlbi1hZ2Fpbg' },
        items: [{ apiVersion, kind, metadata: { name: 'again', namespace: 'default', uid: 'u-again', resourceVersion: '7' } }],
      }),
    );
  };
}

/** A Status error whose message carries what the case plants (escape sequences). */
export function statusError(code: number, reason: string, message: string): Handler {
  return (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
  };
}

/**
 * GET /apis as the demo answers it, with `extra` more groups after the demo's own (aggregated form, or
 * the legacy APIGroupList when that is what the client asked for). Each extra group serves one
 * type that can be got but not listed, so a loader has nothing to list there: the case is about
 * what a discovery document that size costs, not about ten thousand lists.
 */
export function manyGroups(upstream: string, extra: number): Handler {
  return (req, res) => {
    void (async () => {
      const answer = await fetch(`${upstream}/apis`, { headers: { accept: req.headers.accept ?? 'application/json' } });
      const doc = (await answer.json()) as { kind: string; items?: unknown[]; groups?: unknown[] };
      for (let i = 0; i < extra; i++) {
        const name = `g${i}.hostile.test`;
        if (doc.kind === 'APIGroupDiscoveryList')
          doc.items!.push({
            metadata: { name, creationTimestamp: null },
            versions: [
              {
                version: 'v1',
                freshness: 'Current',
                resources: [
                  {
                    resource: 'widgets',
                    responseKind: { group: name, version: 'v1', kind: 'Widget' },
                    scope: 'Namespaced',
                    singularResource: 'widget',
                    verbs: ['get'],
                  },
                ],
              },
            ],
          });
        else
          doc.groups!.push({
            name,
            versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
            preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
          });
      }
      res.writeHead(200, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(JSON.stringify(doc));
    })().catch(() => res.destroy());
  };
}
