import type { KubeletLineEvent } from '../timeline/events';
import type { KubeletRecord } from './records';

/**
 * A kubelet record as a timeline event on its node's lane (`kubelet <node>`), its time made
 * relative to the timeline's origin: `wallOrigin` is the wall-clock ms of the timeline's t = 0. A
 * pod-worker sync is a tick at its "enter" (so a sync that blocks shows at once), then the whole
 * span once its "exit" is read.
 */
export function kubeletLineEvent(r: KubeletRecord, node: string, wallOrigin: number): KubeletLineEvent {
  return {
    kind: 'kubelet',
    t: Math.round((r.at - wallOrigin) * 1000) / 1000,
    node,
    source: r.source,
    op: r.op,
    key: r.keys.join(','),
    ...(r.uid ? { uid: r.uid } : {}),
    handler: r.handler,
    outcome: r.outcome,
    durationMs: r.span === 'enter' ? 0 : (r.durationMs ?? 0),
    ...(r.data ? { data: r.data } : {}),
    ...(r.message ? { message: r.message } : {}),
    raw: r.raw,
  };
}
