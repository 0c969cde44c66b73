// `loadfeed verify`: is my copy complete? Walks the feed by the plain key walk, compares every field with
// the copy as of its cursor, and says how many rows are missing, differ, or sit in the copy unexplained;
// exit 0 when the copy is complete, 4 when it is not, so that cron or CI can run it nightly.
import { CliError, writeLine } from '@loadfeed/spec/cli';
import { verifyCopy, type VerifyReport } from '../verify.js';
import {
  CONNECTION_HELP,
  EXIT_CODE_HELP,
  EXIT_CODES,
  type Command,
} from './command.js';
import { COPY_HELP, COPY_USAGE, clientWithProgress, openCopy, parseCopyCommandLine } from './copy-flags.js';
import { TIMEOUT_HELP } from './timeout-flag.js';
import { plural } from './progress.js';

const NAME = 'verify';

/** The copy's verdict, as the last line says it and as the exit code carries it. */
class CopyDiffers extends CliError {
  override readonly exitCode = EXIT_CODES.copyDiffers;
  override name = 'CopyDiffers';
}

function describeReport(report: VerifyReport): string[] {
  const list = (loadNumbers: string[], total: number) => (total === 0 ? '' : `: ${loadNumbers.join(', ')}${total > loadNumbers.length ? ', …' : ''}`);
  const asOf = report.cursor === undefined ? 'a copy without a cursor (every served row compared)' : `the copy as of its cursor ${report.cursor}`;
  return [
    `compared ${plural(report.served, 'served row')} with ${asOf} in ${plural(report.requests, 'request')}`,
    `  equal:                                ${report.equal}`,
    `  missing from the copy:                ${report.missing}${list(report.samples.missing, report.missing)}`,
    `  different in the copy:                ${report.differing}${list(
      report.samples.differing.map(({ loadNumber, fields }) => `${loadNumber} (${fields.join(', ')})`),
      report.differing,
    )}`,
    `  at or after the cursor (next sync):   ${report.newer}${list(report.samples.newer, report.newer)}`,
    `  in the copy, aged out of the window:  ${report.agedOut}${list(report.samples.agedOut, report.agedOut)}`,
    `  in the copy, marked removed by sync:  ${report.removed}${list(report.samples.removed, report.removed)}`,
    `  in the copy, not served otherwise:    ${report.extra}${list(report.samples.extra, report.extra)}`,
    report.complete ? 'the copy is complete' : 'the copy is NOT complete',
  ];
}

export const verifyCommand: Command = {
  name: NAME,
  summary: 'Check that a copy holds every load the API serves, every field equal',
  help: `Usage: loadfeed verify ${COPY_USAGE} [options]

Walks the whole feed by the plain key walk (not the sync's walk, so a fault in one is caught by the
other) and compares every field of every row with the copy \`loadfeed sync\` keeps, as of the copy's
cursor. It counts the rows before the cursor's instant missing from the copy and the rows that differ
(date-times compare as instants, decimals by value). Rows at the cursor's instant or after it are the
next sync's, not faults. Rows in the copy the feed no longer serves are counted apart:
aged out of the 12-month window (by the copy's pickup date) or marked removed by a sync is normal; any
other is a fault. A row the feed serves that the copy holds marked removed differs (in removedAt). The
copy is only read.

Copy (one of):
${COPY_HELP}

Options:
  --page-size <n>      Rows per request (default: the largest page the deployment serves)
  --json               Print the report as JSON on stdout: {complete, cursor, served, equal, missing,
                       differing, newer, agedOut, removed, extra, samples, requests}
${TIMEOUT_HELP}
${CONNECTION_HELP}

${EXIT_CODE_HELP}`,

  async run(args, context) {
    const commandLine = parseCopyCommandLine(NAME, this.help, args, context);
    if (!commandLine) return;
    const { values, pageSize } = commandLine;

    const { client, startProgress } = clientWithProgress(commandLine, context);
    const copy = await openCopy(values, context, false);
    const view = startProgress();
    let report: VerifyReport;
    try {
      report = await verifyCopy({ client, copy, signal: context.signal, onProgress: (update) => view.update(update), ...(pageSize === undefined ? {} : { pageSize }) });
    } finally {
      view.finish();
      await copy.close();
    }
    if (values.json) writeLine(context.stdout, JSON.stringify(report));
    else writeLine(context.stdout, describeReport(report).join('\n'));
    if (!report.complete) throw new CopyDiffers(`the copy is not complete: ${report.missing} missing, ${report.differing} different, ${report.extra} unexplained`);
  },
};
