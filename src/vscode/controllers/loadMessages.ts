/**
 * What the user is told when a load of the window ends: nothing for a clean load; a message that
 * says who and where when nothing at all may be listed; the failed types of a partial load; the
 * problem, with Retry, of a failed one. Glue only.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../../app/commandIds';
import type { OpenConnection } from '../../app/connection/connection';
import type { LoadResult } from '../../app/load/loadRunner';
import type { ResourceModel } from '../../app/model/resourceModel';
import { formatCount as fmt } from '../../core/formatCount';
import { noRightsText, nothingPermitted } from '../../core/loader/scope';
import { reportProblem, type ProblemDeps } from './connection';
import type { Basics } from './services';

export type LoadMessageDeps = Basics & ProblemDeps & { readonly model: Pick<ResourceModel, 'failures'> };

export async function tellLoadResult(d: LoadMessageDeps, r: LoadResult, conn: OpenConnection, retry: () => unknown): Promise<void> {
  const { context: ctx } = conn;
  if (nothingPermitted(r.summary)) return tellNoRights(d, r, conn);
  const s = r.summary;
  switch (s.outcome) {
    case 'failed':
      void reportProblem(d, s.error, { context: ctx.name, server: ctx.server }, retry);
      return;
    case 'cancelled':
      void vscode.window.showInformationMessage(
        s.ok === 0
          ? 'KubeLoop: load cancelled before any type finished loading.'
          : `KubeLoop: load cancelled. The tree keeps the ${s.ok} type list(s) that finished (${fmt(s.objects)} objects).`,
      );
      return;
    case 'partial': {
      const failed = d.model.failures();
      const names = failed.slice(0, 3).map((f) => `${f.type.key}${f.namespace ? ` in ${f.namespace}` : ''} (${f.status ? `${f.status} ` : ''}${f.reason})`);
      const more = failed.length > 3 ? ` and ${failed.length - 3} more` : '';
      void vscode.window
        .showWarningMessage(`KubeLoop: loaded ${fmt(s.objects)} objects; ${s.failed} type(s) failed: ${names.join(', ')}${more}.`, 'Show Logs')
        .then((c) => {
          if (c) void vscode.commands.executeCommand(COMMANDS.showLogs.id);
        });
      return;
    }
    default:
      return;
  }
}

/** Nothing at all may be listed: one message that says who and where, not a list of 403s. */
async function tellNoRights(d: LoadMessageDeps, r: LoadResult, conn: OpenConnection): Promise<void> {
  const settings = d.settings();
  const ctx = conn.context;
  const user =
    (await conn.client.whoAmI({ signal: AbortSignal.timeout(settings.requestTimeoutSeconds * 1000) }).catch(() => undefined)) ?? ctx.user?.name ?? 'anonymous';
  const where = r.plan?.fallbackNamespaces.length ? r.plan.fallbackNamespaces : settings.namespaces;
  const text = noRightsText({ user, context: ctx.name, server: ctx.server }, where);
  d.log.error(`loader: ${text}`);
  void vscode.window.showErrorMessage(`KubeLoop: ${text}`, 'Select Context', 'Select Namespaces').then((c) => {
    if (c === 'Select Context') void vscode.commands.executeCommand(COMMANDS.selectContext.id);
    else if (c === 'Select Namespaces') void vscode.commands.executeCommand(COMMANDS.selectNamespaces.id);
  });
}
