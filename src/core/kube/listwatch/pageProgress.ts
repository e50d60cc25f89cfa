/**
 * PageProgress: what keeps a paged list from being walked forever. client-go's pager follows every
 * continue token it is given; a server (broken, or hostile) that hands back a token it gave before,
 * or goes on handing out pages with no items, would keep it requesting for ever. A walk here checks
 * each page it takes.
 *
 * Guarantees:
 * - A continue token already followed in this walk ends the list: a 'noProgress'
 *   KubeTransportError, "continue token repeated at page N".
 * - More than MAX_EMPTY_PAGES pages in a row with no items, each with a token to follow, end it:
 *   "N pages in a row without items". kube-apiserver fills a page before it answers (it reads on
 *   while fewer than `limit` objects match), so a run like that is not a list making progress.
 * - Memory: one string per page followed, a few hundred bytes each.
 */
import { KubeTransportError } from '../errors';

export const MAX_EMPTY_PAGES = 32;

export class PageProgress {
  private readonly followed = new Set<string>();
  private emptyRun = 0;
  private pages = 0;

  constructor(private readonly path: string) {}

  /** Checks a page just taken: its item count and the token it gives ('' on the last page). Throws when the walk would not end. */
  check(items: number, next: string): void {
    this.pages++;
    if (!next) return;
    if (this.followed.has(next)) {
      throw new KubeTransportError(
        'noProgress',
        `GET ${this.path}: continue token repeated at page ${this.pages} (the server gave it before): the list would never end`,
        this.path,
      );
    }
    this.followed.add(next);
    this.emptyRun = items === 0 ? this.emptyRun + 1 : 0;
    if (this.emptyRun > MAX_EMPTY_PAGES) {
      throw new KubeTransportError('noProgress', `GET ${this.path}: ${this.emptyRun} pages in a row without items: the list is making no progress`, this.path);
    }
  }
}
