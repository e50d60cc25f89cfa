// Peer "raw bytes": the lower bound for any loader over HTTP/JSON. The same pages a loader fetches
// (limit=PAGE, four types at a time, one keep-alive agent), but the bodies are never parsed: the
// continue token is cut out of the list's leading metadata and the bytes are counted and dropped.
// Usage: node raw.js KUBECONFIG TYPES_JSON PAGE CONCURRENCY [SAVE_DIR] ; prints {"bytes": N, "pages": N}.
// With SAVE_DIR (an unmeasured run) every page body is also written there, for the decode floor.
import * as http from 'node:http';
import * as https from 'node:https';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listPath, requestBase, type BenchType } from '../types';

const CONTINUE = /"continue":"([^"]*)"/;

async function main() {
  const [kubeconfig, typesFile, page = '500', conc = '4', saveDir] = process.argv.slice(2);
  if (saveDir) mkdirSync(saveDir, { recursive: true });
  const base = await requestBase(kubeconfig);
  const isHttps = base.server.protocol === 'https:';
  const agent = new (isHttps ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: Number(conc) });
  const types: BenchType[] = JSON.parse(readFileSync(typesFile, 'utf8'));
  let bytes = 0;
  let pages = 0;
  const fetchPage = (path: string) =>
    new Promise<string>((resolve, reject) => {
      const req = (isHttps ? https : http).request(new URL(path, base.server), { ...base.options, agent }, (res) => {
        let head = '';
        const kept: Buffer[] | undefined = saveDir ? [] : undefined;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          kept?.push(c);
          if (head.length < 2048) head += c.toString('latin1', 0, Math.min(c.length, 2048));
        });
        res.on('end', () => {
          if (kept) writeFileSync(join(saveDir!, `${String(pages).padStart(5, '0')}.json`), Buffer.concat(kept));
          pages++;
          if ((res.statusCode ?? 0) >= 300) return reject(new Error(`${path}: ${res.statusCode}`));
          resolve(CONTINUE.exec(head.slice(0, head.indexOf('"items"') >>> 0))?.[1] ?? '');
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  let next = 0;
  const worker = async () => {
    while (next < types.length) {
      const t = types[next++];
      let token = '';
      do {
        const q = `?limit=${page}` + (token ? `&continue=${encodeURIComponent(token)}` : '');
        token = await fetchPage(listPath(t) + q);
      } while (token);
    }
  };
  await Promise.all(Array.from({ length: Number(conc) }, worker));
  agent.destroy();
  process.stdout.write(JSON.stringify({ bytes, pages }) + '\n');
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
