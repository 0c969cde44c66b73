// The checks' toolkit: Playwright fixtures that give each check the paced, caching sender, the sample and
// the walk, plus `required` / `warning` that declare a check titled as its requirement and naming its source.
import { test as base, type TestInfo } from '@playwright/test';
import type { LoadPage } from '@loadfeed/spec';
import { createSender, type Query, type RawRequest, type Sender, type SendOptions } from './client.js';
import { isPage, takeSample, takeTail, type Sample, type Tail } from './dataset.js';
import { chooseScope, walkScope, type Walk } from './walk.js';
import { describeExchange, ExchangeLog, type Exchange } from './evidence.js';
import { RULES } from './coverage.js';
import { exchangeLogPath, readOptions, type KeyLabel, type KitOptions } from './options.js';
import { MISSING_ANNOTATION, type Missing } from './completeness.js';
import { levelOf } from './outcome.js';

export type Level = 'required' | 'warning';

export interface Evidence {
  expected: string;
  actual: string;
  exchanges?: readonly (Exchange | undefined)[];
}

export class Kit {
  constructor(
    readonly options: KitOptions,
    private readonly sender: Sender,
    private readonly log: ExchangeLog,
  ) {}

  list(key: KeyLabel, query?: Query | string, options?: SendOptions): Promise<Exchange> {
    return this.sender.list(key, query, options);
  }

  send(request: RawRequest, options?: SendOptions): Promise<Exchange> {
    return this.sender.send(request, options);
  }

  /** Every exchange of the run so far, this check's included. */
  get exchanges(): readonly Exchange[] {
    return this.log.exchanges;
  }

  /** The largest page the key gets: every row it can see when they fit in one page. Fails if it is no page. */
  async sample(key: KeyLabel = 'primary'): Promise<Sample> {
    const sample = await takeSample(this.sender, key);
    if ('rows' in sample) return sample;
    return fail('the largest page of loads is a 200 page envelope (SPEC §4)', {
      expected: '200 with a page envelope',
      actual: `${sample.status}`,
      exchanges: [sample],
    });
  }

  /** The newest rows: the last page (the sample itself when it holds every row). */
  async tail(): Promise<Tail> {
    return takeTail(this.sender, await this.sample());
  }

  /** The walk at a small page size over a scope of a few rows; skips the check when no such scope is found. */
  async walk(): Promise<Walk> {
    const sample = await this.sample();
    const scope = await chooseScope(this.sender, sample, await this.tail());
    if ('missing' in scope) need(false, scope.reason, scope.missing);
    const walk = await walkScope(this.sender, scope);
    need(walk.complete, `the walk over ${scope.how} did not reach its last page (page size ${walk.pageSize}, ${walk.pages.length} pages)`, 'budget');
    return walk;
  }
}

/**
 * Skips the running check with the reason when the data or options it needs are missing; never a pass.
 * What was missing decides whether the run is left incomplete (src/completeness.ts).
 */
export function need(condition: boolean, reason: string, missing: Missing): asserts condition {
  if (condition) return;
  test.info().annotations.push({ type: MISSING_ANNOTATION, description: missing });
  test.info().skip(true, reason);
}

/** The source a check names and the SPEC rule it verifies (src/coverage.ts), for a failure to point at. */
function sourceLine(testInfo: TestInfo): string | undefined {
  const source = testInfo.annotations.find((annotation) => annotation.type === 'source')?.description;
  const rule = RULES.find((candidate) => candidate.checks?.test(testInfo.title));
  return source && rule ? `${source}: ${rule.rule}` : source;
}

/**
 * A failure as every report shows it: what broke, what was expected, what came, the source and its rule,
 * then each exchange it rests on (key masked) with a curl command that replays it, the key read from the
 * environment variable that holds it.
 */
function failureMessage(statement: string, evidence: Evidence, testInfo: TestInfo, bodyLength?: number): string {
  const exchanges = (evidence.exchanges ?? []).filter((exchange): exchange is Exchange => exchange !== undefined);
  const source = sourceLine(testInfo);
  const { baseUrl } = readOptions();
  return [
    statement,
    `  expected: ${evidence.expected}`,
    `  actual:   ${evidence.actual}`,
    ...(source ? [`  source:   ${source}`] : []),
    ...exchanges.slice(0, 3).map((exchange) => describeExchange(exchange, bodyLength, baseUrl)),
    ...(exchanges.length > 3 ? [`  (and ${exchanges.length - 3} more exchanges, attached to the report)`] : []),
  ].join('\n');
}

/** Fails the running check with what was expected, what came, the exchanges it rests on and the source it checks. */
export function fail(statement: string, evidence: Evidence): never {
  throw new Error(failureMessage(statement, evidence, test.info()));
}

export function verify(condition: boolean, statement: string, evidence: Evidence): asserts condition {
  if (!condition) fail(statement, evidence);
}

/** The page envelope of a response that must be a 200; anything else fails the check. */
export function pageOf(exchange: Exchange): LoadPage {
  verify(exchange.status === 200 && isPage(exchange.body), `${exchange.method} ${exchange.target} returns a page of loads`, {
    expected: '200 with a page envelope',
    actual: `${exchange.status}`,
    exchanges: [exchange],
  });
  return exchange.body;
}

/** The first violation in the failure's own line, so that the console says what broke, not only that something did. */
function contractFailure(broken: readonly Exchange[], testInfo: TestInfo): string {
  const violations = broken.flatMap((exchange) => exchange.violations.map((violation) => `#${exchange.id} ${violation.path}: ${violation.message}`));
  const [first] = broken;
  return failureMessage(
    `${first!.method} ${first!.target} got a response that breaks the contract: ${violations[0]}`,
    {
      expected: "responses as the contract describes them (SPEC §2, §4, §7, §8; @loadfeed/spec's checkResponse)",
      actual: `${violations.length} violation${violations.length === 1 ? '' : 's'}: ${violations.slice(0, 6).join('; ')}${violations.length > 6 ? ' …' : ''}`,
      exchanges: broken,
    },
    testInfo,
    200,
  );
}

export const test = base.extend<{ kit: Kit }, { kitOptions: KitOptions; exchangeLog: ExchangeLog }>({
  kitOptions: [
    async ({}, use) => {
      await use(readOptions());
    },
    { scope: 'worker' },
  ],
  exchangeLog: [
    async ({ kitOptions }, use) => {
      await use(ExchangeLog.open(exchangeLogPath(kitOptions.reportDir)));
    },
    { scope: 'worker' },
  ],
  kit: async ({ request, kitOptions, exchangeLog }, use, testInfo) => {
    const read = new Map<number, Exchange>();
    const sender = createSender(request, kitOptions, exchangeLog, (exchange) => read.set(exchange.id, exchange));
    await use(new Kit(kitOptions, sender, exchangeLog));
    for (const exchange of read.values()) {
      const { body: _body, ...evidence } = exchange;
      await testInfo.attach(`exchange #${exchange.id}: ${exchange.method} ${exchange.target} -> ${exchange.status}`, {
        body: JSON.stringify(evidence, null, 2),
        contentType: 'application/json',
      });
    }
    // Every response the run receives is validated: a check fails on a broken response it read.
    const broken = [...read.values()].filter((exchange) => exchange.violations.length > 0);
    if (broken.length === 0 || testInfo.status === 'skipped') return;
    if (levelOf(testInfo.annotations) === 'warning') testInfo.annotations.push({ type: 'warning', description: contractFailure(broken, testInfo) });
    else throw new Error(contractFailure(broken, testInfo));
  },
});

type CheckBody = (fixtures: { kit: Kit }, testInfo: TestInfo) => Promise<void>;

/**
 * Playwright locates a test at the caller of `test()`, which would be this file for every check. While it
 * declares the check, its stack capture starts one frame further out, so each check is located at the
 * line of its spec file that declares it (in the HTML, JUnit and JSON reports alike).
 *
 * Why a global is patched, for the length of one synchronous call: Playwright (1.65) takes the location
 * from `Error.captureStackTrace` with a stack two frames deep, the caller of `test()` being the second,
 * and has no option to give a location instead (TestCase's `location` is set from that capture alone).
 * Any helper between a spec file and `test()` is that caller. The one way without the patch is for every
 * spec file to call `test()` itself, with the title, tags, annotations and the warning's wrapper that
 * `defineCheck` makes repeated at each of the 57 checks, which is the duplication this helper exists to
 * prevent. The patch is restored in `finally`, runs while the spec file is loaded (never while a check
 * runs), and touches no stack of anything else: nothing else runs during the synchronous `declare()`.
 */
function atDeclaringLine(declare: () => void): void {
  const capture = Error.captureStackTrace;
  Error.captureStackTrace = (target: object) => capture(target, defineCheck);
  try {
    declare();
  } finally {
    Error.captureStackTrace = capture;
  }
}

function defineCheck(level: Level, title: string, source: string, body: CheckBody): void {
  atDeclaringLine(() =>
    test(
      `${title} (${source})`,
      {
        tag: level === 'required' ? '@required' : '@warning',
        annotation: [
          { type: 'level', description: level },
          { type: 'source', description: source },
        ],
      },
      async ({ kit }, testInfo) => {
        if (level === 'required') return body({ kit }, testInfo);
        try {
          await body({ kit }, testInfo);
        } catch (error) {
          if (testInfo.expectedStatus === 'skipped') throw error;
          // A warning never fails the run: it is reported beside the passes.
          testInfo.annotations.push({ type: 'warning', description: error instanceof Error ? error.message : String(error) });
        }
      },
    ),
  );
}

/** A check of a rule SPEC.md states; its failure fails the run. `section` like '§4'. */
export function required(title: string, section: string, body: CheckBody): void {
  defineCheck('required', title, `SPEC ${section}`, body);
}

/** A check of what only DECISIONS.md or good practice asks; its failure is reported as a warning. */
export function warning(title: string, source: string, body: CheckBody): void {
  defineCheck('warning', title, source, body);
}
