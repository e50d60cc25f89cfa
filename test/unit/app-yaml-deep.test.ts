/**
 * The YAML views of an object nested deeper than any walk can take (kube-apiserver stores up to
 * 10,000 levels): the live view (renderObjectYaml) and a recording's (renderRecordedYaml) render it
 * cut at MAX_OBJECT_DEPTH, say so in the header, leave the object they were given unchanged, and
 * stay linear in time and text (no block-style indentation 1,000 levels deep).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { load as loadYaml, type LoadOptions } from 'js-yaml';
import { MAX_OBJECT_DEPTH, TRUNCATED } from '../../src/core/kube/objects/depth';
import { renderObjectYaml } from '../../src/app/yaml/render';
import { renderRecordedYaml } from '../../src/app/recording/recordedObjects';
import { chain, nestedText } from '../support/deep';

const address = { context: 'ctx', group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'team-a', name: 'deep' };

/** js-yaml's loader refuses more than 100 levels unless told (an option its types do not name). */
const load = (text: string) => loadYaml(text, { maxDepth: 2 * MAX_OBJECT_DEPTH } as LoadOptions);

function deepWidget(levels: number): Record<string, unknown> {
  const text = nestedText(levels, '"leaf"');
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'deep', namespace: 'team-a' }, spec: JSON.parse(text) };
}

describe('YAML views of a custom resource nested 9,999 levels', () => {
  it('the live view renders it cut at 1,000 levels, says so, leaves the object as it was, in linear text', () => {
    const obj = deepWidget(9_999);
    const t0 = performance.now();
    const text = renderObjectYaml(address, obj, new Date(0));
    const ms = performance.now() - t0;
    assert.match(text, /^# Nested deeper than 1000 levels: shown cut there, each deeper part as "<truncated: nested deeper than 1000 levels>"\.$/m);
    const back = load(text) as Record<string, unknown>;
    // The object is level 1, spec level 2, the last object level 1,000: 999 steps of `a` from spec, the last to the marker.
    const c = chain(back.spec);
    assert.equal(c.levels, MAX_OBJECT_DEPTH - 1);
    assert.equal(c.end, TRUNCATED);
    assert.equal((back.metadata as Record<string, unknown>).name, 'deep');
    assert.equal(chain(obj.spec).levels, 9_999, 'the object given is not changed');
    assert.ok(text.length < 64 * 1024, `text of ${text.length} chars`);
    assert.ok(ms < 2_000, `rendered in ${ms.toFixed(0)} ms`);
  });

  it("a recording's view renders it the same way", () => {
    const text = renderRecordedYaml('/tmp/r.klr', 'widgets.example.com/team-a/deep', deepWidget(9_999), 0);
    assert.match(text, /^# Nested deeper than 1000 levels/m);
    assert.equal(chain((load(text) as Record<string, unknown>).spec).end, TRUNCATED);
  });

  it('an ordinary object renders as before: block style, no cut note', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' }, data: { a: '1' } };
    const text = renderObjectYaml({ ...address, group: '', resource: 'configmaps' }, obj, new Date(0));
    assert.doesNotMatch(text, /Nested deeper/);
    assert.match(text, /^data:\n {2}a: '1'$/m);
  });
});
