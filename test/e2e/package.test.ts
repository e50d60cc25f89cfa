// `npm run package` as a publisher runs it: vsce package must say nothing it warns about (no
// missing repository, license, icon or README problem), and the .vsix must carry what the
// Marketplace shows (icon, README, CHANGELOG, LICENSE) next to the bundles.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { artifactsDir, repoRoot } from './support/paths';
import { run } from './support/run';

describe('the packaged .vsix', () => {
  it('vsce package prints no WARNING line, and the .vsix holds the icon, README, CHANGELOG and LICENSE', async () => {
    mkdirSync(artifactsDir, { recursive: true });
    const out = join(artifactsDir, 'kubeloop-package-test.vsix');
    const { stdout, stderr } = await run(process.execPath, [join(repoRoot, 'scripts', 'package-vsix.mjs'), '--out', out], { cwd: repoRoot });
    const lines = `${stdout}\n${stderr}`.split('\n');
    assert.ok(
      lines.some((l) => /DONE\s+Packaged:/.test(l)),
      'vsce reported the package',
    );
    const warnings = lines.filter((l) => /\bWARNING\b/i.test(l));
    assert.deepEqual(warnings, [], 'vsce warns about nothing');
    const { stdout: listing } = await run('unzip', ['-Z1', out]);
    const files = listing.split('\n').filter(Boolean);
    for (const f of [
      'extension/package.json',
      'extension/media/icon.png',
      'extension/readme.md',
      'extension/changelog.md',
      'extension/LICENSE.txt',
      'extension/dist/extension.js',
      'extension/dist/webview/timeline.js',
      // the demo cluster's OpenAPI documents, read from next to the bundle (kubectl explain)
      'extension/dist/openapi/index.json',
      'extension/dist/openapi/api__v1.json.gz',
    ]) {
      assert.ok(
        files.some((x) => x.toLowerCase() === f.toLowerCase()),
        `${f} in ${files.join(', ')}`,
      );
    }
    const { stdout: manifest } = await run('unzip', ['-p', out, 'extension.vsixmanifest']);
    assert.match(manifest, /<Icon>extension\/media\/icon\.png<\/Icon>/);
    assert.match(manifest, /Microsoft\.VisualStudio\.Services\.Links\.Source"\s+Value="https:\/\/github\.com\/kubeloop\/kubeloop\.git"/);
  });
});
