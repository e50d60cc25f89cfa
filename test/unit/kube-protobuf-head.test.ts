/**
 * A protobuf list's continue token read from its first bytes (protobuf/head.ts), so the paged list
 * requests page N+1 before page N has arrived, as it does for JSON: on the bytes the demo cluster
 * encodes as kube-apiserver does, every prefix gives undefined until the list's ListMeta is whole,
 * then the token ('' on the last page).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { continueFromHead } from '../../src/core/kube';
import { continueFromProtobufHead } from '../../src/core/kube/protobuf';
import { protobufList } from '../../src/demo/server/protobuf-forms';
import type { DemoObject } from '../../src/demo/store';

const pod = (name: string) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', resourceVersion: '5' },
    spec: { containers: [{ name: 'c', image: 'i' }] },
  }) as unknown as DemoObject;

describe('the continue token of a protobuf list, from its head', () => {
  it('is known once the ListMeta has arrived, before any item', () => {
    const token = `tok-${'x'.repeat(200)}`;
    const body = protobufList('v1', 'Pod', [pod('a'), pod('b')], { resourceVersion: '42', continue: token, remainingItemCount: 3 });
    const answers = Array.from({ length: body.length + 1 }, (_, n) => continueFromProtobufHead(body.subarray(0, n)));
    const first = answers.findIndex((a) => a !== undefined);
    assert.ok(first > 0 && first < body.length - 100, `known at byte ${first} of ${body.length}`);
    assert.ok(answers.slice(first).every((a) => a === token));
    assert.equal(continueFromHead(body.subarray(0, first).toString('latin1')), token);
  });

  it("is '' on the last page, and undefined for what is no protobuf list", () => {
    assert.equal(continueFromProtobufHead(protobufList('v1', 'Pod', [pod('a')], { resourceVersion: '42' })), '');
    assert.equal(continueFromProtobufHead(Buffer.from('{"kind":"PodList"')), undefined);
    assert.equal(continueFromProtobufHead(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12])), undefined);
  });
});
