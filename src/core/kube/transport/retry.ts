/**
 * When to retry a request, and how long to wait first. Pure: the transport does the sleeping
 * (through the Clock, abortable), this only decides.
 *
 * - 429 or 5xx *with* Retry-After (header, or Status details.retryAfterSeconds): wait that long and
 *   retry, up to 10 times, as client-go's rest client does (checkWait / maxRetries 10). Each wait is
 *   capped at maxRetryAfterSeconds so a hostile or buggy header cannot park a load for hours.
 * - 429 or 5xx *without* it, a reset connection, a per-request timeout: exponential backoff with
 *   equal jitter (base * 2^n capped at backoffMaxMs, then a random point in its upper half), up to
 *   maxBackoffRetries times. client-go does not retry these at all; a LIST is idempotent, so a few
 *   bounded retries turn a blip into a success instead of a failed type.
 * - Everything else (4xx, malformed bodies, TLS, refused connections, aborts) is final at once:
 *   retrying cannot fix it, and an unreachable server must fail fast.
 */
import { KubeApiError, KubeTransportError } from '../errors';

export interface RetryPolicy {
  maxRetryAfterRetries: number;
  maxRetryAfterSeconds: number;
  maxBackoffRetries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** [0, 1); injectable so tests are deterministic. */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetryAfterRetries: 10,
  maxRetryAfterSeconds: 60,
  maxBackoffRetries: 5,
  backoffBaseMs: 200,
  backoffMaxMs: 5_000,
  random: Math.random,
};

export interface RetryState {
  retryAfterRetries: number;
  backoffRetries: number;
}

export type RetryDecision = { retry: false } | { retry: true; delayMs: number; kind: 'retry-after' | 'backoff' };

const retryableStatus = (s: number) => s === 429 || (s >= 500 && s !== 501 && s !== 505);

export function decideRetry(error: unknown, state: RetryState, policy: RetryPolicy): RetryDecision {
  if (error instanceof KubeApiError && retryableStatus(error.status)) {
    if (error.retryAfterSeconds !== undefined) {
      if (state.retryAfterRetries >= policy.maxRetryAfterRetries) return { retry: false };
      state.retryAfterRetries++;
      return { retry: true, kind: 'retry-after', delayMs: Math.min(error.retryAfterSeconds, policy.maxRetryAfterSeconds) * 1000 };
    }
    return backoff(state, policy);
  }
  if (error instanceof KubeTransportError && (error.kind === 'reset' || error.kind === 'timeout')) return backoff(state, policy);
  return { retry: false };
}

function backoff(state: RetryState, policy: RetryPolicy): RetryDecision {
  if (state.backoffRetries >= policy.maxBackoffRetries) return { retry: false };
  const ceiling = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** state.backoffRetries);
  state.backoffRetries++;
  return { retry: true, kind: 'backoff', delayMs: ceiling / 2 + policy.random() * (ceiling / 2) };
}
