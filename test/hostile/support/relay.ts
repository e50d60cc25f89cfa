/**
 * The hostile API server: a real HTTP(S) server on loopback in front of the demo cluster. Every
 * request is relayed to the demo unchanged, except those a case picks (`misbehave`), which this
 * server answers itself, badly. So discovery, lists and watches of every other type are the demo's
 * own, and what a client loaded can be compared with the demo's store.
 *
 * Guarantees:
 * - With a token, a request without `Authorization: Bearer <token>` is answered 401 and never
 *   relayed; the header is not passed on (the demo runs without credentials). `authorizations`
 *   counts every request that carried an Authorization header, wanted or not (the http:// case
 *   asserts it stays 0).
 * - A misbehaving answer ends when the client goes (the handlers watch `res` close), and close()
 *   destroys every socket and resolves once the listener is closed: nothing outlives a case.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface RelayOptions {
  /** The demo cluster's URL (plain http). */
  upstream: string;
  /** Serve HTTPS with this key and certificate; plain HTTP without. */
  tls?: { key: string; cert: string };
  /** Require this bearer token. */
  token?: string;
  /** The misbehaving answer for this request, or undefined to relay it. */
  misbehave?: (req: http.IncomingMessage, url: URL) => Handler | undefined;
}

export interface Relay {
  url: string;
  /** Requests that carried an Authorization header. */
  readonly authorizations: number;
  /** Requests answered by a misbehaving handler. */
  readonly misbehaved: number;
  close(): Promise<void>;
}

export async function startRelay(o: RelayOptions): Promise<Relay> {
  const upstream = new URL(o.upstream);
  const agent = new http.Agent({ keepAlive: true });
  let authorizations = 0;
  let misbehaved = 0;
  const sockets = new Set<Socket>();
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.on('error', () => {}); // a client that hangs up mid-answer is what these cases do
    if (req.headers.authorization !== undefined) authorizations++;
    if (o.token !== undefined && req.headers.authorization !== `Bearer ${o.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
      return;
    }
    const url = new URL(req.url ?? '/', 'http://relay');
    const bad = o.misbehave?.(req, url);
    if (bad) {
      misbehaved++;
      bad(req, res);
      return;
    }
    const headers = { ...req.headers, host: upstream.host };
    delete headers.authorization;
    const up = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  };
  const server = o.tls ? https.createServer({ key: o.tls.key, cert: o.tls.cert }, onRequest) : http.createServer(onRequest);
  server.on(o.tls ? 'secureConnection' : 'connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => {}); // the wrong-name case: the client refuses our certificate
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${o.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get authorizations() {
      return authorizations;
    },
    get misbehaved() {
      return misbehaved;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
