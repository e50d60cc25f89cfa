/**
 * metadata.managedFields as a recording keeps them (format version 4): their compact form
 * (../kube/objects/managers.ts says what it holds and why).
 */
import { compactManagedFields } from '../kube/objects/managers';
import type { Obj } from './records';

/**
 * `masked` (the object as the recording has it, managedFields dropped) with `original`'s
 * managedFields in their recorded form; `masked` itself when `original` has none.
 */
export function withRecordedManagedFields(masked: Obj, original: Obj): Obj {
  const mf = compactManagedFields((original.metadata as Obj | undefined)?.managedFields);
  if (!mf) return masked;
  return { ...masked, metadata: { ...(masked.metadata as Obj), managedFields: mf } };
}
