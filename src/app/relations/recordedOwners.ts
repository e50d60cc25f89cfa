/**
 * The owner index of a recording at one instant (the objects Recording.objectsAt gives), for Show
 * Relations on a recorded object. No 'vscode' import.
 *
 * Recorded list items need not carry their kind: a type's kind is read from any of its objects that
 * does, else from an ownerReference that names one of them, else it is the resource's name. Events
 * are left out, as in the live index.
 */
import { asStoredObject } from '../../core/kube/objects/types';
import { OwnerIndex } from '../../core/relations/ownerIndex';
import { parseKey, type Obj } from '../../core/recorder/records';

export function recordedOwnerIndex(objects: ReadonlyMap<string, Obj>): OwnerIndex {
  const kindOfType = new Map<string, string>();
  const kindOfUid = new Map<string, string>();
  for (const [key, o] of objects) {
    const type = key.slice(0, key.indexOf('/'));
    if (typeof o['kind'] === 'string' && !kindOfType.has(type)) kindOfType.set(type, o['kind']);
    const refs = (o['metadata'] as { ownerReferences?: unknown } | undefined)?.ownerReferences;
    if (!Array.isArray(refs)) continue;
    for (const r of refs as { uid?: unknown; kind?: unknown }[]) if (typeof r?.uid === 'string' && typeof r.kind === 'string') kindOfUid.set(r.uid, r.kind);
  }
  for (const [key, o] of objects) {
    const type = key.slice(0, key.indexOf('/'));
    const uid = (o['metadata'] as { uid?: unknown } | undefined)?.uid;
    const kind = typeof uid === 'string' ? kindOfUid.get(uid) : undefined;
    if (kind && !kindOfType.has(type)) kindOfType.set(type, kind);
  }
  const index = new OwnerIndex();
  for (const [key, o] of objects) {
    const p = parseKey(key);
    const obj = asStoredObject(o);
    if (!p || !obj || p.resource === 'events') continue;
    index.upsert(obj, p.type, kindOfType.get(p.type) ?? p.resource);
  }
  return index;
}
