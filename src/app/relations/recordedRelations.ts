/**
 * Show Relations on a recorded object (no 'vscode' import): what the Relations view shows for one
 * object of a recording at one instant, read from the recording alone. Its owners and what it owns
 * as the recording held them then (recordedOwners.ts), and every Event about it the recording held
 * up to then (objectEvents.ts), the ones the API server has long expired included.
 *
 * Guarantees: errors are values (an object the recording does not hold then is `{ error }`);
 * the recording is read with the signal; nothing is asked of a cluster.
 */
import type { Recording } from '../../core/recorder/reader';
import { parseKey } from '../../core/recorder/records';
import type { RelationTree } from '../../core/relations/ownerIndex';
import { clockTime } from '../recording/liveRecording';
import { recordedEventsAbout } from './objectEvents';
import { recordedOwnerIndex } from './recordedOwners';
import type { RelationsInput } from './relationRows';

/** The object the view is about: its title and the subject of the rows. */
export interface RecordedSubject {
  uid: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** The Relations of recorded object `key` (`type/namespace/name`) at instant `at`. */
export async function recordedRelations(
  rec: Pick<Recording, 'objectsAt' | 'records'>,
  at: number,
  key: string,
  warningsOnly: boolean,
  signal: AbortSignal,
): Promise<{ subject: RecordedSubject; input: RelationsInput } | { error: string }> {
  const objects = await rec.objectsAt(at, signal);
  const o = objects.get(key);
  const p = parseKey(key);
  const meta = o?.metadata as { uid?: unknown } | undefined;
  if (!o || !p) return { error: `${key} is not in the recording at ${clockTime(at)}` };
  const index = recordedOwnerIndex(objects);
  const uid = typeof meta?.uid === 'string' ? meta.uid : '';
  const owners: RelationTree = (uid && index.ownersOf(uid)) || {
    node: { uid, kind: typeof o.kind === 'string' ? o.kind : p.resource, name: p.name, ...(p.namespace ? { namespace: p.namespace } : {}), virtual: false },
    controller: false,
    children: [],
  };
  const dependents: RelationTree = (uid && index.dependentsOf(uid)) || { node: owners.node, controller: false, children: [] };
  const subject: RecordedSubject = { uid, kind: owners.node.kind, name: p.name, ...(p.namespace ? { namespace: p.namespace } : {}) };
  const events = await recordedEventsAbout(rec, subject, signal, warningsOnly, at);
  return { subject, input: { owners, dependents, events, warningsOnly, source: `recorded, at ${clockTime(at)}` } };
}
