/**
 * Which type an object is of, and the one key every part of KubeLoop indexes objects by (the loop,
 * the rows, the tree, the recorder): "namespace/name" for pods, as klog.KObj prints it,
 * "resource[.group]:namespace/name" for other types.
 */
import type { StoredObject } from './types';

export interface ResourceRef {
  group: string; // '' = core
  resource: string; // plural, e.g. 'pods'
}

export const PODS: ResourceRef = Object.freeze({ group: '', resource: 'pods' });

/** The key everything in the loop is indexed by: "namespace/name" for pods (as klog.KObj prints it),
 * "resource[.group]:namespace/name" for other types (':' never occurs in a namespace name). */
export function objectKey(obj: StoredObject, resource: ResourceRef = PODS): string {
  const ns = obj.metadata.namespace;
  const nn = ns ? `${ns}/${obj.metadata.name}` : obj.metadata.name;
  if (resource.group === '' && resource.resource === 'pods') return nn;
  return `${resource.group ? `${resource.resource}.${resource.group}` : resource.resource}:${nn}`;
}

export function isPodResource(resource: ResourceRef | undefined): boolean {
  return !resource || (resource.group === '' && resource.resource === 'pods');
}
