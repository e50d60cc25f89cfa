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
      'src/core/ may not import src/app/model/resourceModel (src/app/ is off limits to it).',
      'src/core/ may not import src/vscode/controllers/services (src/vscode/ is off limits to it).',
      'src/core/ may not import src/cli/main (src/cli/ is off limits to it).',
      'src/core/ may not import src/demo/store (src/demo/ is off limits to it).',
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

  it('inside core: the loop and the loader are siblings, the recorder takes only types from the loop, core/kube none of them', async () => {
    assert.deepEqual(
      await boundaryErrors(
        'src/core/syncloop/probe.ts',
        "import { ClusterLoader } from '../loader/clusterLoader';\nimport { Recorder } from '../recorder/recorder';\nimport type { StoredObject } from '../kube/objects/types';\nvoid ClusterLoader, Recorder;",
      ),
      [
        'src/core/syncloop/ may not import src/core/loader/clusterLoader (src/core/loader/ is off limits to it).',
        'src/core/syncloop/ may not import src/core/recorder/recorder (src/core/recorder/ is off limits to it).',
      ],
    );
    assert.deepEqual(await boundaryErrors('src/core/loader/probe.ts', "import { SyncLoop } from '../syncloop/syncloop';\nvoid SyncLoop;"), [
      'src/core/loader/ may not import src/core/syncloop/syncloop (src/core/syncloop/ is off limits to it).',
    ]);
    assert.deepEqual(
      await boundaryErrors(
        'src/core/recorder/probe.ts',
        "import type { SyncObserver } from '../syncloop/observer';\nimport { SyncLoop } from '../syncloop/syncloop';\nvoid SyncLoop;\nexport type O = SyncObserver;",
      ),
      ['src/core/recorder/ may import only types from src/core/syncloop/syncloop: write `import type`.'],
    );
    assert.deepEqual(await boundaryErrors('src/core/kube/probe.ts', "import { computeObjectView } from '../rows/objectView';\nvoid computeObjectView;"), [
      'src/core/kube/ may not import src/core/rows/objectView (src/core/rows/ is off limits to it).',
    ]);
  });

  it('inside core/kube: each folder imports only the layers below it, types only from its siblings, never the client', async () => {
    assert.deepEqual(
      await boundaryErrors(
        'src/core/kube/objects/probe.ts',
        "import { KubeClient } from '../client';\nimport { KubeTransport } from '../transport/transport';\nvoid KubeClient, KubeTransport;",
      ),
      [
        'src/core/kube/objects/ may not import src/core/kube/client (src/core/kube/client/ is off limits to it).',
        'src/core/kube/objects/ may not import src/core/kube/transport/transport (src/core/kube/transport/ is off limits to it).',
      ],
    );
    assert.deepEqual(await boundaryErrors('src/core/kube/transport/probe.ts', "import { list } from '../listwatch/list';\nvoid list;"), [
      'src/core/kube/transport/ may not import src/core/kube/listwatch/list (src/core/kube/listwatch/ is off limits to it).',
    ]);
    assert.deepEqual(
      await boundaryErrors(
        'src/core/kube/access/probe.ts',
        "import type { ApiResource } from '../discovery/parse';\nimport { discover } from '../discovery/discover';\nimport { KubeTransport } from '../transport/transport';\nvoid discover, KubeTransport;\nexport type R = ApiResource;",
      ),
      ['src/core/kube/access/ may import only types from src/core/kube/discovery/discover: write `import type`.'],
    );
  });

  it('src/app never imports src/vscode', async () => {
    const errs = await boundaryErrors(
      'src/app/model/probe.ts',
      "import { ResourceTreeProvider } from '../../vscode/tree/resourceTree';\nimport { CLUSTER } from './resourceModel';\nvoid ResourceTreeProvider, CLUSTER;",
    );
    assert.deepEqual(errs, ['src/app/ may not import src/vscode/tree/resourceTree (src/vscode/ is off limits to it).']);
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
      'src/demo/ may not import src/app/load/loadRunner (src/app/ is off limits to it).',
    ]);
  });
});
