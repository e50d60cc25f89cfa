// Peer "decode floor": the work any loader that turns every page into objects must do even if the
// network were free. It reads the same page bodies the raw peer fetched (saved to files, so from
// the page cache), then decodes each one (bytes -> string -> JSON.parse) and counts its items,
// keeping none, as `kubeloop load` does. No HTTP, no TLS, no discovery, no server sharing the
// cores: a lower bound for the loading thread's work.
// Usage: node decode.js PAGES_DIR ; prints {"objects": N, "pages": N, "bytes": N}.
import { isAscii } from 'node:buffer';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function main() {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: decode.js PAGES_DIR');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const bodies = files.map((f) => readFileSync(join(dir, f)));
  let objects = 0;
  let bytes = 0;
  for (const b of bodies) {
    bytes += b.length;
    // the loader's own choice: a one-byte string when the page is ASCII (cheaper to build and parse)
    const list = JSON.parse(b.toString(isAscii(b) ? 'latin1' : 'utf8')) as { items?: unknown[] | null };
    objects += list.items?.length ?? 0;
  }
  process.stdout.write(JSON.stringify({ objects, pages: files.length, bytes }) + '\n');
}
main();
