// The host side of the timeline webview: its HTML/CSP, its message validation, its text renderings.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { makeNonce, timelineHtml } from '../../../src/app/timeline/html';
import { formatEventDetails } from '../../../src/shared/details';
import { parseWebviewMessage } from '../../../src/shared/protocol';
import { eventLabel } from '../../../src/vscode/timeline/webview/format';
import type { LoaderTaskEvent, SyncIterationEvent } from '../../../src/core/timeline/events';

const input = {
  cspSource: 'https://webview.example',
  scriptUri: 'https://webview.example/dist/webview/timeline.js',
  styleUri: 'https://webview.example/media/timeline/timeline.css',
};

describe('timeline html', () => {
  it('has a CSP that denies by default and runs only scripts carrying its nonce', () => {
    const nonce = makeNonce();
    const html = timelineHtml({ ...input, nonce });
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    assert.ok(csp.startsWith("default-src 'none'"));
    assert.ok(csp.includes(`script-src 'nonce-${nonce}'`));
    assert.ok(!/unsafe-inline|unsafe-eval|\*/.test(csp), csp);
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    assert.equal(scripts.length, 1);
    assert.ok(scripts[0]!.includes(`nonce="${nonce}"`) && scripts[0]!.includes(`src="${input.scriptUri}"`));
  });

  it('gets a different nonce per document', () => {
    assert.notEqual(makeNonce(), makeNonce());
    assert.throws(() => timelineHtml({ ...input, nonce: '"><script>' }));
  });
});

describe('parseWebviewMessage', () => {
  it('accepts exactly the protocol shapes', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseWebviewMessage({ type: 'select', eventId: 3, extra: 'dropped' }), { type: 'select', eventId: 3 });
    assert.equal(parseWebviewMessage({ type: 'select', eventId: -1 }), undefined);
    assert.equal(parseWebviewMessage({ type: 'requestDetails', eventId: '3' }), undefined);
    assert.equal(parseWebviewMessage('ready'), undefined);
  });

  it('never throws on arbitrary input (property)', () => {
    fc.assert(fc.property(fc.anything(), (raw) => void parseWebviewMessage(raw)));
  });
});

describe('event text', () => {
  const hostile = '<img src=x onerror=alert(1)>';
  const task: LoaderTaskEvent = {
    kind: 'task',
    loadId: 'l1',
    taskId: 7,
    worker: 2,
    phase: 'finish',
    t: 1500,
    gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
    namespace: hostile,
    count: 12,
    durationMs: 40,
    outcome: 'ok',
  };
  const iteration: SyncIterationEvent = {
    kind: 'iteration',
    t: 2000,
    source: 'pleg',
    op: 'ContainerStarted',
    key: `default/${hostile}`,
    handler: 'HandlePodSyncs',
    durationMs: 3,
    outcome: 'ok',
  };

  it('keeps cluster names verbatim as text (the webview renders it with textContent)', () => {
    assert.ok(formatEventDetails(task).includes(`Namespace: ${hostile}`));
    assert.ok(eventLabel(iteration).includes(hostile));
    assert.equal(eventLabel(task), `1.500s  worker 2  finish deployments.apps in ${hostile} ok, 12 items, 40 ms`);
  });

  it('renders an iteration with its source, handler and outcome', () => {
    assert.equal(formatEventDetails(iteration).split('\n')[0], 'Sync loop iteration: pleg / ContainerStarted');
    assert.ok(formatEventDetails(iteration).includes('Handler: HandlePodSyncs'));
  });
});
