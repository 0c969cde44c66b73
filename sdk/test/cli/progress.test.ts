// The progress view on its own: what a terminal shows and what a log gets, from the sync's progress
// reports and the client's quota, at fixed moments.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createProgressView, formatDuration, type ProgressView } from '../../src/cli/progress.js';
import type { QuotaSnapshot, SyncProgress } from '../../src/index.js';

const NOW = Date.parse('2026-11-22T04:00:00.000Z');

function screen(isTTY: boolean) {
  let written = '';
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.toString();
        done();
      },
    }),
    { isTTY, columns: 120 },
  );
  return { stream, get written() { return written; } };
}

const progress = (overrides: Partial<SyncProgress> = {}): SyncProgress => ({
  pages: 2,
  rows: 200,
  totalCount: 1000,
  requests: 2,
  quotaRemaining: 8,
  nextRequestAt: NOW,
  eta: NOW + 125_000,
  ...overrides,
});

const quotaOf = (snapshot: Partial<QuotaSnapshot>) => (): QuotaSnapshot => ({ limit: 10, remaining: 8, nextRequestAt: NOW, serverClockOffsetMs: 0, ...snapshot });

let view: ProgressView | undefined;
afterEach(() => view?.finish());

describe('the progress bar on a terminal', () => {
  it('shows the share done, rows so far of the total, the request, the quota and the ETA on one line redrawn in place', () => {
    const out = screen(true);
    view = createProgressView({ stream: out.stream, quota: quotaOf({}), now: () => NOW, tickMs: 60_000 });
    view.update(progress());
    const frame = out.written.split('\r\x1b[2K').at(-1);
    expect(frame).toBe(`[████░░░░░░░░░░░░░░░░]  20% · 200/1000 rows · request 2 · quota 8/10 · ETA 2m05s`);
  });

  it('counts down "waiting for quota (Ns)" while the rate limit holds the next request', () => {
    const out = screen(true);
    let now = NOW;
    view = createProgressView({ stream: out.stream, quota: quotaOf({ remaining: 0, nextRequestAt: NOW + 12_000 }), now: () => now, tickMs: 60_000 });
    view.update(progress({ quotaRemaining: 0, nextRequestAt: NOW + 12_000 }));
    expect(out.written.split('\r\x1b[2K').at(-1)).toMatch(/· waiting for quota \(12s\)$/);
    now += 5_000;
    view.update(progress({ quotaRemaining: 0, nextRequestAt: NOW + 12_000 }));
    expect(out.written.split('\r\x1b[2K').at(-1)).toMatch(/· waiting for quota \(7s\)$/);
  });

  it('counts a wait of a minute or more in seconds too', () => {
    const out = screen(true);
    view = createProgressView({ stream: out.stream, quota: quotaOf({ remaining: 0, nextRequestAt: NOW + 60_000 }), now: () => NOW, tickMs: 60_000 });
    view.update(progress({ quotaRemaining: 0 }));
    expect(out.written.split('\r\x1b[2K').at(-1)).toMatch(/· waiting for quota \(60s\)$/);
  });

  it('shows a retry and its delay, and clears the line when the sync ends', () => {
    const out = screen(true);
    view = createProgressView({ stream: out.stream, quota: quotaOf({}), now: () => NOW, tickMs: 60_000 });
    view.update(progress());
    view.events.onRetry?.({ attempt: 1, reason: 'status 503', delayMs: 3_000 });
    expect(out.written.split('\r\x1b[2K').at(-1)).toMatch(/· retrying after status 503 \(3s\)$/);
    view.finish();
    expect(out.written.endsWith('\r\x1b[2K')).toBe(true);
  });
});

describe('progress off a terminal', () => {
  it('writes one plain line per step and one per wait, with no escape codes', () => {
    const out = screen(false);
    view = createProgressView({ stream: out.stream, quota: quotaOf({ remaining: 0, nextRequestAt: NOW + 30_000 }), now: () => NOW });
    view.update(progress({ pages: 1, requests: 1, rows: 100 }));
    view.events.onRetry?.({ attempt: 1, reason: 'status 429', delayMs: 30_000 });
    expect(out.written).toBe(['100/1000 rows, request 1, quota 0/10, ETA 2m05s', 'waiting for quota (30s)', 'retrying after status 429 in 30s', ''].join('\n'));
  });

  it('says nothing about a wait once every row is in', () => {
    const out = screen(false);
    view = createProgressView({ stream: out.stream, quota: quotaOf({ remaining: 0, nextRequestAt: NOW + 30_000 }), now: () => NOW });
    view.update(progress({ rows: 1000, totalCount: 1000, eta: NOW }));
    expect(out.written).toBe('1000/1000 rows, request 2, quota 0/10, ETA 0s\n');
  });

  it('counts rows of the total and the request, with no page number that skips or passes the total', () => {
    const out = screen(false);
    view = createProgressView({ stream: out.stream, quota: quotaOf({}), now: () => NOW });
    // What a sync of 291 rows in one write reports: a count request, the group read top down, a last empty page.
    view.update(progress({ pages: 1, requests: 1, rows: 100, totalCount: 291, eta: NOW }));
    view.update(progress({ pages: 3, requests: 3, rows: 191, totalCount: 291, eta: NOW }));
    view.update(progress({ pages: 5, requests: 5, rows: 291, totalCount: 291, eta: NOW }));
    view.update(progress({ pages: 6, requests: 6, rows: 291, totalCount: 291, eta: NOW }));
    expect(out.written).toBe(
      ['100/291 rows, request 1, quota 8/10, ETA 0s', '191/291 rows, request 3, quota 8/10, ETA 0s', '291/291 rows, request 5, quota 8/10, ETA 0s', ''].join('\n'),
    );
  });
});

describe('durations', () => {
  it.each([
    [0, '0s'],
    [1, '1s'],
    [59_001, '1m00s'],
    [125_000, '2m05s'],
    [3_600_000, '1h00m'],
    [-5_000, '0s'],
  ])('%i ms reads as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
