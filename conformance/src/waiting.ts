// A wait for the rate limit says so: on a key of 10 a minute the kit waits up to a minute at a time,
// several times a run, and a run that prints nothing for that long looks hung. While it waits it writes
// a line when the wait begins and at least every NOTICE_EVERY_MS after, with the seconds left and which
// request of the plan waits. The sleep and the line's destination are arguments: tests wait no minute.
/** The longest a wait goes without a line. */
export const NOTICE_EVERY_MS = 10_000;
/** Waits shorter than this (the margin after a reset) go unannounced. */
const ANNOUNCED_FROM_MS = 1_000;

export interface Waiting {
  sleep: (ms: number) => Promise<unknown>;
  /** Writes one line for a person watching the run. */
  say: (line: string) => void;
}

export const REAL_WAITING: Waiting = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  say: (line) => process.stderr.write(`loadfeed-conformance: ${line}\n`),
};

/** Which request waits: the n-th sent, of the plan's total when the run has one. */
export interface WaitingRequest {
  number: number;
  planned?: number | undefined;
}

/** Waits `ms` for the rate limit, saying so at the start and at least every NOTICE_EVERY_MS. */
export async function waitForRateLimit(ms: number, request: WaitingRequest, { sleep, say }: Waiting = REAL_WAITING): Promise<void> {
  if (ms <= 0) return;
  if (ms < ANNOUNCED_FROM_MS) {
    await sleep(ms);
    return;
  }
  const which = `request ${request.number}${request.planned !== undefined ? ` of ${Math.max(request.planned, request.number)}` : ''}`;
  for (let left = ms; left > 0; left -= NOTICE_EVERY_MS) {
    say(`waiting ${Math.ceil(left / 1000)} s for the rate limit: ${which}`);
    await sleep(Math.min(left, NOTICE_EVERY_MS));
  }
}
