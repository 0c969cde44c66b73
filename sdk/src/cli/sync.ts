// `loadfeed sync`: keeps a local copy of your loads (an NDJSON file or a SQLite table) in step with the
// API through the SDK's syncLoads, showing progress; Ctrl-C stops between writes and keeps the cursor.
import { writeLine } from '@loadfeed/spec/cli';
import { createClient } from '../client.js';
import { syncLoads, type SyncSummary } from '../sync.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, Interrupted, UsageError, connectionOf, parseFlags, positiveInteger, type Command } from './command.js';
import type { Destination } from './destination.js';
import { openNdjsonDestination } from './ndjson-destination.js';
import { createProgressView, formatDuration, plural, type ProgressView } from './progress.js';
import { openSqliteDestination } from './sqlite-destination.js';
import { TIMEOUT_HELP, TIMEOUT_OPTION, timeoutMsOf } from './timeout-flag.js';

const NAME = 'sync';

/** Where `--out` keeps its cursor unless `--state` says otherwise. */
export const defaultStatePath = (out: string) => `${out}.state.json`;

export const syncCommand: Command = {
  name: NAME,
  summary: 'Copy your loads into an NDJSON file or a SQLite table, then keep it up to date',
  help: `Usage: loadfeed sync (--out <loads.ndjson> | --sqlite <loads.db>) [options]

Fetches every load changed since the last run and upserts it by loadNumber. The first run copies
everything; each later run reads from the saved cursor (minus a 5-minute overlap), so run it on a
schedule. Ctrl-C (or SIGTERM) stops cleanly: what is written stays, and the next run resumes from
the cursor.

Destination (one of):
  --out <file>         An NDJSON file, one line per load (the newest version of each)
  --sqlite <file>      A SQLite database: table \`loads\` keyed by "loadNumber"; the cursor is kept in
                       table \`loadfeed_sync\` and saved in the same transaction as each page's rows
                       (needs the optional package better-sqlite3)

Options:
  --state <file>       Where --out keeps its cursor (default: <out>.state.json)
  --page-size <n>      Rows per request (default: the server's default, 100)
${TIMEOUT_HELP}
${CONNECTION_HELP}

Exit codes: 0 synced, 1 failed (one line says why), 2 bad usage, 130 Ctrl-C, 143 SIGTERM.`,

  async run(args, context) {
    const values = parseFlags(NAME, args, {
      ...CONNECTION_OPTIONS,
      out: { type: 'string' },
      sqlite: { type: 'string' },
      state: { type: 'string' },
      'page-size': { type: 'string' },
      ...TIMEOUT_OPTION,
    });
    if (values.help) return writeLine(context.stdout, this.help);
    if ((values.out === undefined) === (values.sqlite === undefined)) {
      throw new UsageError('give exactly one destination: --out <file.ndjson> or --sqlite <file.db>', NAME);
    }
    if (values.sqlite !== undefined && values.state !== undefined) {
      throw new UsageError('--state is for --out: with --sqlite the cursor lives in the database itself', NAME);
    }
    const pageSize = positiveInteger(values['page-size'], '--page-size', NAME);
    const timeoutMs = timeoutMsOf(values.timeout, NAME);
    const connection = connectionOf(values, context, NAME);

    let view: ProgressView | undefined;
    const client = createClient({
      ...connection,
      signal: context.signal,
      userAgent: 'loadfeed-cli',
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      logger: { onRetry: (event) => view?.events.onRetry?.(event) },
    });
    const destination: Destination =
      values.sqlite !== undefined ? await openSqliteDestination(values.sqlite) : await openNdjsonDestination(values.out!, values.state ?? defaultStatePath(values.out!));
    view = createProgressView({ stream: context.stderr, quota: () => client.quota(), now: () => client.clock.now() });

    let summary: SyncSummary;
    try {
      summary = await syncLoads({
        client,
        upsert: (rows) => destination.upsert(rows),
        cursorStore: destination.cursorStore,
        signal: context.signal,
        onProgress: (update) => view.update(update),
        ...(pageSize === undefined ? {} : { pageSize }),
      });
    } catch (error) {
      view.finish();
      if (!context.signal.aborted) {
        // The sync's failure is the one to report; closing only keeps what is already whole.
        await destination.close().catch(() => {});
        throw error;
      }
      const cursor = await destination.cursorStore.load();
      await destination.close();
      const stopped = context.signal.reason === 'SIGTERM' ? 'terminated' : 'interrupted';
      throw new Interrupted(
        cursor === undefined
          ? `${stopped} before the first page was saved; the next run starts from the beginning`
          : `${stopped}; stopped cleanly at cursor ${cursor}, the next run resumes from there`,
        context.signal.reason,
      );
    }
    view.finish();
    await destination.close();
    const waits = [
      summary.quotaWaitMs > 0 ? `${formatDuration(summary.quotaWaitMs)} for the rate limit` : '',
      summary.retryWaitMs > 0 ? `${formatDuration(summary.retryWaitMs)} before retries` : '',
    ].filter(Boolean);
    const waited = waits.length > 0 ? ` (waited ${waits.join(' and ')})` : '';
    writeLine(
      context.stdout,
      `synced ${plural(summary.rows, 'row')} in ${plural(summary.requests, 'request')}${waited}; cursor ${summary.cursor ?? 'not set (no loads yet)'}`,
    );
  },
};
