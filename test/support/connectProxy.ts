/**
 * A real CONNECT proxy on loopback, for the proxy tests: it answers CONNECT host:port with a TCP
 * tunnel (resolving names through `hosts`, so a test can use a name that only the proxy knows),
 * optionally demands Proxy-Authorization, and counts what it saw. Anything but CONNECT is a 405.
 */
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ConnectProxy {
  url: string;
  port: number;
  /** CONNECT targets, in order (host:port as asked). */
  connects: string[];
  /** Proxy-Authorization headers seen (decoded Basic user:password). */
  credentials: string[];
  /** Bytes relayed from the server to the client. */
  bytesDown: number;
  /** Tunnels open now. */
  open: number;
  close(): Promise<void>;
}

export async function startConnectProxy(opts: { hosts?: Record<string, string>; auth?: string } = {}): Promise<ConnectProxy> {
  const sockets = new Set<net.Socket>();
  const p: ConnectProxy = { url: '', port: 0, connects: [], credentials: [], bytesDown: 0, open: 0, close: async () => {} };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (c: Buffer) => {
      head = Buffer.concat([head, c]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.removeListener('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const [method, target] = lines[0].split(' ');
      const auth = lines.find((l) => /^proxy-authorization:/i.test(l));
      const creds = auth ? Buffer.from(auth.split(/\s+/)[2] ?? '', 'base64').toString('utf8') : '';
      if (auth) p.credentials.push(creds);
      if (method !== 'CONNECT') return void client.end('HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n');
      if (opts.auth !== undefined && creds !== opts.auth)
        return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      p.connects.push(target);
      const at = target.lastIndexOf(':');
      const host = target.slice(0, at).replace(/^\[|\]$/g, '');
      const upstream = net.connect({ host: opts.hosts?.[host] ?? host, port: Number(target.slice(at + 1)) });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => {
        if (!client.writableEnded) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      });
      upstream.on('connect', () => {
        p.open++;
        upstream.once('close', () => p.open--);
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        const rest = head.subarray(end + 4);
        if (rest.length) upstream.write(rest);
        upstream.on('data', (d: Buffer) => (p.bytesDown += d.length));
        client.pipe(upstream);
        upstream.pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
    };
    client.on('data', onData);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  p.port = (server.address() as AddressInfo).port;
  p.url = `http://127.0.0.1:${p.port}`;
  p.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return p;
}
