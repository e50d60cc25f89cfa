/**
 * A reverse proxy on loopback that notes what crosses it: each request's URL and Accept header and
 * each answer's Content-Type (which form, JSON or protobuf, a client asked for and got). Bytes pass
 * through untouched; closing it ends every connection, watches included.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  url: string;
  accept: string;
  contentType: string;
}

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

export async function wireProxy(target: string): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const up = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      seen.push({ url: req.url ?? '', accept: String(req.headers.accept ?? ''), contentType: String(r.headers['content-type'] ?? '') });
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
