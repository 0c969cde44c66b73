// Runs once before the checks, in both ways of running the kit (the bin and plain `playwright test`):
// starts the run's ledger, checks the base URL with one or two requests for the OpenAPI document (no key,
// no quota: a wrong base URL stops the run before it spends a counted request), fetches the sample (the
// largest page) and reads X-RateLimit-Limit from it, then plans the run and prints what it will cost.
import { DEFAULT_RATE_LIMIT } from '@loadfeed/spec';
import { describeVerdict, probeBaseUrl } from '@loadfeed/spec/base-url';
import { request } from '@playwright/test';
import { describePlan, planRun, rateHeaderNonsense, saneRateHeaders } from './budget.js';
import { createSender, DeploymentUnreachable } from './client.js';
import { takeSample } from './dataset.js';
import { ExchangeLog } from './evidence.js';
import { exchangeLogPath, readOptions } from './options.js';

export default async function globalSetup(): Promise<void> {
  const options = readOptions();
  const log = ExchangeLog.start(exchangeLogPath(options.reportDir));
  const verdict = await probeBaseUrl(options.baseUrl);
  // A JSON API without the document (a deployment that lacks it) is tested: its document check fails.
  if (!verdict.ok && verdict.conclusive) {
    const reason = describeVerdict(verdict);
    log.setFatal(reason);
    throw new Error(reason);
  }
  const context = await request.newContext();
  try {
    const sender = createSender(context, options, log);
    let sample;
    try {
      sample = await takeSample(sender, 'primary');
    } catch (error) {
      if (error instanceof DeploymentUnreachable) log.setFatal(error.message);
      throw error;
    }
    const exchange = 'rows' in sample ? sample.exchange : sample;
    if (exchange.status === 401) {
      const reason = `the API key was refused: ${exchange.method} ${exchange.target} gave 401`;
      log.setFatal(reason);
      throw new Error(reason);
    }
    const headers = saneRateHeaders(exchange);
    const nonsense = rateHeaderNonsense(exchange);
    // SPEC §8's default when the deployment's rate headers are missing or make no sense.
    const limit = headers?.limit ?? DEFAULT_RATE_LIMIT;
    const totalCount = 'rows' in sample ? sample.totalCount : 0;
    const plan = planRun({
      limit,
      remaining: headers?.remaining ?? limit,
      totalCount,
      exhaust: options.exhaust,
      secondKey: options.keys.second !== undefined,
      revokedKey: options.keys.revoked !== undefined,
    });
    log.setPlan(plan);
    console.log(
      `loadfeed-conformance: ${options.baseUrl} — the key sees ${totalCount} rows, limit ${headers ? `${limit}/min` : `unknown: the rate headers are ${nonsense} (planning with ${limit}/min)`}; ` +
        `plan: ${describePlan(plan)}`,
    );
  } finally {
    await context.dispose();
  }
}
