/**
 * Kubernetes `Status` objects (meta/v1) and the error type every handler throws to produce one.
 * Messages copy the real kube-apiserver's wording so that clients print what users know.
 */
import { qualifiedResource, StoreError } from '../store';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: { reason?: string; message?: string; field?: string }[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(
    public readonly code: number,
    public readonly reason: string,
    message: string,
    public readonly details?: StatusDetails,
    public readonly headers: Record<string, string> = {},
    /** The Status's ListMeta (a 410 on a continue token carries a continue token of its own). */
    public readonly listMeta?: { continue?: string },
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): Status {
    const s = failure(this.code, this.reason, this.message, this.details);
    if (this.listMeta) s.metadata = { ...this.listMeta };
    return s;
  }
}

export function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details && Object.keys(details).length) s.details = details;
  return s;
}

export function success(details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) s.details = details;
  return s;
}

export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof StoreError) return new ApiError(e.code, e.reason, e.message, e.details);
  const msg = e instanceof Error ? e.message : String(e);
  return new ApiError(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
}

export const badRequest = (message: string) => new ApiError(400, 'BadRequest', message);

export function notFound(group: string, resource: string, name: string): ApiError {
  const details: StatusDetails = { name, kind: resource };
  if (group) details.group = group;
  return new ApiError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, details);
}

/** The apiserver's answer for a path no handler serves. */
export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function invalid(kind: string, name: string, group: string, causes: { field: string; reason: string; message: string }[]): ApiError {
  const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const details: StatusDetails = { name, kind, causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })) };
  if (group) details.group = group;
  return new ApiError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${summary}`, details);
}

/**
 * The real apiserver's 410 for an expired continue token (etcd3's handleCompactedErrorForPaging):
 * the Status carries a new token (resourceVersion -1, see snapshots.ts inconsistentToken) that
 * continues the list after the same key from the current state, and its message says so. Without
 * one, the short form upstream falls back to.
 */
export function continueExpired(inconsistentToken?: string): ApiError {
  if (inconsistentToken === undefined) {
    return new ApiError(
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  }
  return new ApiError(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    undefined,
    {},
    { continue: inconsistentToken },
  );
}

/** The real apiserver's 410 for a watch or list at a resourceVersion older than its history. */
export function resourceVersionTooOld(requested: number, oldest: number): ApiError {
  return new ApiError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}
