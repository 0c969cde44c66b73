// The rolling window per key (RATE_WINDOW_MS, SPEC §8), with the headers DECISIONS.md describes: Remaining counts this
// request, Reset is when the oldest counted request leaves (rounded up to a second), Retry-After on a
// refusal is whole seconds, at least 1, until a request is admitted. A refused request is not counted.
import { RATE_WINDOW_MS, RESPONSE_HEADERS } from '@loadfeed/spec';

export interface RateDecision {
  admitted: boolean;
  headers: Record<string, string>;
}

export function createRateWindow() {
  const sent = new Map<string, number[]>();

  return {
    count(key: string, limit: number, now: number): RateDecision {
      const times = (sent.get(key) ?? []).filter((time) => time > now - RATE_WINDOW_MS);
      sent.set(key, times);
      const admitted = times.length < limit;
      if (admitted) times.push(now);
      const oldest = times[0];
      const headers: Record<string, string> = {
        [RESPONSE_HEADERS.rateLimitLimit]: String(limit),
        [RESPONSE_HEADERS.rateLimitRemaining]: String(Math.max(0, limit - times.length)),
        [RESPONSE_HEADERS.rateLimitReset]: String(Math.ceil((oldest === undefined ? now : oldest + RATE_WINDOW_MS) / 1000)),
      };
      if (!admitted) {
        const admitsAt = times[times.length - limit]! + RATE_WINDOW_MS;
        headers[RESPONSE_HEADERS.retryAfter] = String(Math.max(1, Math.ceil((admitsAt - now) / 1000)));
      }
      return { admitted, headers };
    },
  };
}
