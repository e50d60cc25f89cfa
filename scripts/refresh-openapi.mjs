#!/usr/bin/env node
// Refreshes the demo cluster's OpenAPI v3 documents (src/demo/data/openapi/) from the real
// kube-apiserver the project builds (scripts/build-controlplane.sh, cached in ~/.cache/kubeloop).
// Usage: node scripts/refresh-openapi.mjs        (about 30 s with a warm cache)
//
// It starts etcd + kube-apiserver on loopback with the apiserver tier's harness
// (lab/controlplane.ts), reads /openapi/v3 and every group-version document of the
// built-in groups (api/v1, apis/<group>/<version>), and writes each one byte for byte, gzipped
// (level 9; Node writes no timestamp, so an unchanged document gives an unchanged file), plus
// index.json: per document its file, its hash (kube-apiserver's: the upper-case hex SHA-512 of the
// bytes, which is also its ETag and the `hash` of its serverRelativeURL) and its size. Descriptions
// stay in: `kubectl explain` prints them. The script checks every hash against the ETag it was
// served with, so a document changed in transit or a different hashing upstream fails the refresh.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { require as tsxRequire } from 'tsx/cjs/api';

const root = new URL('..', import.meta.url).pathname;
const outDir = join(root, 'src/demo/data/openapi');
// The harness is TypeScript (CommonJS, like the tests): loaded through tsx's require.
const { startControlPlane } = tsxRequire('../lab/controlplane.ts', import.meta.url);

/** GET over HTTPS with the admin token (the apiserver's serving cert is self-signed: verified against its CA). */
function get(cp, path, signal) {
  return new Promise((resolve, reject) => {
    const req = https.get(
      `${cp.server}${path}`,
      { headers: { Authorization: `Bearer ${cp.adminToken}`, Accept: 'application/json' }, ca: cp.caPem, signal },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** ObjectMeta and every schema it refers to, transitively (by `#/components/schemas/` $refs). */
function objectMetaClosure(schemas) {
  const out = {};
  const todo = ['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
  while (todo.length) {
    const name = todo.pop();
    if (out[name] || !schemas[name]) continue;
    out[name] = schemas[name];
    for (const m of JSON.stringify(schemas[name]).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) todo.push(m[1]);
  }
  return out;
}

const BUILTIN_GV = /^(api\/v1|apis\/[^/]+\/[^/]+)$/;
const signal = AbortSignal.timeout(5 * 60_000);
const cp = await startControlPlane({ signal });
try {
  cp.caPem = readFileSync(cp.caFile);
  const version = JSON.parse((await get(cp, '/version', signal)).body.toString('utf8'));
  const rootDoc = await get(cp, '/openapi/v3', signal);
  if (rootDoc.status !== 200) throw new Error(`/openapi/v3: ${rootDoc.status}`);
  const paths = JSON.parse(rootDoc.body.toString('utf8')).paths;
  const documents = {};
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  let metaSchemas;
  let raw = 0;
  let zipped = 0;
  for (const [gv, { serverRelativeURL }] of Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!BUILTIN_GV.test(gv)) continue;
    const r = await get(cp, serverRelativeURL, signal);
    if (r.status !== 200) throw new Error(`${serverRelativeURL}: ${r.status}`);
    const hash = createHash('sha512').update(r.body).digest('hex').toUpperCase();
    if (r.headers.etag !== `"${hash}"`) throw new Error(`${gv}: ETag ${r.headers.etag} is not the SHA-512 of the body (${hash})`);
    if (new URL(serverRelativeURL, cp.server).searchParams.get('hash') !== hash)
      throw new Error(`${gv}: serverRelativeURL ${serverRelativeURL} lacks hash ${hash}`);
    const file = `${gv.replaceAll('/', '__')}.json.gz`;
    const gz = gzipSync(r.body, { level: 9 });
    writeFileSync(join(outDir, file), gz);
    documents[gv] = { file, hash, bytes: r.body.length };
    raw += r.body.length;
    zipped += gz.length;
    if (gv === 'api/v1') metaSchemas = objectMetaClosure(JSON.parse(r.body.toString('utf8')).components.schemas);
  }
  // A custom resource's document refers to ObjectMeta, as kube-apiserver's does: the schemas it
  // needs, taken from api/v1, so the demo can build CRD documents without parsing a 1.6 MB one.
  const metaFile = 'crd-components.json.gz';
  writeFileSync(join(outDir, metaFile), gzipSync(JSON.stringify(metaSchemas), { level: 9 }));
  const index = { source: `kube-apiserver ${version.gitVersion}, default API groups, /openapi/v3`, documents, crdComponents: metaFile };
  writeFileSync(join(outDir, 'index.json'), JSON.stringify(index, null, 1) + '\n');
  const files = readdirSync(outDir).length;
  console.log(
    `refresh-openapi: ${Object.keys(documents).length} documents from ${version.gitVersion}: ${raw} bytes, ${zipped} gzipped, ${files} files in ${outDir}`,
  );
} finally {
  await cp.stop();
}
