/**
 * The flight recorder (issue 12): record the sync loop's watch deltas, Events and timeline events
 * to a compressed, checksummed, bounded file; read any instant of it back; export and replay it.
 * The extension's UI (Start/Stop Recording, Open Recording...) builds on this API; no 'vscode' here.
 *
 *   startRecording({ path, context, server, timeline }, signal)  -> { recorder (pass as ClusterSync's observer), done }
 *   Recording.open(path, signal)                                 -> range, keyframes, objectsAt(t), historyOf(key), timelineEvents(range)
 *   writeTrace(records, write) / jsonLine(record)                -> exports
 *   replayRecording(recording, target, signal, { speed })        -> the demo cluster's --replay
 */
export { startRecording, publicServer, type RecordingSession, type RecordingSessionOptions } from './session';
export { Recording, applyDelta, type KeyframeInfo, type ObjectChange, type SegmentDamage } from './reader';
export { Recorder } from './recorder';
export { RecordingWriter, RECORDING_DEFAULTS, segmentPath, type RecordingWriterOptions } from './writer';
export { writeTrace, jsonLine, type TraceEvent } from './export';
export { replayRecording, type ReplayTarget, type ReplayOptions } from './replay';
export { objectKey, parseKey, isEventKey, FORMAT_VERSION, type RecordingRecord, type DeltaRecord, type TimelineRecord } from './records';
