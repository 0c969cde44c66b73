// `loadfeed sync`: keeps a copy of your loads (in any destination of ../destinations.ts) in
// step with the API through the SDK's syncLoads, showing progress; Ctrl-C stops between writes and keeps
// the cursor; the rate limit stops it with the cursor saved (exit 3); --json prints what the run did.
import { writeLine } from '@loadfeed/spec/cli';
import type { CopyDestination } from '../destination.js';
import { RateLimitError } from '../errors.js';
import { syncLoads, type SyncProgress, type SyncSummary } from '../sync.js';
import {
  CONNECTION_HELP,
  EXIT_CODE_HELP,
  EXIT_CODES,
  Interrupted,
  StoppedByRateLimit,
  type CliContext,
  type Command,
} from './command.js';
import { COPY_HELP, COPY_TITLES, COPY_USAGE, clientWithProgress, openCopy, parseCopyCommandLine } from './copy-flags.js';
import { describeFailure } from './failure.js';
import { formatDuration, plural } from './progress.js';
import { TIMEOUT_HELP } from './timeout-flag.js';

const NAME = 'sync';

/** Why a run ended, as `--json` says it. */
export type StopReason = 'end-of-feed' | 'rate-limit' | 'interrupted' | 'failed';

/** What `loadfeed sync --json` prints on stdout, whatever ended the run. */
export interface SyncReport {
  stopped: StopReason;
  exitCode: number;
  /** Rows written to the copy by this run. */
  rows: number;
  /** Loads of the copy the feed no longer serves, marked removed (or deleted, with --delete-removed) by this run. */
  removed: number;
  /** Loads found absent that this run could not yet make sure of: the next run judges them again. */
  removalsPending: number;
  /** Rows the walk missed (served behind pages already read) that the comparison of counts found and wrote. */
  recovered: number;
  /** HTTP requests sent, retries included. */
  requests: number;
  /** The cursor the copy holds now. */
  cursor: string | null;
  seconds: number;
  /** The page size the deployment served. */
  pageSize: number | null;
  quotaWaitSeconds: number;
  retryWaitSeconds: number;
  /** The one line that says why, when the run did not reach the end of the feed. */
  message?: string;
}

export const syncCommand: Command = {
  name: NAME,
  summary: `Copy your loads into ${COPY_TITLES}, then keep the copy up to date`,
  help: `Usage: loadfeed sync ${COPY_USAGE} [options]

Fetches every load changed since the last run and upserts it by loadNumber, each page's rows and the
cursor after them together. The first run copies everything; each later run reads from the saved cursor
(minus a 5-minute overlap), so run it on a schedule. Ctrl-C (or SIGTERM) stops cleanly: what is written
stays, and the next run resumes from the cursor. \`loadfeed verify\` checks the copy.

Copy (one of):
${COPY_HELP}

Options:
  --page-size <n>      Rows per request (default: the largest page the deployment serves, up to the
                       contract's 1000)
  --delete-removed     Delete the loads the feed no longer serves (deleted, moved to another customer,
                       pickup moved out of the window) instead of marking them removed
  --json               Print a JSON summary on stdout when the run ends, however it ends:
                       {stopped, exitCode, rows, removed, requests, cursor, seconds, pageSize, ...}
${TIMEOUT_HELP}
${CONNECTION_HELP}

${EXIT_CODE_HELP}`,

  async run(args, context) {
    const commandLine = parseCopyCommandLine(NAME, this.help, args, context);
    if (!commandLine) return;
    const { values, pageSize } = commandLine;
    const startedAt = Date.now();

    const { client, startProgress } = clientWithProgress(commandLine, context);
    const destination = await openCopy(values, context, true);
    const view = startProgress();
    let latest: SyncProgress | undefined;

    const report = (stopped: StopReason, exitCode: number, cursor: string | undefined, summary?: SyncSummary, message?: string): void => {
      if (!values.json) return;
      const stats = client.stats();
      const result: SyncReport = {
        stopped,
        exitCode,
        rows: summary?.rows ?? latest?.rows ?? 0,
        removed: summary?.removed ?? 0,
        removalsPending: summary?.removalsPending ?? 0,
        recovered: summary?.recovered ?? 0,
        requests: stats.requests,
        cursor: cursor ?? null,
        seconds: Math.round((Date.now() - startedAt) / 100) / 10,
        pageSize: summary?.pageSize ?? null,
        quotaWaitSeconds: Math.round(stats.quotaWaitMs / 1000),
        retryWaitSeconds: Math.round(stats.retryWaitMs / 1000),
        ...(message === undefined ? {} : { message }),
      };
      writeLine(context.stdout, JSON.stringify(result));
    };

    let summary: SyncSummary;
    try {
      summary = await syncLoads({
        client,
        destination,
        signal: context.signal,
        deleteRemoved: values['delete-removed'] === true,
        onProgress: (update) => {
          latest = update;
          view.update(update);
        },
        onPageSizeRefused: ({ requested, fallback, error }) => {
          writeLine(context.stderr, `loadfeed: the deployment refused pageSize=${requested} (${error.message}); asking for ${fallback} a page instead`);
        },
        ...(pageSize === undefined ? {} : { pageSize }),
      });
    } catch (error) {
      view.finish();
      throw await stoppedEarly(error, destination, context, report);
    }
    view.finish();
    await destination.close();
    report('end-of-feed', EXIT_CODES.ok, summary.cursor, summary);
    if (summary.recovered > 0) {
      writeLine(
        context.stderr,
        `loadfeed: the deployment served ${plural(summary.recovered, 'row')} stamped behind pages already read (its feed was not settled as it said, or a writer outlasted the overlap); the counts found ${summary.recovered === 1 ? 'it' : 'them'} and the copy holds ${summary.recovered === 1 ? 'it' : 'them'}`,
      );
    }
    if (values.json) return;
    const waits = [
      summary.quotaWaitMs > 0 ? `${formatDuration(summary.quotaWaitMs)} for the rate limit` : '',
      summary.retryWaitMs > 0 ? `${formatDuration(summary.retryWaitMs)} before retries` : '',
    ].filter(Boolean);
    const waited = waits.length > 0 ? ` (waited ${waits.join(' and ')})` : '';
    writeLine(
      context.stdout,
      `synced ${plural(summary.rows, 'row')}${summary.removed > 0 ? `, ${plural(summary.removed, 'load')} ${values['delete-removed'] ? 'deleted' : 'marked removed'}` : ''} in ${plural(summary.requests, 'request')}${waited}; cursor ${summary.cursor ?? 'not set (no loads yet)'}`,
    );
  },
};

type Report = (stopped: StopReason, exitCode: number, cursor: string | undefined, summary?: SyncSummary, message?: string) => void;

/** What a run that did not reach the end of the feed leaves behind, and the error that says so. */
async function stoppedEarly(error: unknown, destination: CopyDestination, context: CliContext, report: Report): Promise<unknown> {
  const interrupted = context.signal.aborted;
  if (!interrupted && !(error instanceof RateLimitError)) {
    // The sync's failure is the one to report; closing only keeps what is already whole.
    const cursor = await Promise.resolve(destination.loadCursor()).catch(() => undefined);
    await destination.close().catch(() => {});
    const failure = describeFailure(error);
    report('failed', failure.exitCode, cursor, undefined, failure.message);
    return error;
  }
  const cursor = await destination.loadCursor();
  await destination.close();
  const resumes = cursor === undefined ? 'the next run starts from the beginning' : `stopped cleanly at cursor ${cursor}, the next run resumes from there`;
  let stop: Interrupted | StoppedByRateLimit;
  if (interrupted) {
    const stopped = context.signal.reason === 'SIGTERM' ? 'terminated' : 'interrupted';
    stop = new Interrupted(cursor === undefined ? `${stopped} before the first page was saved; ${resumes}` : `${stopped}; ${resumes}`, context.signal.reason);
  } else {
    const limited = error as RateLimitError;
    const lifts = limited.resumeAt === undefined ? '' : ` (it lifts at ${new Date(limited.resumeAt).toISOString()})`;
    stop = new StoppedByRateLimit(`stopped by the rate limit${lifts}; ${resumes}`);
  }
  report(interrupted ? 'interrupted' : 'rate-limit', stop.exitCode, cursor, undefined, stop.message);
  return stop;
}
