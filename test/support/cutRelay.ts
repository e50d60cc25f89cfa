/**
 * A TCP relay a test can cut, the way a network cuts a workstation off its cluster:
 * - `cut('reset')`: every open connection is reset and new ones are refused (reset at once) until
 *   restore(): a VPN that drops, a laptop that loses its Wi-Fi.
 * - `cut('blackhole')`: open connections stay open but nothing crosses in either direction, and new
 *   connections are accepted and left hanging: a link that goes silent; on restore() what was held
 *   crosses, in order, as TCP would retransmit it.
 *
 * Guarantees: bytes cross unchanged and in order per connection; close() ends every connection and
 * the listener, and resolves once the listener is closed.
 */
import * as net from 'node:net';

export type CutMode = 'reset' | 'blackhole';

export interface CutRelay {
  host: string;
  port: number;
  cut(mode: CutMode): void;
  restore(): void;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

interface Pipe {
  client: net.Socket;
  server: net.Socket;
  /** Chunks held while blackholed: [to the server?, bytes]. */
  held: [boolean, Buffer][];
}

export async function startCutRelay(target: { host: string; port: number }, host = '127.0.0.1'): Promise<CutRelay> {
  let mode: CutMode | undefined;
  let accepted = 0;
  const pipes = new Set<Pipe>();
  const server = net.createServer((client) => {
    accepted++;
    if (mode === 'reset') return client.resetAndDestroy();
    const upstream = net.connect(target.port, target.host);
    const p: Pipe = { client, server: upstream, held: [] };
    pipes.add(p);
    const forward = (toServer: boolean) => (b: Buffer) => {
      if (mode === 'blackhole') p.held.push([toServer, b]);
      else (toServer ? upstream : client).write(b);
    };
    client.on('data', forward(true));
    upstream.on('data', forward(false));
    const end = () => {
      pipes.delete(p);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    host,
    port,
    cut(m) {
      mode = m;
      if (m === 'reset') {
        for (const p of [...pipes]) {
          pipes.delete(p);
          p.client.resetAndDestroy();
          p.server.destroy();
        }
      }
    },
    restore() {
      mode = undefined;
      for (const p of pipes) {
        for (const [toServer, b] of p.held) (toServer ? p.server : p.client).write(b);
        p.held = [];
      }
    },
    connections: () => accepted,
    async close() {
      for (const p of pipes) {
        p.client.destroy();
        p.server.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
