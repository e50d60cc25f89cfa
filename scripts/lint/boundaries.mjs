// The house's dependency rules as one ESLint rule, `house/boundaries`: which folder may import
// which. An import's target is resolved against the importing file, so a rule names folders, not
// spellings of relative paths. Checked: import/export ... from, import(), require().
//
// Guarantees (each is a room in docs/architecture.md):
// - src/vscode/timeline/webview/ (the timeline page, run in the webview) imports only itself,
//   src/shared/ and src/core/timeline/, and never 'vscode' (it runs in a browser frame);
//   src/shared/ (what the page and the host share) only src/shared/ and src/core/timeline/.
// - src/core/ imports nothing from src/app/, src/vscode/, src/cli/, src/demo/. Inside it, the sync
//   loop never imports the loader or the recorder, nor the loader the loop or the recorder; the
//   recorder takes only types from the loop; core/kube imports none of them (nor core/rows).
// - Inside core/kube, each folder imports only the layers below it: objects and protobuf nothing of
//   kube; config those; transport config; discovery, listwatch and access transport and below, and
//   only types from each other; none of them the client (client.ts) or the barrel (index.ts).
// - src/app/ never imports src/vscode/.
// - src/demo/ imports only types from src/core/, and nothing from src/app/, src/vscode/, src/cli/.
// - Nothing but src/vscode/ outside the webview (and the in-host test suite, test/e2e/electron/) imports 'vscode'.
import { dirname, relative, resolve, sep } from 'node:path';

/** core/kube's layers, lowest first: a folder imports the layers below its own, only types from
 * the folders beside it, nothing above it, and never the client (client.ts) or the barrel (index.ts). */
const KUBE_LAYERS = [['objects', 'protobuf'], ['config'], ['transport'], ['discovery', 'listwatch', 'access']];
function kubeRoom(folder) {
  const level = KUBE_LAYERS.findIndex((l) => l.includes(folder));
  const dir = (f) => `src/core/kube/${f}/`;
  return {
    room: dir(folder),
    never: [
      ...KUBE_LAYERS.slice(level + 1)
        .flat()
        .map(dir),
      dir('client'),
      dir('index'),
    ],
    typesOnly: KUBE_LAYERS[level].filter((f) => f !== folder).map(dir),
  };
}

/** Per room (a folder prefix, relative to the project root): what it may not import. */
const ROOMS = [
  { room: 'src/vscode/timeline/webview/', only: ['src/vscode/timeline/webview/', 'src/shared/', 'src/core/timeline/'] },
  { room: 'src/shared/', only: ['src/shared/', 'src/core/timeline/'] },
  { room: 'src/core/', never: ['src/app/', 'src/vscode/', 'src/cli/', 'src/demo/'] },
  // The loader and the sync loop are siblings over core/kube; the recorder observes the loop.
  { room: 'src/core/syncloop/', never: ['src/core/loader/', 'src/core/recorder/'] },
  { room: 'src/core/loader/', never: ['src/core/syncloop/', 'src/core/recorder/'] },
  { room: 'src/core/recorder/', never: ['src/core/loader/'], typesOnly: ['src/core/syncloop/'] },
  { room: 'src/core/kube/', never: ['src/core/loader/', 'src/core/syncloop/', 'src/core/recorder/', 'src/core/rows/'] },
  // Inside core/kube, layers: objects and protobuf (shapes, no I/O) < config (kubeconfig, exec
  // plugins) < transport (HTTP, auth, I/O thread) < discovery, listwatch, access < client.ts.
  kubeRoom('objects'),
  kubeRoom('protobuf'),
  kubeRoom('config'),
  kubeRoom('transport'),
  kubeRoom('discovery'),
  kubeRoom('listwatch'),
  kubeRoom('access'),
  { room: 'src/app/', never: ['src/vscode/'] },
  { room: 'src/demo/', never: ['src/app/', 'src/vscode/', 'src/cli/'], typesOnly: ['src/core/'] },
];
const VSCODE_ALLOWED = ['src/vscode/', 'test/e2e/electron/'];
/** Inside src/vscode/ but run in the webview's browser frame, where there is no 'vscode' module. */
const VSCODE_DENIED = ['src/vscode/timeline/webview/'];

const posix = (p) => p.split(sep).join('/');
const under = (p, dirs) => dirs.some((d) => p.startsWith(d));

/** Whether an import statement brings in types only (`import type`, or every specifier `type`). */
function typeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const specs = node.specifiers ?? [];
  return specs.length > 0 && specs.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

export const boundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps each folder of the house to the imports its room allows (docs/architecture.md).' },
    schema: [],
    messages: {
      vscode: "Only src/vscode/ imports 'vscode' ({{file}} is in another room).",
      only: '{{room}} may import only {{allowed}}; {{target}} is outside.',
      never: '{{room}} may not import {{target}} ({{forbidden}} is off limits to it).',
      typesOnly: '{{room}} may import only types from {{target}}: write `import type`.',
    },
  },
  create(context) {
    const root = context.cwd;
    const file = posix(relative(root, context.filename));
    const rules = ROOMS.filter((r) => file.startsWith(r.room));
    const check = (node, source, isTypeOnly) => {
      if (typeof source !== 'string') return;
      if (source === 'vscode' || source.startsWith('vscode/')) {
        // type-only too: a type from 'vscode' outside the glue means the room depends on VS Code
        if (!under(file, VSCODE_ALLOWED) || under(file, VSCODE_DENIED)) context.report({ node, messageId: 'vscode', data: { file } });
        return;
      }
      if (!source.startsWith('.')) return;
      const target = posix(relative(root, resolve(dirname(context.filename), source)));
      // Every room the file is in applies (src/core/ and src/core/syncloop/ alike); one report per import.
      for (const rule of rules) {
        const data = { room: rule.room, target };
        if (rule.only && !under(target + '/', rule.only)) {
          context.report({ node, messageId: 'only', data: { ...data, allowed: rule.only.join(', ') } });
        } else if (rule.never && under(target + '/', rule.never)) {
          context.report({ node, messageId: 'never', data: { ...data, forbidden: rule.never.find((d) => (target + '/').startsWith(d)) } });
        } else if (rule.typesOnly && under(target + '/', rule.typesOnly) && !isTypeOnly) {
          context.report({ node, messageId: 'typesOnly', data });
        } else continue;
        return;
      }
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value, typeOnly(n)),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value, typeOnly(n)),
      ExportAllDeclaration: (n) => check(n, n.source.value, n.exportKind === 'type'),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value, false),
      TSImportEqualsDeclaration: (n) =>
        n.moduleReference.type === 'TSExternalModuleReference' && check(n, n.moduleReference.expression.value, n.importKind === 'type'),
      CallExpression: (n) => {
        if (n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments[0]?.type === 'Literal') check(n, n.arguments[0].value, false);
      },
    };
  },
};

export default { rules: { boundaries } };
