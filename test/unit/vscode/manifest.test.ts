// package.json's contributions and the code that serves them are held together here: a command,
// view or setting that exists on one side only is a bug the user would meet at run time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATEGORY, COMMANDS, RESOURCES_VIEW_ID, VIEW_CONTAINER_ID } from '../../../src/vscode/commandIds';
import { configurationSchema } from '../../../src/vscode/settings';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
const contributes = pkg.contributes;

describe('package.json contributes', () => {
  it('lists exactly the commands in COMMANDS, with their titles, under the KubeLoop category', () => {
    const declared = contributes.commands.map((c: { command: string; title: string; category: string }) => [c.command, c.title, c.category]);
    const expected = Object.values(COMMANDS).map((c) => [c.id, c.title, CATEGORY]);
    assert.deepEqual(declared, expected);
  });

  it('uses only declared commands in menus and welcome links', () => {
    const ids = new Set<string>(Object.values(COMMANDS).map((c) => c.id));
    for (const [menu, items] of Object.entries(contributes.menus) as [string, { command: string }[]][]) {
      for (const item of items) assert.ok(ids.has(item.command), `${menu} uses undeclared ${item.command}`);
    }
    for (const w of contributes.viewsWelcome) {
      for (const m of (w.contents as string).matchAll(/\(command:([^)]+)\)/g)) assert.ok(ids.has(m[1]!), `welcome links ${m[1]}`);
    }
  });

  it('has the KubeLoop activity-bar container with an icon that exists, holding the resources view', () => {
    const container = contributes.viewsContainers.activitybar.find((c: { id: string }) => c.id === VIEW_CONTAINER_ID);
    assert.equal(container.title, 'KubeLoop');
    assert.ok(readFileSync(join(__dirname, '../../..', container.icon), 'utf8').includes('<svg'));
    assert.deepEqual(contributes.views[VIEW_CONTAINER_ID].map((v: { id: string }) => v.id), [RESOURCES_VIEW_ID]);
    assert.ok(contributes.viewsWelcome.some((w: { view: string }) => w.view === RESOURCES_VIEW_ID));
  });

  it('declares the settings schema generated from src/vscode/settings.ts', () => {
    assert.deepEqual(contributes.configuration.properties, configurationSchema());
  });

  it('points main at the bundle esbuild writes', () => {
    assert.equal(pkg.main, './dist/extension.js');
  });
});
