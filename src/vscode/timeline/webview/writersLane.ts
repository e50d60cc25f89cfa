/**
 * The writer lanes: one per busy field manager (WritesEvent, core/writers), in their own group after
 * every other lane, by manager name (a lane keeps its place while managers come and go). A window
 * with a fight or a hot loop is drawn with the error severity: the flag shows at any zoom.
 */
import type { WritesEvent } from '../../../core/timeline/events';
import { writesSummary } from '../../../shared/writesDetails';

export function writerLaneKey(e: WritesEvent): string {
  return `writer:${e.manager}`;
}

export function writerLaneLabel(manager: string): string {
  return `writer ${manager}`;
}

export function writesFlagged(e: WritesEvent): boolean {
  return e.fight !== undefined || e.hotLoop !== undefined;
}

/** The writer lanes of `all`, by manager name. */
export function orderWriterLanes<L extends { kind: string; manager?: string }>(all: readonly L[]): L[] {
  return all.filter((l) => l.kind === 'writer').sort((a, b) => (a.manager! < b.manager! ? -1 : a.manager! > b.manager! ? 1 : 0));
}

export function writesLabel(e: WritesEvent, time: string): string {
  return `${time}  writer ${e.manager}  ${writesSummary(e)}`;
}

export function writerLaneTitle(manager: string): string {
  return `writes of field manager ${manager}, one mark per second while it is busy (a red mark: a fight or a hot loop)`;
}

/** The name filter's text for a writes mark: its manager, kinds and flagged objects. */
export function writesHaystack(e: WritesEvent): string {
  return [e.manager, ...e.kinds, e.fight ?? '', e.hotLoop ?? ''].join(' ');
}
