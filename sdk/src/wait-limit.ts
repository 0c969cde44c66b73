// How a wait reads in an error: the server's ask in units a person can judge ("3,168 years"), because the
// point of the message is to show that the ask makes no sense.
const UNITS: readonly [string, number][] = [
  ['year', 365.25 * 86_400_000],
  ['day', 86_400_000],
  ['h', 3_600_000],
  ['min', 60_000],
  ['s', 1_000],
];

export function describeWait(ms: number): string {
  for (const [unit, size] of UNITS) {
    if (ms >= size) {
      const count = Math.floor(ms / size);
      const shown = count.toLocaleString('en-US');
      return unit.length > 3 ? `${shown} ${unit}${count === 1 ? '' : 's'}` : `${shown} ${unit}`;
    }
  }
  return `${Math.round(ms)} ms`;
}
