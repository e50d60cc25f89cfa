/**
 * The demo cluster's own admin endpoint, outside the Kubernetes API: /_demo/faults.
 *   GET    /_demo/faults        -> { rules: FaultRuleState[] }
 *   POST   /_demo/faults        -> add rules: a JSON FaultRule, a JSON array of them, or a spec
 *                                  string (text/plain); answers { ids: string[] }
 *   DELETE /_demo/faults        -> remove every rule
 *   DELETE /_demo/faults/{id}   -> remove one rule (404 when unknown)
 *   GET    /_demo/stats         -> the server's counters
 *   GET    /_demo/reconciles?after=SEQ -> { last, records }: the controllers' reconciles after SEQ
 *                                  (controllers/reconcileLog.ts); 404 when no controllers run
 */
import type { Exchange } from './exchange';
import { FaultSpecError, type FaultController, type FaultRule } from './faults';
import type { ReconcileLog } from '../controllers/reconcileLog';
import type { ServerStats } from './stats';
import { badRequest, pathNotFound, success } from './status';

export async function handleAdmin(x: Exchange, faults: FaultController, stats: ServerStats, reconciles?: ReconcileLog): Promise<void> {
  const parts = x.url.pathname.split('/').filter(Boolean); // ['_demo', 'faults', id?]
  const method = x.req.method ?? 'GET';
  if (parts[1] === 'stats' && parts.length === 2 && method === 'GET') return x.json(200, stats);
  if (parts[1] === 'reconciles' && parts.length === 2 && method === 'GET') {
    if (!reconciles) throw pathNotFound();
    const after = Number(x.url.searchParams.get('after') ?? 0);
    if (!Number.isInteger(after) || after < 0) throw badRequest('after must be a non-negative integer');
    return x.json(200, reconciles.after(after));
  }
  if (parts[1] !== 'faults' || parts.length > 3) throw pathNotFound();
  const id = parts[2];
  if (method === 'GET' && !id) return x.json(200, { rules: faults.list() });
  if (method === 'DELETE') {
    if (!id) {
      faults.clear();
      return x.status(success());
    }
    if (!faults.remove(id)) throw pathNotFound();
    return x.status(success({ name: id }));
  }
  if (method === 'POST' && !id) {
    const text = (await x.readBody()).toString('utf8');
    const ct = (x.req.headers['content-type'] ?? '').toLowerCase();
    try {
      if (ct.startsWith('application/json')) {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch (e) {
          throw badRequest(`invalid JSON: ${(e as Error).message}`);
        }
        const rules = (Array.isArray(body) ? body : [body]) as FaultRule[];
        return x.json(201, { ids: rules.map((r) => faults.add(r)) });
      }
      return x.json(201, { ids: faults.addSpec(text) });
    } catch (e) {
      if (e instanceof FaultSpecError) throw badRequest(e.message);
      throw e;
    }
  }
  throw pathNotFound();
}
