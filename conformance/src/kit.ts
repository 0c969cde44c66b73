// The checks' toolkit: Playwright fixtures that give each check the paced, caching sender, the sample and
// the walk, plus `required` / `warning` that declare a check titled as its requirement and naming its source.
import { test as base, type TestInfo } from '@playwright/test';
import type { LoadPage } from '@loadfeed/spec';
import { createSender, type Query, type RawRequest, type Sender, type SendOptions } from './client.js';
import { isPage, takeSample, walkPages, type Sample, type Walk } from './dataset.js';
import { describeExchange, ExchangeLog, type Exchange } from './evidence.js';
import { exchangeLogPath, readOptions, type KeyLabel, type KitOptions } from './options.js';
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

  /** The walk at a small page size over a scope of at least 3 rows; skips the check when there are fewer. */
  async walk(): Promise<Walk> {
    const sample = await this.sample();
    need(sample.totalCount >= 3, `a walk needs at least 3 visible rows; the key sees ${sample.totalCount}`);
    const walk = await walkPages(this.sender, sample);
    need(walk.complete, `the walk did not reach its last page within the budget (page size ${walk.pageSize}, ${walk.pages.length} pages)`);
    return walk;
  }
}

/** Skips the running check with the reason when the data or options it needs are missing; never a pass. */
export function need(condition: boolean, reason: string): asserts condition {
  if (!condition) test.info().skip(true, reason);
}

/** Fails the running check with what was expected, what came, the exchanges it rests on and the source it checks. */
export function fail(statement: string, evidence: Evidence): never {
  const exchanges = (evidence.exchanges ?? []).filter((exchange): exchange is Exchange => exchange !== undefined);
  const source = test.info().annotations.find((annotation) => annotation.type === 'source')?.description;
  throw new Error(
    [
      statement,
      `  expected: ${evidence.expected}`,
      `  actual:   ${evidence.actual}`,
      ...(source ? [`  source:   ${source}`] : []),
      ...exchanges.slice(0, 3).map((exchange) => describeExchange(exchange)),
      ...(exchanges.length > 3 ? [`  (and ${exchanges.length - 3} more exchanges, attached to the report)`] : []),
    ].join('\n'),
  );
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

function contractFailure(broken: readonly Exchange[]): string {
  return [
    `a response this check read breaks the contract (SPEC §2, §4, §7, §8; validated with @loadfeed/spec's checkResponse)`,
    ...broken.slice(0, 3).flatMap((exchange) => [
      describeExchange(exchange, 200),
      ...exchange.violations.slice(0, 6).map((violation) => `    violation: ${violation.path}: ${violation.message}`),
    ]),
  ].join('\n');
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
    if (levelOf(testInfo.annotations) === 'warning') testInfo.annotations.push({ type: 'warning', description: contractFailure(broken) });
    else throw new Error(contractFailure(broken));
  },
});

type CheckBody = (fixtures: { kit: Kit }, testInfo: TestInfo) => Promise<void>;

function defineCheck(level: Level, title: string, source: string, body: CheckBody): void {
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
