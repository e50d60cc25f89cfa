// What each list form costs per object (issue 14): full objects, PartialObjectMetadataList, and the
// server-side Table with includeObject=Metadata and =None, on the demo cluster's pods and on its
// whole mix of types. Bytes per object over the wire (uncompressed JSON) and JSON.parse time per
// page of 500, plus our own page handling (tableItems / the view) for the forms the tree uses, and
// 'auto': per type the form the extension picks (treeTransferFor).
// Every form is measured in the same run on the same objects; the ratios are against full objects.
// Usage: node --import tsx bench/transfer-forms.ts [--objects 20000] [--runs 3]
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { startDemoCluster } from '../src/demo';
import { generateObjects } from '../src/demo/generator';
import { METADATA_ONLY_ACCEPT } from '../src/core/kube/listwatch/list';
import { TABLE_ACCEPT, tableItems } from '../src/core/kube/listwatch/table';
import { treeTransferFor, viewOfLoaded } from '../src/core/rows/tableView';
import { benchArg } from './measure';

const OBJECTS = Number(benchArg('--objects', '20000'));
const RUNS = Number(benchArg('--runs', '3'));
const PAGE = 500;

const FORMS = {
  full: { accept: 'application/json', query: '' },
  metadata: { accept: METADATA_ONLY_ACCEPT, query: '' },
  'table+Metadata': { accept: TABLE_ACCEPT, query: '&includeObject=Metadata' },
  'table+None': { accept: TABLE_ACCEPT, query: '&includeObject=None' },
} as const;
type FormName = keyof typeof FORMS;
/** The extension's default: per type, the form treeTransferFor picks. */
type Contender = FormName | 'auto';
const autoForm = (t: { group: string; resource: string }): FormName => {
  const f = treeTransferFor(t);
  return f === 'table' ? 'table+Metadata' : f;
};

function get(url: string, accept: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { Accept: accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${url}: ${res.statusCode}`))));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

interface Cost {
  objects: number;
  bytes: number;
  parseMs: number;
  viewMs: number;
  pages: number;
  maxPageMs: number;
}

async function listCost(base: string, path: string, form: FormName, kind: string, ref: { group: string; resource: string }): Promise<Cost> {
  const c: Cost = { objects: 0, bytes: 0, parseMs: 0, viewMs: 0, pages: 0, maxPageMs: 0 };
  let token = '';
  let columns: readonly string[] | undefined;
  do {
    const url = `${base}${path}?limit=${PAGE}${token ? `&continue=${encodeURIComponent(token)}` : ''}${FORMS[form].query}`;
    const body = await get(url, FORMS[form].accept);
    const t0 = performance.now();
    const parsed = JSON.parse(body.toString('utf8')) as { metadata?: { continue?: string }; items?: unknown[]; rows?: unknown[] };
    const t1 = performance.now();
    let n = 0;
    if (form === 'table+Metadata') {
      const t = tableItems(parsed, columns, path);
      columns = t.columns;
      for (const o of t.items) viewOfLoaded('k', o as Parameters<typeof viewOfLoaded>[1], ref, kind);
      n = t.items.length;
    } else if (form === 'table+None') n = parsed.rows?.length ?? 0;
    else {
      for (const o of (parsed.items ?? []) as Parameters<typeof viewOfLoaded>[1][]) viewOfLoaded('k', o, ref, kind);
      n = parsed.items?.length ?? 0;
    }
    const t2 = performance.now();
    c.objects += n;
    c.bytes += body.length;
    c.parseMs += t1 - t0;
    c.viewMs += t2 - t1;
    c.maxPageMs = Math.max(c.maxPageMs, t2 - t0);
    c.pages++;
    token = parsed.metadata?.continue ?? '';
  } while (token);
  return c;
}

function add(a: Cost, b: Cost): Cost {
  return {
    objects: a.objects + b.objects,
    bytes: a.bytes + b.bytes,
    parseMs: a.parseMs + b.parseMs,
    viewMs: a.viewMs + b.viewMs,
    pages: a.pages + b.pages,
    maxPageMs: Math.max(a.maxPageMs, b.maxPageMs),
  };
}

async function main(): Promise<void> {
  const cluster = await startDemoCluster({ kubelet: false });
  try {
    generateObjects(cluster.store, { objects: OBJECTS, seed: 11 });
    const types = cluster.store.types().filter((t) => t.verbs.includes('list') && cluster.store.count(t.group, t.resource) > 0);
    const pathOf = (t: { group: string; version: string; resource: string }) =>
      t.group ? `/apis/${t.group}/${t.version}/${t.resource}` : `/api/${t.version}/${t.resource}`;
    const pods = types.find((t) => t.group === '' && t.resource === 'pods')!;
    console.log(`demo cluster: ${OBJECTS} generated objects, ${types.length} non-empty types, pages of ${PAGE}, best of ${RUNS} runs`);
    for (const [label, set] of [
      ['pods', [pods]],
      ['mixed (every type)', types],
    ] as const) {
      const best = new Map<Contender, Cost>();
      for (let run = 0; run < RUNS; run++) {
        for (const form of [...(Object.keys(FORMS) as FormName[]), 'auto' as const]) {
          let total: Cost = { objects: 0, bytes: 0, parseMs: 0, viewMs: 0, pages: 0, maxPageMs: 0 };
          for (const t of set) total = add(total, await listCost(cluster.url, pathOf(t), form === 'auto' ? autoForm(t) : form, t.kind, t));
          const prev = best.get(form);
          if (!prev || total.parseMs + total.viewMs < prev.parseMs + prev.viewMs) best.set(form, total);
        }
      }
      const full = best.get('full')!;
      console.log(`\n${label}: ${full.objects} objects`);
      console.log('form              bytes/obj  x full   parse ms/page  view ms/page  max page ms  (parse+view) x full');
      for (const [form, c] of best) {
        const per = (v: number) => (v / c.pages).toFixed(2).padStart(13);
        console.log(
          `${form.padEnd(16)} ${(c.bytes / c.objects).toFixed(0).padStart(10)} ${(c.bytes / full.bytes).toFixed(2).padStart(7)}x ${per(c.parseMs)} ${per(c.viewMs)} ${c.maxPageMs.toFixed(1).padStart(12)} ${((c.parseMs + c.viewMs) / (full.parseMs + full.viewMs)).toFixed(2).padStart(10)}x`,
        );
      }
    }
  } finally {
    await cluster.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
