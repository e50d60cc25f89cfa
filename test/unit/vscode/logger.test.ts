import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, isLevelEnabled, type LogSink } from '../../../src/app/logger';
import type { LogLevelName } from '../../../src/app/settings';

function recordingSink(): LogSink & { lines: string[] } {
  const lines: string[] = [];
  const rec = (level: string) => (m: string) => void lines.push(`${level} ${m}`);
  return { lines, trace: rec('trace'), debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') };
}

describe('logger', () => {
  it('writes only messages at or above the configured level, read on every call', () => {
    const sink = recordingSink();
    let level: LogLevelName = 'info';
    const log = createLogger(sink, () => level);
    log.debug('hidden');
    log.info('shown');
    level = 'debug';
    log.debug('now shown');
    level = 'off';
    log.error('never');
    assert.deepEqual(sink.lines, ['info shown', 'debug now shown']);
  });

  it('orders levels as VS Code does', () => {
    assert.ok(isLevelEnabled('trace', 'trace'));
    assert.ok(isLevelEnabled('warning', 'error'));
    assert.ok(!isLevelEnabled('warning', 'info'));
    assert.ok(!isLevelEnabled('off', 'error'));
  });

  it('never throws into the caller when the sink throws', () => {
    const boom = () => {
      throw new Error('channel disposed');
    };
    const log = createLogger({ trace: boom, debug: boom, info: boom, warn: boom, error: boom }, () => 'trace');
    assert.doesNotThrow(() => log.error('x'));
  });
});
