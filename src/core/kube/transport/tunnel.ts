/**
 * A keep-alive agent that reaches the API server through an HTTP(S) proxy with CONNECT tunnels, used
 * by both the transport's thread and its I/O thread (so a proxied cluster keeps its I/O thread).
 *
 * `tunnelAgentFactory` is shipped to the I/O thread as source text, like ioWorkerMain and its parts:
 * it must be self-contained, using only its parameter (a `require`) and what it loads with it
 * (kube-iothread-source.test.ts checks it).
 *
 * Guarantees:
 * - Each new connection is one CONNECT host:port to the proxy (over TLS when the proxy URL is
 *   https://), with Proxy-Authorization: Basic from the proxy URL's user info when it has one; once
 *   the proxy answers 200, the TLS session to the API server runs inside the tunnel with the agent's
 *   TLS material (CA, client certificate, servername), so the proxy sees only ciphertext.
 * - Tunnels are pooled by the agent as plain sockets are (keep-alive): one CONNECT per connection,
 *   not per request.
 * - A proxy that refuses (non-200), closes, answers garbage, or does not answer CONNECT within 30 s
 *   fails that request with an error
 *   naming the proxy by scheme, host and port only (never its credentials); code EPROXY or the
 *   socket's own code, so the transport classifies it as a connect failure.
 * - Plain http:// API servers are tunnelled too (CONNECT), where Go would send the request to the
 *   proxy in absolute form: the bytes the server sees are the same.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { Tls } from './auth';

export type TunnelAgentMaker = (secure: boolean, tls: Tls, proxyHref: string) => http.Agent;

export function tunnelAgentFactory(load: (id: string) => any): TunnelAgentMaker {
  const netMod = load('node:net');
  const tlsMod = load('node:tls');
  const httpMod = load('node:http');
  const httpsMod = load('node:https');
  const MAX_HEAD = 16 * 1024;
  // A proxy that takes the connection but never answers CONNECT fails the request after this long.
  const CONNECT_TIMEOUT_MS = 30_000;

  return (secure: boolean, tls: Tls, proxyHref: string): http.Agent => {
    const proxy = new URL(proxyHref);
    const proxyName = `${proxy.protocol}//${proxy.host}`;
    const proxyHost = proxy.hostname.replace(/^\[|\]$/g, '');
    const proxyPort = Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80);
    const authHeader =
      proxy.username || proxy.password
        ? `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n`
        : '';
    const agent: http.Agent = secure ? new httpsMod.Agent({ keepAlive: true, ...tls }) : new httpMod.Agent({ keepAlive: true });

    (agent as unknown as { createConnection: unknown }).createConnection = (
      options: Record<string, any>,
      callback: (err: Error | null, s?: unknown) => void,
    ) => {
      const host = String(options.host ?? 'localhost');
      const port = Number(options.port) || (secure ? 443 : 80);
      const target = `${netMod.isIP(host) === 6 ? `[${host}]` : host}:${port}`;
      const sock =
        proxy.protocol === 'https:'
          ? tlsMod.connect({ host: proxyHost, port: proxyPort, servername: netMod.isIP(proxyHost) ? undefined : proxyHost, ALPNProtocols: ['http/1.1'] })
          : netMod.connect({ host: proxyHost, port: proxyPort });
      let settled = false;
      let head = Buffer.alloc(0);
      const fail = (e: Error & { code?: string }) => {
        if (settled) return;
        settled = true;
        sock.destroy();
        callback(Object.assign(new Error(`proxy ${proxyName}: ${e.message}`), { code: e.code ?? 'EPROXY' }));
      };
      const onError = (e: Error) => fail(e);
      const onClose = () => fail(Object.assign(new Error(`closed the connection before answering CONNECT ${target}`), { code: 'ECONNRESET' }));
      const onData = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) {
          if (head.length > MAX_HEAD) fail(new Error(`answer to CONNECT ${target} is too long`));
          return;
        }
        sock.removeListener('data', onData);
        sock.removeListener('error', onError);
        sock.removeListener('close', onClose);
        const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
        const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
        if (!m || m[1] !== '200') {
          settled = true;
          sock.destroy();
          callback(Object.assign(new Error(`proxy ${proxyName} refused CONNECT ${target}: ${m ? statusLine : 'not an HTTP answer'}`), { code: 'EPROXY' }));
          return;
        }
        const rest = head.subarray(end + 4);
        if (rest.length > 0) sock.unshift(rest);
        sock.setTimeout(0);
        settled = true;
        if (!secure) return callback(null, sock);
        // TLS to the API server inside the tunnel, with the agent's TLS options (CA, client cert, servername).
        const servername = options.servername || (netMod.isIP(host) ? undefined : host);
        callback(null, tlsMod.connect({ ...options, host, port, socket: sock, servername }));
      };
      sock.on('data', onData);
      sock.on('error', onError);
      sock.on('close', onClose);
      sock.setTimeout(CONNECT_TIMEOUT_MS, () => {
        if (!settled) fail(Object.assign(new Error(`no answer to CONNECT ${target} within ${CONNECT_TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' }));
      });
      sock.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
        sock.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${authHeader}\r\n`);
      });
      return undefined;
    };
    return agent;
  };
}

const MODULES: Record<string, unknown> = { 'node:net': net, 'node:tls': tls, 'node:http': http, 'node:https': https };

/** The factory on this thread. */
export const makeTunnelAgent: TunnelAgentMaker = tunnelAgentFactory((id) => MODULES[id]);
