/**
 * The I/O thread's message protocol (ToWorker, FromWorker), and the shapes of the state its parts
 * share (a channel, a spare connection, a stream and its page fetches). Types only: the worker's
 * code is in the io*.ts parts that ioWorker.ts names.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { HeaderMap, Tls } from './auth';

/** A paged list the I/O thread walks (ClientMessage 'list', and the state of its stream). */
export interface ListStreamRequest {
  /** First page's URL, and the URL a continue token is appended to. */
  url: string;
  next: string;
  headers: HeaderMap;
  grants: number;
  prefetch: boolean;
  timeoutMs: number;
  /** The most decoded bytes one page's body may have (TransportOptions.maxResponseBytes). */
  maxBytes: number;
  /** Pages are Tables whose rows' managedFields the caller drops: they are cut on the thread (ioTable.ts). */
  trimTable?: boolean;
}
export type ToWorker =
  /**
   * A cluster's channel: `secure` (https), `proxy`: tunnel every connection through this http(s)
   * proxy. Sent before any other message of the channel.
   */
  | { t: 'open'; ch: number; secure: boolean; proxy?: string }
  /** The channel is over: its streams are stopped and its agent and spares destroyed. */
  | { t: 'close'; ch: number }
  | { t: 'tls'; ch: number; tls: Tls }
  | ({ t: 'list'; ch: number; id: number } & ListStreamRequest)
  | { t: 'grant'; id: number; grants: number; headers: HeaderMap }
  | { t: 'cancel'; id: number }
  | { t: 'recycle'; buffer: ArrayBuffer }
  /**
   * Have `sockets` connections of the channel to `origin` open or opening (spare ones are dialled
   * now); see ioWarm.ts. `probe`: also GET this URL once on the first connection that is up.
   */
  | { t: 'warm'; ch: number; origin: string; sockets: number; probe?: Probe };

export type FailKind = 'connect' | 'reset' | 'timeout' | 'malformed' | 'tooLarge';

/** `sent`: requests sent since the stream's previous message. `end`: the stream is over. */
export type FromWorker =
  | {
      t: 'page';
      id: number;
      status: number;
      headers: IncomingHttpHeaders;
      body: ArrayBuffer;
      /** The answer's Content-Type: how the calling thread decodes the body (JSON or Kubernetes protobuf). */
      contentType: string;
      /** The bytes of `body` to read. */
      length: number;
      /** The body's size as the server sent it (decoded): more than `length` when a Table was trimmed. */
      size: number;
      wire: number;
      gzip: boolean;
      ascii: boolean;
      token: string | null;
      sent: number;
      end: boolean;
    }
  | { t: 'fail'; id: number; kind: FailKind; code?: string; message: string; sent: number; end: true }
  | { t: 'progress'; id: number; end?: undefined }
  /**
   * An RTT sample (rtt.ts's rule) taken on this thread: from a connection's handshake, or from the
   * warm probe's answer on a connection that was already up (`probe`: then one request was sent).
   */
  | { t: 'rtt'; ch: number; ms: number; probe?: boolean; id?: undefined; end?: undefined }
  /** The warm probe was not answered (no sample; the caller probes in its own way). */
  | { t: 'probeFailed'; ch: number; id?: undefined; end?: undefined };

export type Post = (m: FromWorker, transfer?: ArrayBuffer[]) => void;

/** The worker's `require` (parts load Node's modules through it, never by import). */
export type Load = (id: string) => any;

export interface Probe {
  url: string;
  headers: HeaderMap;
}

/** One cluster's connections: what `open` set up, the agent of its current TLS material. */
export interface Channel {
  ch: number;
  secure: boolean;
  proxyHref?: string;
  agent: any;
  /** Every agent the channel made (a TLS rotation makes a new one): `close` destroys them all. */
  agents: any[];
  /** A warm probe asked for and not sent yet: it goes on the channel's next connection that is up. */
  probing?: Probe;
}

/** A connection dialled ahead of the lists, owned by the agent that dialled it (ioSpares.ts). */
export interface Spare {
  socket: Socket;
  owner: unknown;
  key: string;
  timer: ReturnType<typeof setTimeout>;
  /** Its handshake is done. */
  ready: boolean;
}

export interface Fetch {
  req?: { destroy(): void };
  timer?: ReturnType<typeof setTimeout>;
  status: number;
  headers: IncomingHttpHeaders;
  /** The body: copied into one buffer of the announced Content-Length as it arrives (see PREALLOC_BYTES), else gathered. */
  body?: Buffer;
  chunks: Buffer[];
  size: number;
  /** Body bytes as received (compressed when gzip). */
  wire: number;
  gzip: boolean;
  /** The answer is Kubernetes protobuf (its Content-Type): its token is read by ioProtobuf.ts. */
  protobuf?: boolean;
  /** The body's first bytes (at most SCAN), one char per byte, while its token is unknown. */
  head: string;
  /** undefined: not known yet; null: cannot be read; '': the last page. */
  token?: string | null;
  /** The list writes its items before its metadata: the token is in the body's tail. */
  atTail?: boolean;
  done: boolean;
  /** The page after this one has been requested. */
  followed: boolean;
  failure?: Failure;
  inflater?: { destroy(): void };
}

export interface Failure {
  kind: FailKind;
  code?: string;
  message: string;
}

export interface Stream extends Omit<ListStreamRequest, 'url'> {
  id: number;
  /** The cluster whose agent carries its requests. */
  c: Channel;
  /** Requested and not yet posted, in list order. */
  fetches: Fetch[];
  /** The page requested last (possibly posted already). */
  newest?: Fetch;
  sent: number;
  /** When `progress` was last posted (ms). */
  progressAt: number;
}
