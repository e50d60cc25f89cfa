// The house's import boundaries (eslint.config.mjs, rule house/boundaries) fire: ESLint's own Node
// API lints a snippet that breaks each rule, under a file path in the room the rule guards.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..') + '/';
// The project's config as it is, without the type-aware rules (the snippets are not files of the
// TypeScript project, and these cases are about imports only).
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false } },
      rules: { '@typescript-eslint/no-floating-promises': 'off', '@typescript-eslint/no-misused-promises': 'off' },
    },
  ],
});

/** The boundary messages ESLint reports for `code` as the file `filePath` (relative to the root). */
async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  const fatal = result!.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], 'the snippet parses');
  return result!.messages.filter((m) => m.ruleId === 'house/boundaries').map((m) => m.message);
}

describe('lint: house boundaries', () => {
  it('the webview may use only itself, src/shared and src/core/timeline', async () => {
    const errs = await boundaryErrors(
      'src/vscode/timeline/webview/probe.ts',
      [
        "import { eventDetailRows } from '../../../shared/details';",
        "import type { TimelineEvent } from '../../../core/timeline/events';",
        "import { clamp } from './viewport';",
        "import { timelineHtml } from '../../../app/timeline/html';",
        "import type { KubeObject } from '../../../core/kube/types';",
        "export { TimelinePanel } from '../panel';",
      ].join('\n'),
    );
    assert.equal(errs.length, 3, errs.join('\n'));
    assert.match(
      errs[0]!,
      /src\/vscode\/timeline\/webview\/ may import only src\/vscode\/timeline\/webview\/, src\/shared\/, src\/core\/timeline\/; src\/app\/timeline\/html is outside/,
    );
    assert.match(errs[1]!, /src\/core\/kube\/types is outside/);
    assert.match(errs[2]!, /src\/vscode\/timeline\/panel is outside/);
  });

  it('src/shared may use only itself and src/core/timeline', async () => {
    const errs = await boundaryErrors(
      'src/shared/probe.ts',
      "import type { KubeLoopSettings } from '../app/settings';\nimport type { TimelineEvent } from '../core/timeline/events';",
    );
    assert.deepEqual(errs.length, 1);
    assert.match(errs[0]!, /src\/shared\/ may import only .*src\/app\/settings is outside/);
  });

  it('src/core imports nothing from src/app, src/vscode, src/cli, src/demo', async () => {
    const errs = await boundaryErrors(
      'src/core/kube/probe.ts',
      [
        "import { ResourceModel } from '../../app/model/resourceModel';",
        "import type { Services } from '../../vscode/controllers/services';",
        "const cli = require('../../cli/main');",
        "export * from '../../demo/store';",
        "import { asStoredObject } from './types';",
        "import { TimelineStore } from '../timeline/store';",
        'void cli;',
      ].join('\n'),
    );
    assert.deepEqual(errs, [
      'src/core/ may not import src/app/model/resourceModel (src/app/ sits above it).',
      'src/core/ may not import src/vscode/controllers/services (src/vscode/ sits above it).',
      'src/core/ may not import src/cli/main (src/cli/ sits above it).',
      'src/core/ may not import src/demo/store (src/demo/ sits above it).',
    ]);
  });

  it("nothing but src/vscode imports 'vscode'", async () => {
    assert.deepEqual(await boundaryErrors('src/vscode/probe.ts', "import * as vscode from 'vscode';\nvoid vscode;"), []);
    for (const file of [
      'src/app/probe.ts',
      'src/core/probe.ts',
      'src/cli/probe.ts',
      'src/demo/probe.ts',
      'src/vscode/timeline/webview/probe.ts',
      'test/unit/probe.ts',
    ]) {
      const errs = await boundaryErrors(file, "import type * as vscode from 'vscode';\nexport type Uri = vscode.Uri;");
      assert.deepEqual(errs, [`Only src/vscode/ imports 'vscode' (${file} is in another room).`], file);
    }
  });

  it('src/app never imports src/vscode', async () => {
    const errs = await boundaryErrors(
      'src/app/model/probe.ts',
      "import { ResourceTreeProvider } from '../../vscode/tree/resourceTree';\nimport { CLUSTER } from './resourceModel';\nvoid ResourceTreeProvider, CLUSTER;",
    );
    assert.deepEqual(errs, ['src/app/ may not import src/vscode/tree/resourceTree (src/vscode/ sits above it).']);
  });

  it('src/demo imports only types from src/core', async () => {
    const errs = await boundaryErrors(
      'src/demo/server/probe.ts',
      [
        "import type { KubeObject } from '../../core/kube/types';",
        "import { type ObjectMeta } from '../../core/kube/types';",
        "import { asStoredObject } from '../../core/kube/types';",
        "import { runLoad } from '../../app/load/loadRunner';",
        'export type X = KubeObject | ObjectMeta; void asStoredObject, runLoad;',
      ].join('\n'),
    );
    assert.deepEqual(errs, [
      'src/demo/ may import only types from src/core/kube/types: write `import type`.',
      'src/demo/ may not import src/app/load/loadRunner (src/app/ sits above it).',
    ]);
  });
});
