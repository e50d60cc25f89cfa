/**
 * Which requests a case's peer answers (relay.ts's `misbehave`), and how its error is recognised.
 */
import type { IncomingMessage } from 'node:http';
import type { Handler, RelayOptions } from './relay';

const isWatch = (u: URL) => u.searchParams.get('watch') === 'true' || u.searchParams.get('watch') === '1';

/**
 * `h` for the GETs of one type (core `resource` when `group` is empty), in every namespace or
 * across all: its lists (`list`), its watches (`watch`), or both.
 */
export function onType(group: string, version: string, resource: string, h: () => Handler, which: 'list' | 'watch' | 'any' = 'any'): RelayOptions['misbehave'] {
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const path = new RegExp(`^${base.replace(/\./g, '\\.')}/(namespaces/[^/]+/)?${resource}$`);
  return (req: IncomingMessage, url: URL) => {
    if (req.method !== 'GET' || !path.test(url.pathname)) return undefined;
    if (which !== 'any' && (which === 'watch') !== isWatch(url)) return undefined;
    return h();
  };
}

/** The first of several selections that picks a request. */
export function either(...all: RelayOptions['misbehave'][]): RelayOptions['misbehave'] {
  return (req, url) => {
    for (const m of all) {
      const h = m?.(req, url);
      if (h) return h;
    }
    return undefined;
  };
}

/** A line that names `what` and says `why`, in either order. */
export function naming(what: string, why: RegExp): RegExp {
  const w = what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${w}[^\\n]*(?:${why.source})|(?:${why.source})[^\\n]*${w}`, why.flags);
}
