// What `loadfeed sync` shows while it runs. On a terminal: one bar, redrawn in place, with the rows so far
// of the total, the request it is at, the quota, the ETA the rate limit allows and a "waiting for quota
// (Ns)" countdown while the sync is paced. Elsewhere (a log file, CI): a plain line each time the rows
// move, one per wait and per retry, no escape codes. It counts rows and requests, never pages: the sync's
// key walk reads some pages twice and some only to count, so a page number would skip or pass the total.
import type { QuotaSnapshot } from '../pacing.js';
import type { AttemptEvents } from '../retry.js';
import type { SyncProgress } from '../sync.js';

export interface ProgressStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressViewOptions {
  stream: ProgressStream;
  /** The client's quota, read on every redraw so the countdown moves between pages. */
  quota(): QuotaSnapshot;
  now(): number;
  /** How often the terminal bar redraws (default 250 ms). */
  tickMs?: number;
}

export interface ProgressView {
  /** syncLoads' onProgress. */
  update(progress: SyncProgress): void;
  /** The client's logger: retries show as they are scheduled. */
  events: AttemptEvents;
  /** Removes the bar (or does nothing in plain mode) so the summary starts on a clean line. */
  finish(): void;
}

const BAR_WIDTH = 20;
/** Waits shorter than this are ordinary request spacing, not worth a line. */
const VISIBLE_WAIT_MS = 500;

/** A wait as whole seconds, rounded up: "waiting for quota (42s)" counts down one second at a time. */
export const formatWait = (ms: number) => `${Math.max(0, Math.ceil(ms / 1000))}s`;

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function bar(done: number, total: number): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(ratio * BAR_WIDTH);
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%`;
}

export function createProgressView(options: ProgressViewOptions): ProgressView {
  const { stream, quota, now } = options;
  let latest: SyncProgress | undefined;
  let retry: { until: number; reason: string } | undefined;

  /** The wait before the next request, when one is coming and it is long enough to show. */
  function pendingWait(): { kind: 'quota' | 'retry'; ms: number; reason?: string } | undefined {
    const at = now();
    if (retry && retry.until - at >= VISIBLE_WAIT_MS) return { kind: 'retry', ms: retry.until - at, reason: retry.reason };
    const moreToCome = latest === undefined || latest.rows < latest.totalCount;
    const quotaWait = quota().nextRequestAt - at;
    if (moreToCome && quotaWait >= VISIBLE_WAIT_MS) return { kind: 'quota', ms: quotaWait };
    return undefined;
  }

  function waitText(wait: NonNullable<ReturnType<typeof pendingWait>>): string {
    return wait.kind === 'quota' ? `waiting for quota (${formatWait(wait.ms)})` : `retrying after ${wait.reason} (${formatWait(wait.ms)})`;
  }

  function etaText(progress: SyncProgress): string {
    return progress.eta === undefined ? 'ETA --' : `ETA ${formatDuration(progress.eta - now())}`;
  }

  const rowsText = (progress: SyncProgress) => `${progress.rows}/${progress.totalCount} rows`;

  function quotaText(): string {
    const { remaining, limit } = quota();
    return remaining === undefined ? 'quota ?' : `quota ${Math.max(0, remaining)}${limit === undefined ? '' : `/${limit}`}`;
  }

  if (!stream.isTTY) {
    return {
      update(progress) {
        const moved = latest === undefined || progress.rows !== latest.rows || progress.totalCount !== latest.totalCount;
        latest = progress;
        if (moved) stream.write(`${rowsText(progress)}, request ${progress.requests}, ${quotaText()}, ${etaText(progress)}\n`);
        const wait = pendingWait();
        if (wait) stream.write(`${waitText(wait)}\n`);
      },
      events: {
        onRetry({ reason, delayMs }) {
          stream.write(`retrying after ${reason} in ${formatWait(delayMs)}\n`);
        },
      },
      finish() {},
    };
  }

  let shown = '';
  function render(): void {
    const wait = pendingWait();
    const parts = latest ? [bar(latest.rows, latest.totalCount), rowsText(latest), `request ${latest.requests}`] : ['connecting…'];
    // While paced, the countdown says more than "quota 0".
    if (latest && wait?.kind !== 'quota') parts.push(quotaText());
    if (latest) parts.push(etaText(latest));
    if (wait) parts.push(waitText(wait));
    const line = parts.join(' · ').slice(0, Math.max(20, (stream.columns || 100) - 1));
    if (line === shown) return;
    shown = line;
    stream.write(`\r\x1b[2K${line}`);
  }
  const ticker = setInterval(render, options.tickMs ?? 250);
  ticker.unref();
  render();

  return {
    update(progress) {
      latest = progress;
      render();
    },
    events: {
      onRetry({ reason, delayMs }) {
        retry = { until: now() + delayMs, reason };
        render();
      },
    },
    finish() {
      clearInterval(ticker);
      if (shown !== '') stream.write('\r\x1b[2K');
      shown = '';
    },
  };
}
