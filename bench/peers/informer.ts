// Peer "informer floor" (bench/apicost.ts): what a client-go informer set costs the API server for
// the same selection `kubeloop sync` watches (all pods; Events with involvedObject.kind=Pod), and no
// more. Per type, as client-go's reflector does: one list from the watch cache (resourceVersion=0,
// limit 500, continue tokens followed), then a watch from the list's resourceVersion with bookmarks
// and a random 5..10 min timeoutSeconds, resumed from the last resourceVersion seen when it ends
// normally; a 410 relists. No resync requests (client-go's resync replays its local store).
// Usage: node informer.js KUBECONFIG ; runs until SIGTERM / SIGINT.
import * as http from 'node:http';
import * as https from 'node:https';
import { requestBase } from '../types';

interface Kind {
  path: string;
  fieldSelector?: string;
}

const KINDS: Kind[] = [{ path: '/api/v1/pods' }, { path: '/api/v1/events', fieldSelector: 'involvedObject.kind=Pod' }];
const CONTINUE = /"continue":"([^"]*)"/;
const RV = /"resourceVersion":"([^"]*)"/;

async function main() {
  const [kubeconfig] = process.argv.slice(2);
  const base = await requestBase(kubeconfig!);
  const isHttps = base.server.protocol === 'https:';
  const agent = new (isHttps ? https.Agent : http.Agent)({ keepAlive: true });
  const life = new AbortController();
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => life.abort());
  const query = (k: Kind, q: Record<string, string>) => {
    const u = new URLSearchParams(q);
    if (k.fieldSelector) u.set('fieldSelector', k.fieldSelector);
    return `${k.path}?${u.toString()}`;
  };
  const get = (path: string, onData?: (line: string) => void) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = (isHttps ? https : http).request(new URL(path, base.server), { ...base.options, agent, signal: life.signal }, (res) => {
        const chunks: Buffer[] = [];
        let partial = '';
        res.on('data', (c: Buffer) => {
          if (!onData) return void chunks.push(c);
          const lines = (partial + c.toString('utf8')).split('\n');
          partial = lines.pop() ?? '';
          for (const l of lines) if (l) onData(l);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const list = async (k: Kind): Promise<string> => {
    let token = '';
    let rv = '';
    do {
      const r = await get(query(k, token ? { limit: '500', continue: token } : { resourceVersion: '0', limit: '500' }));
      if (r.status !== 200) throw new Error(`list ${k.path}: ${r.status} ${r.body.slice(0, 200)}`);
      const meta = r.body.slice(0, r.body.indexOf('"items"') >>> 0);
      rv ||= RV.exec(meta)?.[1] ?? '';
      token = CONTINUE.exec(meta)?.[1] ?? '';
      JSON.parse(r.body); // an informer decodes what it lists
    } while (token);
    return rv;
  };
  const run = async (k: Kind) => {
    while (!life.signal.aborted) {
      let rv = await list(k);
      for (;;) {
        let expired = false;
        const timeout = String(Math.floor(300 * (1 + Math.random())));
        const r = await get(query(k, { watch: '1', resourceVersion: rv, allowWatchBookmarks: 'true', timeoutSeconds: timeout }), (line) => {
          const e = JSON.parse(line) as { type: string; object: { code?: number; metadata?: { resourceVersion?: string } } };
          if (e.type === 'ERROR') expired = e.object.code === 410;
          else if (e.object.metadata?.resourceVersion) rv = e.object.metadata.resourceVersion;
        });
        if (r.status === 410 || expired) break;
        if (r.status !== 200) throw new Error(`watch ${k.path}: ${r.status}`);
      }
    }
  };
  await Promise.all(KINDS.map((k) => run(k))).catch((e) => {
    if (!life.signal.aborted) throw e;
  });
  agent.destroy();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
