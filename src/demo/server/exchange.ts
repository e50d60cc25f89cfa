/**
 * Exchange: one request and its response, as every handler sees it. It owns the body reading and
 * the JSON writing, so request-wide effects (HEAD, the malformed-body fault, counters) live in one place.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzip } from 'node:zlib';
import type { ServerStats } from './stats';
import type { Identity } from './auth';
import type { RequestInfo } from './requestinfo';
import { load as loadYaml } from 'js-yaml';
import { decodeProtobufObject, PROTOBUF_KINDS, ProtobufMalformed, ProtobufUnsupported } from './protobuf';
import { ApiError, badRequest, type Status } from './status';

export const JSON_TYPE = 'application/json';

/**
 * As kube-apiserver (APIResponseCompression, on by default since 1.16): an answer is gzipped when
 * the client accepts gzip and the body is larger than 128 KiB (responsewriters'
 * defaultGzipThresholdBytes), at level 1 (defaultGzipContentEncodingLevel), with Vary: Accept-Encoding.
 * Watches are not compressed. The demo compresses in zlib's thread pool (async): never on its loop.
 */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
const GZIP_LEVEL = 1;

/** Whether an Accept-Encoding header admits gzip (a `gzip;q=0` entry refuses it). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const v = Array.isArray(header) ? header.join(',') : (header ?? '');
  for (const part of v.split(',')) {
    const [coding, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== 'x-gzip') continue;
    const q = params.find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}

/** Largest request body accepted (the apiserver's limit is 3 MiB per object; we allow more for lists). */
const MAX_BODY = 16 * 1024 * 1024;

export class Exchange {
  /** Set by the malformed-body fault: the next JSON answer is cut short (still 200). */
  malformBody = false;
  /** Set by the watch-drop fault: how a watch on this request drops events. */
  dropEvents?: { count?: number; fraction?: number; everyNth?: number };
  /** Set by the expire-continue fault: continue tokens on this request are answered 410. */
  expireContinue = false;
  readonly query: URLSearchParams;
  user = 'system:anonymous';
  /** The server's counters (body bytes sent); set by the router. */
  stats?: ServerStats;
  /** Set when the request impersonates (Impersonate-* headers): the identity it acts as. */
  impersonated?: Identity;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly url: URL,
    readonly info: RequestInfo,
  ) {
    this.query = url.searchParams;
  }

  get accept(): string | undefined {
    return this.req.headers.accept;
  }

  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  async readBody(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of this.req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 16777216');
      chunks.push(c as Buffer);
    }
    return Buffer.concat(chunks);
  }

  /**
   * The body as a JSON object (or array, for JSON patch); malformed JSON is a 400 like upstream.
   * YAML bodies are accepted. Protobuf bodies (client-go's generated clients send nothing else for
   * built-in types) are decoded for the kinds protobuf.ts knows; others, and CBOR, are a 415.
   */
  async readJson(what: string): Promise<unknown> {
    const ct = (this.req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
    if (ct === 'application/vnd.kubernetes.protobuf') {
      const buf = await this.readBody();
      let o: Record<string, unknown>;
      try {
        o = decodeProtobufObject(buf);
      } catch (e) {
        if (e instanceof ProtobufMalformed) throw protobufBadRequest(e, what, buf);
        if (e instanceof ProtobufUnsupported) {
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (the demo cluster reads protobuf only for ${PROTOBUF_KINDS.join(', ')}: ${e.message})`,
          );
        }
        throw e;
      }
      // another kind than the endpoint's: upstream's converter has no conversion between them
      if (o.kind !== what) {
        const version = String(o.apiVersion).split('/').pop();
        const internal = this.info.group === '' ? 'core' : this.info.group.split('.')[0];
        throw badRequest(
          `${String(o.kind)} in version ${JSON.stringify(version)} cannot be handled as a ${what}: converting (${version}.${String(o.kind)}) to (${internal}.${what}): unknown conversion`,
        );
      }
      return o;
    }
    if (ct !== 'application/json' && ct !== 'application/yaml' && ct !== '*/*') {
      await this.readBody();
      throw unsupportedMediaType(ct);
    }
    const buf = await this.readBody();
    const text = buf.toString('utf8');
    if (!text.trim()) throw badRequest(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`);
    try {
      return ct === 'application/yaml' ? loadYaml(text) : JSON.parse(text);
    } catch (e) {
      throw badRequest(`the object provided is unrecognized (must be of type ${what}): couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
  }

  json(code: number, body: unknown, contentType = JSON_TYPE, headers: Record<string, string> = {}): void {
    this.jsonText(code, JSON.stringify(body), contentType, headers);
  }

  /** Writes JSON text that is already serialized (lists assemble theirs from cached items). */
  jsonText(code: number, json: string, contentType = JSON_TYPE, headers: Record<string, string> = {}): void {
    if (this.closed) return;
    let text = json;
    if (this.malformBody) {
      // Cut the document in its first half where a value starts and splice in a stray '<html>' (as a
      // proxy's error page would): a client must fail to parse it, and a parser that quotes its input
      // in its message (V8's "Unexpected token") would quote the bytes before the cut.
      text = malform(text);
      code = 200;
    }
    this.writeJson(code, Buffer.from(text, 'utf8'), contentType, headers);
  }

  /** Writes JSON that is already UTF-8 bytes (a stored OpenAPI document: no string round trip). */
  jsonBytes(code: number, buf: Buffer, contentType = JSON_TYPE, headers: Record<string, string> = {}): void {
    if (this.malformBody) return this.jsonText(code, buf.toString('utf8'), contentType, headers);
    if (!this.closed) this.writeJson(code, buf, contentType, headers);
  }

  /**
   * Writes a protobuf body (protobuf-forms.ts), gzipped as JSON is. The malformed-body fault cuts it
   * in half, so a client's decoder fails as a JSON parser does on the cut JSON.
   */
  protobuf(code: number, buf: Buffer, contentType: string, headers: Record<string, string> = {}): void {
    if (this.closed) return;
    if (this.malformBody) buf = buf.subarray(0, Math.max(1, Math.floor(buf.length / 2)));
    this.writeJson(code, buf, contentType, headers);
  }

  private writeJson(code: number, buf: Buffer, contentType: string, headers: Record<string, string>): void {
    const head = { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', ...headers };
    if (this.req.method === 'HEAD') {
      this.res.writeHead(code, { ...head, 'Content-Length': String(buf.length) });
      this.res.end();
      return;
    }
    if (buf.length > GZIP_THRESHOLD_BYTES && acceptsGzip(this.req.headers['accept-encoding'])) {
      gzip(buf, { level: GZIP_LEVEL }, (err, zipped) => {
        if (this.closed) return;
        if (err) return this.send(code, head, buf, false);
        this.send(code, { ...head, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' }, zipped, true, buf.length);
      });
      return;
    }
    this.send(code, head, buf, false);
  }

  private send(code: number, head: Record<string, string>, body: Buffer, gzipped: boolean, plainBytes = body.length): void {
    this.res.writeHead(code, { ...head, 'Content-Length': String(body.length) });
    this.res.end(body);
    if (this.stats) {
      this.stats.bodyBytesSent += body.length;
      this.stats.bodyBytesUncompressed += plainBytes;
      if (gzipped) this.stats.gzipResponses++;
    }
  }

  status(s: Status, headers: Record<string, string> = {}): void {
    this.json(s.code, s, JSON_TYPE, headers);
  }

  error(e: ApiError): void {
    this.status(e.toStatus(), e.headers);
  }
}

/**
 * kube-apiserver's 400 for a body its protobuf serializer refuses (handlers' transformDecodeError):
 * "<Kind> in version "<v>" cannot be handled as a <Kind>: <err>" when the envelope named a kind,
 * else "the object provided is unrecognized (must be of type <Kind>): <err> (<summary>)", where the
 * summary is the body's first 30 bytes, as text when it starts with '{', else in hex.
 */
function protobufBadRequest(e: ProtobufMalformed, what: string, body: Buffer): ApiError {
  if (e.gvk) return badRequest(`${e.gvk.kind} in version ${JSON.stringify(e.gvk.version)} cannot be handled as a ${what}: ${e.message}`);
  const head = body.subarray(0, 30);
  const more = body.length > 30 ? ' ...' : '';
  const summary = body.length === 0 ? '<empty>' : body[0] === 0x7b ? `${head.toString('utf8')}${more}` : `${head.toString('hex')}${more}`;
  return badRequest(`the object provided is unrecognized (must be of type ${what}): ${e.message} (${summary})`);
}

/** The content type of the request body, lower-cased, without parameters. */
export function requestContentType(x: Exchange): string {
  return (x.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';

export function unsupportedMediaType(ct: string): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (got ${ct})`,
  );
}

const encoded = new WeakMap<object, string>();

/**
 * The JSON text of a stored object, computed once per object: stored objects are immutable, so
 * their serialization never changes, and repeated lists (paging, benchmarks, relists) only join
 * strings. Entries live exactly as long as the object does (WeakMap).
 */
export function encodeStored(o: object): string {
  let s = encoded.get(o);
  if (s === undefined) {
    s = JSON.stringify(o);
    encoded.set(o, s);
  }
  return s;
}

const encodedItems = new WeakMap<object, string>();

/**
 * The JSON text of a stored built-in object as an item of a list: without apiVersion and kind, as
 * the apiserver encodes typed lists (custom resources, being unstructured, keep both). Cached
 * like encodeStored, and the same for every served version.
 */
export function encodeListItem(o: { apiVersion?: unknown; kind?: unknown }): string {
  let s = encodedItems.get(o);
  if (s === undefined) {
    const { apiVersion: _a, kind: _k, ...rest } = o;
    s = JSON.stringify(rest);
    encodedItems.set(o, s);
  }
  return s;
}

/** The first half of a JSON document, cut just after a property name's colon, then '<html>'. */
function malform(text: string): string {
  const half = Math.max(1, Math.floor(text.length / 2));
  for (let i = half; i > 0; i--) {
    if (text[i] === ':' && text[i - 1] === '"' && text[i - 2] !== '\\') return `${text.slice(0, i + 1)}<html>`;
  }
  return text.slice(0, half);
}
