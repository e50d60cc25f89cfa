// Generates the protobuf schema table of the Kubernetes kinds KubeLoop reads in protobuf
// (src/core/kube/protobuf/schema.generated.ts), and the same table for the demo cluster, which
// encodes those kinds with it (src/demo/server/protobuf-schema.generated.ts: the demo may import
// only types from core), from upstream's own sources in the Go module cache:
// - field numbers, wire types, repetition and message types from k8s.io/api's and
//   k8s.io/apimachinery's generated.proto (go-to-protobuf's output);
// - what JSON makes of each field (its name, omitempty, pointer, `,inline`) from the Go structs in
//   the same packages (types.go), matched to the .proto field by the number in the `protobuf:` tag.
//
// Usage: node scripts/gen-protobuf-schema.mjs           writes the file
//        node scripts/gen-protobuf-schema.mjs --check   exits 1 when a checked-in file differs
// Env: GOMODCACHE (default ~/go/pkg/mod), K8S_API_VERSION (default v0.36.3).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as prettier from 'prettier';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const MOD = process.env.GOMODCACHE ?? path.join(os.homedir(), 'go/pkg/mod');
const VERSION = process.env.K8S_API_VERSION ?? 'v0.36.3';
const OUTPUTS = ['src/core/kube/protobuf/schema.generated.ts', 'src/demo/server/protobuf-schema.generated.ts'];

/** proto package -> Go package directory. */
const PACKAGES = {
  'k8s.io.api.core.v1': `k8s.io/api@${VERSION}/core/v1`,
  'k8s.io.api.apps.v1': `k8s.io/api@${VERSION}/apps/v1`,
  'k8s.io.api.batch.v1': `k8s.io/api@${VERSION}/batch/v1`,
  'k8s.io.api.discovery.v1': `k8s.io/api@${VERSION}/discovery/v1`,
  'k8s.io.api.rbac.v1': `k8s.io/api@${VERSION}/rbac/v1`,
  'k8s.io.api.coordination.v1': `k8s.io/api@${VERSION}/coordination/v1`,
  'k8s.io.api.events.v1': `k8s.io/api@${VERSION}/events/v1`,
  'k8s.io.api.networking.v1': `k8s.io/api@${VERSION}/networking/v1`,
  'k8s.io.api.policy.v1': `k8s.io/api@${VERSION}/policy/v1`,
  'k8s.io.api.autoscaling.v2': `k8s.io/api@${VERSION}/autoscaling/v2`,
  'k8s.io.api.storage.v1': `k8s.io/api@${VERSION}/storage/v1`,
  'k8s.io.api.scheduling.v1': `k8s.io/api@${VERSION}/scheduling/v1`,
  'k8s.io.api.node.v1': `k8s.io/api@${VERSION}/node/v1`,
  'k8s.io.api.admissionregistration.v1': `k8s.io/api@${VERSION}/admissionregistration/v1`,
  'k8s.io.apimachinery.pkg.apis.meta.v1': `k8s.io/apimachinery@${VERSION}/pkg/apis/meta/v1`,
  'k8s.io.apimachinery.pkg.runtime': `k8s.io/apimachinery@${VERSION}/pkg/runtime`,
  'k8s.io.apimachinery.pkg.runtime.schema': `k8s.io/apimachinery@${VERSION}/pkg/runtime/schema`,
  'k8s.io.apimachinery.pkg.util.intstr': `k8s.io/apimachinery@${VERSION}/pkg/util/intstr`,
  'k8s.io.apimachinery.pkg.api.resource': `k8s.io/apimachinery@${VERSION}/pkg/api/resource`,
};

/** Messages with a JSON form of their own (a custom MarshalJSON upstream): the codec treats them as values. */
const SPECIAL = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'Time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'MicroTime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'Duration',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'FieldsV1',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'Quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'IntOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'RawExtension',
};

/** The kinds (apiVersion/kind) with a schema, each with its List. */
const KINDS = {
  v1: [
    'Pod',
    'Event',
    'Node',
    'Namespace',
    'Service',
    'ConfigMap',
    'Secret',
    'PersistentVolume',
    'PersistentVolumeClaim',
    'ReplicationController',
    'ServiceAccount',
    'Endpoints',
    'ResourceQuota',
    'LimitRange',
  ],
  'apps/v1': ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'ControllerRevision'],
  'batch/v1': ['Job', 'CronJob'],
  'discovery.k8s.io/v1': ['EndpointSlice'],
  'rbac.authorization.k8s.io/v1': ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'],
  'coordination.k8s.io/v1': ['Lease'],
  'events.k8s.io/v1': ['Event'],
  'networking.k8s.io/v1': ['Ingress', 'NetworkPolicy', 'IngressClass'],
  'policy/v1': ['PodDisruptionBudget'],
  'autoscaling/v2': ['HorizontalPodAutoscaler'],
  'storage.k8s.io/v1': ['StorageClass', 'CSIDriver'],
  'scheduling.k8s.io/v1': ['PriorityClass'],
  'node.k8s.io/v1': ['RuntimeClass'],
  'admissionregistration.k8s.io/v1': ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'],
};
const GROUP_PACKAGE = {
  v1: 'k8s.io.api.core.v1',
  'apps/v1': 'k8s.io.api.apps.v1',
  'batch/v1': 'k8s.io.api.batch.v1',
  'discovery.k8s.io/v1': 'k8s.io.api.discovery.v1',
  'rbac.authorization.k8s.io/v1': 'k8s.io.api.rbac.v1',
  'coordination.k8s.io/v1': 'k8s.io.api.coordination.v1',
  'events.k8s.io/v1': 'k8s.io.api.events.v1',
  'networking.k8s.io/v1': 'k8s.io.api.networking.v1',
  'policy/v1': 'k8s.io.api.policy.v1',
  'autoscaling/v2': 'k8s.io.api.autoscaling.v2',
  'storage.k8s.io/v1': 'k8s.io.api.storage.v1',
  'scheduling.k8s.io/v1': 'k8s.io.api.scheduling.v1',
  'node.k8s.io/v1': 'k8s.io.api.node.v1',
  'admissionregistration.k8s.io/v1': 'k8s.io.api.admissionregistration.v1',
};
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
/** meta.k8s.io/v1 kinds, and the v1 Status every group version answers errors with. */
const META_ROOTS = {
  'meta.k8s.io/v1/PartialObjectMetadata': 'PartialObjectMetadata',
  'meta.k8s.io/v1/PartialObjectMetadataList': 'PartialObjectMetadataList',
  'v1/Status': 'Status',
};
/** Messages the codec needs beyond the kinds (the watch event, list metadata). */
const EXTRA = [`${META}.WatchEvent`, `${META}.ListMeta`];

const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float']);

function parseProto(file) {
  const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const pkg = /^package ([\w.]+);/m.exec(text)[1];
  const messages = {};
  let cur;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (!line) continue;
    let m;
    if ((m = /^message (\w+) \{$/.exec(line))) {
      cur = { name: `${pkg}.${m[1]}`, fields: [] };
      messages[cur.name] = cur;
    } else if (line === '}') {
      cur = undefined;
    } else if ((m = /^(optional|repeated) ([\w.]+) (\w+) = (\d+);$/.exec(line))) {
      cur.fields.push({ label: m[1], type: resolve(pkg, m[2]), name: m[3], number: Number(m[4]) });
    } else if ((m = /^map<(\w+), ([\w.]+)> (\w+) = (\d+);$/.exec(line))) {
      if (m[1] !== 'string') throw new Error(`${file}: map key ${m[1]}`);
      cur.fields.push({ label: 'map', type: resolve(pkg, m[2]), name: m[3], number: Number(m[4]) });
    } else if (!/^(syntax|package|import|option) /.test(line)) {
      throw new Error(`${file}: cannot read line: ${raw}`);
    }
  }
  return messages;
}

function resolve(pkg, type) {
  if (SCALARS.has(type)) return type;
  if (type.startsWith('.')) return type.slice(1);
  return type.includes('.') ? type : `${pkg}.${type}`;
}

/** Go structs of a package: name -> fields by protobuf number { json, omitempty, inline, pointer, goType }. */
function parseGo(dir) {
  const structs = {};
  for (const f of fs.readdirSync(dir)) {
    if (!f.endsWith('.go') || f.endsWith('_test.go') || f.startsWith('zz_') || f.startsWith('generated')) continue;
    const lines = fs.readFileSync(path.join(dir, f), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const head = /^type (\w+) struct \{$/.exec(lines[i]);
      if (!head) continue;
      const fields = {};
      for (i++; i < lines.length && lines[i] !== '}'; i++) {
        const line = lines[i].trim();
        if (!line || line.startsWith('//')) continue;
        const tag = /`([^`]*)`/.exec(line)?.[1] ?? '';
        const decl = line.replace(/`[^`]*`.*$/, '').trim();
        const pb = /protobuf:"([^"]*)"/.exec(tag)?.[1];
        if (!pb) continue;
        const json = /json:"([^"]*)"/.exec(tag)?.[1];
        if (json === undefined) continue; // a type with a JSON form of its own (Duration, Time): SPECIAL
        const [jsonName, ...opts] = json.split(',');
        const parts = decl.split(/\s+/);
        const goType = parts.length === 1 ? parts[0] : parts[1];
        const number = Number(pb.split(',')[1]);
        fields[number] = {
          json: jsonName,
          omitempty: opts.includes('omitempty'),
          omitzero: opts.includes('omitzero'),
          inline: opts.includes('inline'),
          pointer: goType.startsWith('*'),
          goType,
        };
      }
      structs[head[1]] = fields;
    }
  }
  return structs;
}

const protos = {};
const goStructs = {};
for (const [pkg, rel] of Object.entries(PACKAGES)) {
  const dir = path.join(MOD, rel);
  Object.assign(protos, parseProto(path.join(dir, 'generated.proto')));
  goStructs[pkg] = parseGo(dir);
}

const short = (full) => full.replace(/^k8s\.io\.api\./, '').replace(/^k8s\.io\.apimachinery\.pkg\.apis\./, '');

/** Flags of a field (see the generated file's header). */
const REPEATED = 1;
const POINTER = 2;
const OMITEMPTY = 4;
const INLINE = 8;
const MAP = 16;
const OMITZERO = 32;

const out = {};
function visit(full) {
  if (SPECIAL[full] || out[short(full)]) return;
  const msg = protos[full];
  if (!msg) throw new Error(`no message ${full}`);
  const pkg = full.slice(0, full.lastIndexOf('.'));
  const goName = full.slice(pkg.length + 1);
  const go = goStructs[pkg]?.[goName];
  if (!go) throw new Error(`no Go struct for ${full}`);
  const fields = [];
  out[short(full)] = fields;
  for (const f of msg.fields.sort((a, b) => a.number - b.number)) {
    const g = go[f.number];
    if (!g) throw new Error(`${full}.${f.name} (${f.number}): no Go field with that protobuf number`);
    if (!g.inline && g.json !== f.name) console.error(`note: ${full}.${f.name}: JSON name ${g.json}`);
    let flags = 0;
    if (f.label === 'repeated') flags |= REPEATED;
    if (f.label === 'map') flags |= MAP;
    if ((f.label === 'map') !== /^\*?map\[/.test(g.goType) && !/^(ResourceList)$/.test(g.goType))
      console.error(`note: ${full}.${f.name}: Go ${g.goType} vs proto ${f.label}`);
    if (g.pointer) flags |= POINTER;
    if (g.omitempty) flags |= OMITEMPTY;
    // Go's omitzero leaves out a value whose IsZero() is true; the walker knows it for times only.
    if (g.omitzero && !['Time', 'MicroTime'].includes(SPECIAL[f.type])) throw new Error(`${full}.${f.name}: omitzero on a ${f.type} is not supported`);
    if (g.omitzero) flags |= OMITZERO;
    if (g.inline) flags |= INLINE;
    if (f.label !== 'map' && g.goType.startsWith('[]') !== (f.label === 'repeated' || f.type === 'bytes'))
      throw new Error(`${full}.${f.name}: Go ${g.goType} vs proto ${f.label} ${f.type}`);
    const type = SCALARS.has(f.type) ? f.type : (SPECIAL[f.type] ?? short(f.type));
    if (!SCALARS.has(f.type)) visit(f.type);
    fields.push([f.number, g.inline ? '' : g.json, type, flags]);
  }
}

const kinds = {};
for (const [gv, names] of Object.entries(KINDS)) {
  for (const k of names) {
    for (const kind of [k, `${k}List`]) {
      const full = `${GROUP_PACKAGE[gv]}.${kind}`;
      visit(full);
      kinds[`${gv}/${kind}`] = short(full);
    }
  }
}
for (const [key, name] of Object.entries(META_ROOTS)) {
  visit(`${META}.${name}`);
  kinds[key] = short(`${META}.${name}`);
}
for (const full of EXTRA) visit(full);

const names = Object.keys(out).sort();
const text = `// Generated by scripts/gen-protobuf-schema.mjs from k8s.io/api and k8s.io/apimachinery ${VERSION}
// (generated.proto: numbers, wire types, message types; types.go: JSON names, omitempty, omitzero). Do not edit.
//
// MESSAGES: message -> its fields, each [number, JSON name ('' when inlined), type, flags], by number.
// type: a proto scalar (string, bytes, bool, int32, int64, ...), a value with a JSON form of its own
// (Time, MicroTime, Duration, FieldsV1, Quantity, IntOrString, RawExtension) or a message name.
// flags: 1 repeated, 2 pointer in Go, 4 omitempty, 8 inlined in JSON (\`json:",inline"\`), 16 map<string, type>,
// 32 omitzero (a zero time is left out, not written as null).
// KINDS: "apiVersion/kind" -> message.

export type FieldDef = readonly [number: number, json: string, type: string, flags: number];

export const MESSAGES: Readonly<Record<string, readonly FieldDef[]>> = {
${names.map((n) => `  '${n}': [${out[n].map((f) => `[${f[0]}, '${f[1]}', '${f[2]}', ${f[3]}]`).join(', ')}],`).join('\n')}
};

export const KINDS: Readonly<Record<string, string>> = {
${Object.entries(kinds)
  .map(([k, v]) => `  '${k}': '${v}',`)
  .join('\n')}
};
`;

// Formatted as the repository formats it, so prettier leaves the file alone and --check compares like with like.
const file0 = path.join(ROOT, OUTPUTS[0]);
const formatted = await prettier.format(text, { ...(await prettier.resolveConfig(file0)), filepath: file0 });

const check = process.argv.includes('--check');
let stale = false;
for (const rel of OUTPUTS) {
  const file = path.join(ROOT, rel);
  if (check) {
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== formatted) {
      console.error(`${rel} is not what the generator writes: run node scripts/gen-protobuf-schema.mjs`);
      stale = true;
    }
  } else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, formatted);
  }
}
if (stale) process.exit(1);
console.error(`${names.length} messages, ${Object.keys(kinds).length} kinds`);
