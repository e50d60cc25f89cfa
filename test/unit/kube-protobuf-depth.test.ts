/**
 * An object the protobuf walker builds nests no deeper than its kind's plan, and no plan reaches a
 * recursive message or a value parsed as JSON (FieldsV1): so every such object is far inside
 * MAX_OBJECT_DEPTH, and a list page the walker decoded skips the depth cap's walk over every member
 * (listwatch/list.ts compactItem's `schemaBound`). A field set that one day kept such a field (a CRD's
 * schema, managedFields' FieldsV1) fails here before it could hand the tree an object too deep to walk.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planFor } from '../../src/core/kube/protobuf/decode';
import { FIELD_SETS } from '../../src/core/kube/protobuf/fieldsets';
import { F_INLINE, F_MAP, F_REPEATED, K_FIELDSV1, K_MESSAGE, type MessagePlan } from '../../src/core/kube/protobuf/plan';
import { MAX_OBJECT_DEPTH } from '../../src/core/kube/objects/depth';

/** Levels of objects and arrays a message's JSON value nests, itself being level 1 (Infinity: unbounded). */
function depthOf(plan: MessagePlan, visiting = new Set<MessagePlan>()): number {
  if (visiting.has(plan)) return Infinity;
  visiting.add(plan);
  let below = 0;
  for (const f of plan.fields) {
    let v = 0;
    if (f.kind === K_FIELDSV1) v = Infinity;
    else if (f.kind === K_MESSAGE) v = depthOf(f.sub!, visiting) - (f.flags & F_INLINE ? 1 : 0);
    if (f.flags & (F_REPEATED | F_MAP)) v += 1;
    below = Math.max(below, v);
  }
  visiting.delete(plan);
  return 1 + below;
}

describe("the protobuf walker's objects: depth bounded by the schema", () => {
  it('every kind with a field set, and its list, nests a bounded depth far inside MAX_OBJECT_DEPTH', () => {
    const depths: Record<string, number> = {};
    for (const key of Object.keys(FIELD_SETS)) {
      const at = key.lastIndexOf('/');
      const apiVersion = key.slice(0, at);
      const kind = key.slice(at + 1);
      for (const k of [kind, `${kind}List`]) {
        const plan = planFor(apiVersion, k);
        if (plan) depths[`${apiVersion}/${k}`] = depthOf(plan);
      }
    }
    assert.ok(depths['v1/PodList']! > depths['v1/Pod']! && depths['v1/Pod']! >= 5, JSON.stringify(depths));
    assert.ok(Object.keys(depths).length >= 30, `plans checked: ${Object.keys(depths).length}`);
    const deep = Object.entries(depths).filter(([, d]) => !(d <= 64));
    assert.deepEqual(deep, [], `every plan finite and at most 64 levels (MAX_OBJECT_DEPTH is ${MAX_OBJECT_DEPTH})`);
  });

  it('the measure sees recursion and parsed JSON as unbounded', () => {
    const leaf: MessagePlan = { message: 'Leaf', byNumber: [], fields: [], fill: [] };
    const fields: MessagePlan['fields'][number][] = [];
    const loop: MessagePlan = { message: 'Loop', byNumber: [], fields, fill: [] };
    fields.push({ number: 1, name: 'self', kind: K_MESSAGE, flags: 0, wire: 2, sub: loop });
    assert.equal(depthOf(loop), Infinity);
    const json: MessagePlan = { message: 'J', byNumber: [], fields: [{ number: 1, name: 'f', kind: K_FIELDSV1, flags: 0, wire: 2, sub: undefined }], fill: [] };
    assert.equal(depthOf(json), Infinity);
    const list: MessagePlan = {
      message: 'L',
      byNumber: [],
      fields: [{ number: 1, name: 'items', kind: K_MESSAGE, flags: F_REPEATED, wire: 2, sub: leaf }],
      fill: [],
    };
    assert.equal(depthOf(list), 3, '{ items: [ {} ] }');
  });
});
