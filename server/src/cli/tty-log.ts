// The request log as a person reads it in a terminal. `start` logs JSON lines (pino), which is what a log
// collector wants; on a terminal they would run together with the banner, so there each line is shown as
// time, level, message and who asked. Not pino-pretty: that is a dependency tree for a few lines of code.
import { Writable } from 'node:stream';

const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

interface LogEntry {
  level?: number;
  time?: number;
  msg?: string;
  requestId?: string;
  customer?: string;
  err?: { type?: string; message?: string };
}

/** One log line, readable: `12:04:05.123 INFO  GET /api/v1/loads 200 4ms  customer=demo request=…`. */
export function readableLogLine(line: string): string {
  let entry: LogEntry;
  try {
    entry = JSON.parse(line) as LogEntry;
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null) return line;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const level = (LEVELS[entry.level ?? 30] ?? String(entry.level)).padEnd(5);
  const error = entry.err ? ` (${entry.err.type ?? 'Error'}: ${entry.err.message ?? ''})` : '';
  const who = [entry.customer && `customer=${entry.customer}`, entry.requestId && `request=${entry.requestId}`].filter(Boolean).join(' ');
  return `${time} ${level} ${entry.msg ?? ''}${error}${who ? `  ${who}` : ''}`;
}

/** A stream for the logger that writes each JSON line it gets to `out` as a readable line. */
export function readableLog(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') out.write(`${readableLogLine(line)}\n`);
      done();
    },
  });
}
