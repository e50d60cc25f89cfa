// The Relations view's rows (src/app/relations/relationRows.ts): owners above, the object, owned
// below, Events last; observed rows open, virtual owners say so; a cut tree names what it left out;
// a failed Events read is a row, not a throw.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OwnerIndex } from '../../src/core/relations/ownerIndex';
import { relationRows, type RelationRow } from '../../src/app/relations/relationRows';

const labels = (rows: RelationRow[] | undefined, depth = 0): string[] =>
  (rows ?? []).flatMap((r) => [
    `${'  '.repeat(depth)}${r.label}${r.description ? ` [${r.description}]` : ''}${r.open ? ' (opens)' : ''}`,
    ...labels(r.children, depth + 1),
  ]);

describe('relation rows', () => {
  const ix = new OwnerIndex();
  ix.upsert(
    { metadata: { uid: 'rs', name: 'web-1', namespace: 'ns', ownerReferences: [{ uid: 'd', kind: 'Deployment', name: 'web', controller: true }] } },
    'replicasets.apps',
    'ReplicaSet',
  );
  for (let i = 0; i < 3; i++)
    ix.upsert(
      {
        metadata: { uid: `p${i}`, name: `web-1-${i}`, namespace: 'ns', ownerReferences: [{ uid: 'rs', kind: 'ReplicaSet', name: 'web-1', controller: true }] },
      },
      'pods',
      'Pod',
    );

  it('shows owners, the object, what it owns and its Events, in that order', () => {
    const rows = relationRows({
      owners: ix.ownersOf('rs')!,
      dependents: ix.dependentsOf('rs', 3)!,
      events: [
        {
          uid: 'e',
          type: 'Warning',
          reason: 'FailedCreate',
          message: 'quota',
          count: 2,
          lastSeen: Date.parse('2026-01-01T00:00:00Z'),
          source: 'replicaset-controller',
        },
      ],
      warningsOnly: true,
    });
    assert.deepEqual(labels(rows), [
      'Owners',
      '  Deployment web [controller, not listed (deleted, or not loaded)]',
      'ReplicaSet ns/web-1 (opens)',
      'Owned',
      '  Pod ns/web-1-0 [controller] (opens)',
      '  Pod ns/web-1-1 [controller] (opens)',
      '  1 more not shown',
      'Warning Events (1)',
      '  FailedCreate (x2) [2026-01-01 00:00:00Z quota]',
    ]);
    assert.equal(rows[3]!.children![0]!.warning, true);
    assert.deepEqual(rows[1]!.open, { typeKey: 'replicasets.apps', namespace: 'ns', name: 'web-1' });
  });

  it('says when there are no owners, nothing owned, or the Events could not be read', () => {
    const rows = relationRows({
      owners: ix.ownersOf('p0')!.children[0]!.children[0]!,
      dependents: ix.dependentsOf('d')!.children[0]!.children[0]!,
      events: { error: '403 Forbidden' },
      warningsOnly: false,
    });
    assert.deepEqual(labels(rows), [
      'Owners: none',
      'Deployment web [not listed (deleted, or not loaded)]',
      'Owned: none',
      'Events',
      '  Events could not be read: 403 Forbidden',
    ]);
  });
});
