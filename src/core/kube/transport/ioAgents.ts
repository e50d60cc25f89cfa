/**
 * Part of the I/O thread (ioWorker.ts): each channel's keep-alive agent. Shipped as source text:
 * self-contained.
 *
 * A channel is one cluster: its scheme, its proxy and its current TLS material make its agent; a
 * rotation (`tls`) makes a new agent for new connections while the old one's busy sockets finish.
 */
import type { Tls } from './auth';
import type { Channel, Load } from './ioProtocol';
import type { Spares } from './ioSpares';
import type { TunnelAgentMaker } from './tunnel';

export function channelAgents(load: Load, makeTunnel: TunnelAgentMaker, spares: Spares) {
  const http = load('node:http');
  const https = load('node:https');
  const tls = load('node:tls');
  /** One TLS context per agent, not one per connection (secureContext.ts says why; kept in step with it). */
  const sharedContext = (t: Tls): Tls & { secureContext?: unknown } => {
    try {
      const { ca, cert, key, pfx, passphrase } = t as Record<string, unknown>;
      const material = Object.fromEntries(Object.entries({ ca, cert, key, pfx, passphrase }).filter(([, v]) => v !== undefined));
      return { ...t, secureContext: tls.createSecureContext(material) };
    } catch {
      return t;
    }
  };
  /** The channel's agent for new connections (the old one's spares go; its busy sockets finish). */
  const makeAgent = (c: Channel, t: Tls) => {
    if (c.agent) spares.destroyOf(c.agent);
    c.agent = c.proxyHref
      ? makeTunnel(c.secure, t, c.proxyHref)
      : spares.sparing(c.secure ? new https.Agent({ keepAlive: true, ...sharedContext(t) }) : new http.Agent({ keepAlive: true }));
    c.agents.push(c.agent);
  };
  /** A PKCS#12 crosses threads as a plain Uint8Array (or a list of them, or PxfObjects): Buffers again. */
  const bin = (v: unknown): unknown =>
    v instanceof Uint8Array
      ? Buffer.from(v.buffer, v.byteOffset, v.byteLength)
      : Array.isArray(v)
        ? v.map(bin)
        : v && typeof v === 'object' && 'buf' in v
          ? { ...v, buf: bin((v as { buf: unknown }).buf) } // PxfObject
          : v;

  const open = (ch: number, secure: boolean, proxyHref: string | undefined): Channel => {
    const c: Channel = { ch, secure, proxyHref, agent: undefined, agents: [] };
    makeAgent(c, {});
    return c;
  };
  /** New credentials (e.g. a rotated client certificate): new connections use them. */
  const retls = (c: Channel, t: Tls) => makeAgent(c, { ...t, pfx: bin(t.pfx) as Tls['pfx'] });
  /** Destroys every agent the channel made, with every socket and spare of them. */
  const close = (c: Channel) => {
    for (const a of c.agents) (spares.destroyOf(a), a.destroy());
    c.agents = [];
  };
  return { open, retls, close };
}
