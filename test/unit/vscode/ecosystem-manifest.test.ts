// package.json as the Marketplace and VS Code read it: what a published extension needs (icon,
// license, changelog, repository), where it runs in a remote window, and the walkthrough and
// shortcuts held to the commands and context keys that exist.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, CONTEXT_KEYS, RESOURCES_VIEW_ID } from '../../../src/app/commandIds';
import { contributedKeybindings, contributedWalkthroughs, WALKTHROUGH_KEYS, walkthroughSteps } from '../../../src/app/walkthrough/walkthrough';

const root = join(__dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

describe('a publishable package', () => {
  it('has a 128x128 PNG icon, a LICENSE, a CHANGELOG, repository and bugs, and fitting categories', () => {
    const png = readFileSync(join(root, pkg.icon));
    assert.equal(png.subarray(1, 4).toString('ascii'), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128], 'IHDR width and height');
    assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0/);
    assert.equal(pkg.license, 'Apache-2.0');
    assert.match(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), new RegExp(`## \\[${pkg.version.replace(/\./g, '\\.')}\\]`));
    assert.match(pkg.repository.url, /^https:\/\/github\.com\/[\w-]+\/[\w-]+\.git$/);
    assert.match(pkg.bugs.url, /^https:\/\//);
    assert.ok(pkg.categories.includes('Visualization'));
    assert.ok(pkg.keywords.includes('kubernetes') && pkg.keywords.length <= 30, 'the Marketplace takes at most 30 keywords');
  });

  it('runs on the workspace side of a remote window (where the kubeconfig and the cluster network are)', () => {
    assert.deepEqual(pkg.extensionKind, ['workspace']);
  });

  it('the README starts with a picture (a PNG in the repository, which vsce turns into an absolute URL)', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const first =
      readme
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith('# '))
        .slice(0, 1)[0] ?? '';
    const m = /^!\[[^\]]+\]\(([^)]+\.png)\)/.exec(first);
    assert.ok(m, `the first paragraph is an image: ${first}`);
    const png = readFileSync(join(root, m[1]!));
    assert.ok(png.length < 200_000, `${m[1]} is ${png.length} bytes`);
  });
});

describe('walkthrough and shortcuts', () => {
  const ids = new Set<string>(Object.values(COMMANDS).map((c) => c.id));
  const keys = new Set<string>([...Object.values(CONTEXT_KEYS), ...Object.values(WALKTHROUGH_KEYS)]);

  it('package.json holds the generated walkthrough and keybindings (src/app/manifest.ts --write)', () => {
    assert.deepEqual(pkg.contributes.walkthroughs, contributedWalkthroughs());
    assert.deepEqual(pkg.contributes.keybindings, contributedKeybindings());
  });

  it('every step completes on a declared command or a context key the extension sets, and its media exists', () => {
    const steps = walkthroughSteps();
    assert.deepEqual(
      steps.map((s) => s.id),
      ['startDemo', 'load', 'sync', 'timeline', 'probeMe'],
    );
    for (const s of steps) {
      assert.ok(s.completionEvents.length > 0, s.id);
      for (const e of s.completionEvents) {
        const [kind, what] = e.split(/:(.*)/s) as [string, string];
        if (kind === 'onCommand') assert.ok(ids.has(what), `${s.id}: ${e}`);
        else if (kind === 'onContext') assert.ok(keys.has(what), `${s.id}: ${e}`);
        else assert.fail(`${s.id}: unexpected completion event ${e}`);
      }
      for (const m of s.description.matchAll(/\(command:([^)]+)\)/g)) assert.ok(ids.has(m[1]!), `${s.id} links ${m[1]}`);
      const media = 'markdown' in s.media ? s.media.markdown : s.media.image;
      assert.ok(existsSync(join(root, media)), media);
    }
  });

  it('shortcuts are Ctrl+Alt+K chords on declared commands, no key bound twice under the same condition', () => {
    const seen = new Map<string, string>();
    for (const k of contributedKeybindings()) {
      assert.match(k.key, /^ctrl\+alt\+k [a-z]$/);
      assert.ok(ids.has(k.command) || k.command === `${RESOURCES_VIEW_ID}.focus`, k.command);
      const slot = `${k.key} when ${k.when ?? ''}`;
      assert.ok(!seen.has(slot), `${slot}: ${seen.get(slot)} and ${k.command}`);
      seen.set(slot, k.command);
    }
    // keys shared by two commands are told apart by a condition and its negation
    const byKey = new Map<string, ReturnType<typeof contributedKeybindings>>();
    for (const k of contributedKeybindings()) byKey.set(k.key, [...(byKey.get(k.key) ?? []), k]);
    for (const [key, list] of byKey) {
      if (list.length < 2) continue;
      assert.equal(list.length, 2, key);
      assert.equal(list[0]!.when, `!${list[1]!.when}`, key);
    }
  });
});
