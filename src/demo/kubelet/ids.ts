/**
 * Identifiers a container runtime would report, derived deterministically from their inputs so a
 * run of the simulation is reproducible: the same pod, container and attempt give the same id.
 */
import { createHash } from 'node:crypto';

export function hex64(...parts: (string | number)[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

/** `nginx` -> `docker.io/library/nginx:latest`, the way containerd reports an image reference. */
export function normalizeImage(image: string): string {
  let ref = image;
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  if (!hasRegistry) ref = slash < 0 ? `docker.io/library/${ref}` : `docker.io/${ref}`;
  const lastPart = ref.slice(ref.lastIndexOf('/') + 1);
  if (!lastPart.includes(':') && !ref.includes('@')) ref += ':latest';
  return ref;
}

/** The digest-pinned reference containerd reports as imageID. */
export function imageIDFor(image: string): string {
  const ref = normalizeImage(image);
  const at = ref.indexOf('@');
  if (at >= 0) return ref;
  const colon = ref.lastIndexOf(':');
  const repo = colon > ref.lastIndexOf('/') ? ref.slice(0, colon) : ref;
  return `${repo}@sha256:${hex64('image', ref)}`;
}

export function containerIDFor(podUID: string, container: string, attempt: number): string {
  return `containerd://${hex64('container', podUID, container, attempt)}`;
}
