/**
 * Part of the I/O thread (ioWorker.ts): the `warm` message. Spare connections dialled ahead of the
 * lists (ioSpares.ts), each handshake's RTT sample, and the warm probe. Shipped as source text:
 * self-contained.
 *
 * The warm probe: one GET on a connection that is up, sent before the channel's lists start, so
 * the time to its answer's headers is one round trip plus the server's (small) work, with none of
 * a handshake's CPU in it, which near a busy server is most of a handshake sample. Other clusters'
 * pages may be moving through the thread meanwhile: that can only make a sample larger (each is
 * an upper bound, rtt.ts), and the loader re-checks a near figure with its own idle-time probe.
 * At most one per `warm` message; posts its sample, or probeFailed.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { Channel, Load, Post, Probe } from './ioProtocol';
import type { Spares } from './ioSpares';

export function connectionWarmer(load: Load, deps: { spares: Spares; channels: Map<number, Channel>; post: Post }) {
  const { spares, channels, post } = deps;
  const http = load('node:http');
  const https = load('node:https');
  const net = load('node:net');
  const tls = load('node:tls');
  const sendProbe = (c: Channel, probe: Probe) => {
    const t0 = performance.now();
    let reused = false;
    let settled = false;
    const failed = () => settled || ((settled = true), post({ t: 'probeFailed', ch: c.ch }));
    const req = (c.secure ? https : http).request(probe.url, { method: 'GET', agent: c.agent, headers: probe.headers });
    req.setTimeout(10_000, () => req.destroy(new Error('probe timed out')));
    req.once('socket', (sock: Socket) => (reused = !sock.connecting));
    req.on('error', failed);
    req.on('response', (res: IncomingMessage) => {
      const ms = performance.now() - t0;
      res.resume(); // the body is not read: only its timing matters
      res.on('error', () => undefined);
      if (settled) return;
      settled = true;
      post(reused ? { t: 'rtt', ch: c.ch, ms, probe: true } : { t: 'probeFailed', ch: c.ch });
    });
    req.end();
  };
  /** A connection of the channel is up: the probe waiting for one goes now. */
  const up = (c: Channel) => {
    const p = c.probing;
    c.probing = undefined;
    if (p && channels.get(c.ch) === c) sendProbe(c, p);
  };
  /** Connections of the channel's agent (busy, free) plus its spares. */
  const openSockets = (c: Channel): number => {
    let n = spares.countOf(c.agent);
    for (const pool of [c.agent.sockets, c.agent.freeSockets]) for (const list of Object.values(pool ?? {})) n += (list as unknown[]).length;
    return n;
  };
  /** Dials one spare with the options the agent itself would dial with; posts its handshake's RTT sample. */
  const dialSpare = (c: Channel, host: string, port: number): boolean => {
    const agent = c.agent;
    // SNI: the cluster's tls-server-name when set, as the agent's requests present it, else as
    // Node derives it: the host name, none for an IP address.
    const servername = agent.options?.servername || (net.isIP(host) ? '' : host);
    const options = { ...agent.options, host, port, servername, encoding: null };
    const t0 = performance.now();
    let connectMs = 0;
    let socket: Socket;
    try {
      socket = agent.dial.call(agent, options);
    } catch {
      return false; // the request will dial, and fail, in its own way
    }
    const sp = spares.add(socket, agent, `${host}:${port}`);
    socket.once('connect', () => (connectMs = performance.now() - t0));
    const ready = (ms: number) => {
      post({ t: 'rtt', ch: c.ch, ms });
      sp.ready = true;
      up(c);
    };
    if (c.secure && socket instanceof tls.TLSSocket) {
      const s = socket as TLSSocket;
      s.once('secureConnect', () => {
        const rounds = s.getProtocol() === 'TLSv1.3' || s.isSessionReused() ? 1 : 2;
        ready(Math.max(connectMs, (performance.now() - t0) / (1 + rounds)));
      });
    } else socket.once('connect', () => ready(connectMs));
    // A spare that fails is dropped; a list that needs a connection then dials its own.
    socket.on('error', () => {
      spares.drop(sp);
      if (c.probing && spares.liveOf(c.agent).length === 0) up(c); // no spare left to carry it: the agent dials (and the sample is refused)
    });
    socket.once('close', () => spares.drop(sp));
    return true;
  };
  /** Opens spares until `sockets` connections are open or opening. */
  const warm = (c: Channel, origin: string, sockets: number, probe?: Probe) => {
    const agent = c.agent;
    if (c.proxyHref || typeof agent.dial !== 'function') return void (probe && post({ t: 'probeFailed', ch: c.ch })); // a tunnel's connections go through the proxy: not warmed
    if (probe) {
      c.probing = probe;
      // A connection already up (a ready spare, a free socket of the agent) takes it at once.
      if (spares.liveOf(agent).some((x) => x.ready) || Object.values(agent.freeSockets ?? {}).some((l) => (l as unknown[]).length > 0)) up(c);
    }
    const u = new URL(origin);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const port = Number(u.port || (c.secure ? 443 : 80));
    for (let n = openSockets(c); n < sockets; n++) if (!dialSpare(c, host, port)) return;
    // Nothing dialling (every connection busy): the probe takes its turn on the agent.
    if (c.probing && spares.liveOf(agent).length === 0) up(c);
  };
  return { warm };
}
