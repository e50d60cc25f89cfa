/**
 * The stored OpenAPI v3 documents of kube-apiserver's built-in groups (../data/openapi, written by
 * scripts/refresh-openapi.mjs; the bundles carry a copy in dist/openapi, see esbuild.config.mjs).
 *
 * Guarantees: the index (a few KB) is read once, synchronously, on first use; a document is read
 * and gunzipped off the event loop (zlib's thread pool) on first request and then kept, as bytes,
 * never parsed; its hash is the one kube-apiserver computed (upper-case hex SHA-512 of the bytes).
 * When the data cannot be found (a broken install) every lookup says "not stored", and the server
 * falls back to generated documents: explain then knows no fields, nothing else breaks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipAsync = promisify(gunzip);

interface Index {
  source: string;
  documents: Record<string, { file: string; hash: string; bytes: number }>;
  crdComponents?: string;
}

/** dist/openapi next to a bundle, or src/demo/data/openapi next to this source file. */
function findDir(): string | undefined {
  for (const dir of [join(__dirname, 'openapi'), join(__dirname, '..', 'data', 'openapi')]) {
    if (existsSync(join(dir, 'index.json'))) return dir;
  }
  return undefined;
}

export class StoredOpenAPI {
  private index: Index | null | undefined;
  private readonly docs = new Map<string, Promise<Buffer>>();
  private components: Promise<Record<string, unknown>> | undefined;

  constructor(private readonly dir: string | undefined = findDir()) {}

  private load(): Index | null {
    if (this.index !== undefined) return this.index;
    try {
      this.index = this.dir ? (JSON.parse(readFileSync(join(this.dir, 'index.json'), 'utf8')) as Index) : null;
    } catch {
      this.index = null;
    }
    return this.index;
  }

  /** The hash of the stored document for 'api/v1' or 'apis/<group>/<version>', if one is stored. */
  hash(gv: string): string | undefined {
    return this.dir ? this.load()?.documents[gv]?.hash : undefined;
  }

  /** The stored document's bytes (as kube-apiserver served them). Rejects if the file is unreadable. */
  document(gv: string): Promise<Buffer> | undefined {
    const entry = this.load()?.documents[gv];
    if (!entry || !this.dir) return undefined;
    let p = this.docs.get(gv);
    if (!p) {
      p = readFile(join(this.dir, entry.file)).then((gz) => gunzipAsync(gz));
      p.catch(() => this.docs.delete(gv)); // a later request tries again
      this.docs.set(gv, p);
    }
    return p;
  }

  /** ObjectMeta and the schemas it refers to, for custom resources' documents; {} when not stored. */
  crdComponents(): Promise<Record<string, unknown>> {
    const file = this.load()?.crdComponents;
    if (!file || !this.dir) return Promise.resolve({});
    this.components ??= readFile(join(this.dir, file))
      .then((gz) => gunzipAsync(gz))
      .then((b) => JSON.parse(b.toString('utf8')) as Record<string, unknown>)
      .catch(() => {
        this.components = undefined;
        return {};
      });
    return this.components;
  }
}
