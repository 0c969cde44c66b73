// The targets of the benchmark (issue 3), as data, and the table that prints each measured ratio
// beside its target.

export interface Target {
  name: string;
  /** The measured value, a ratio or milliseconds. */
  value: number;
  unit: 'x' | 'ms';
  bound: number;
  /** Whether the value must be at least or at most the bound. */
  comparison: '>=' | '<=';
}

export function targetLines(targets: readonly Target[]): string[] {
  const width = Math.max(...targets.map((target) => target.name.length));
  return targets.map((target) => {
    const met = target.comparison === '>=' ? target.value >= target.bound : target.value <= target.bound;
    const shown = `${target.value.toFixed(target.unit === 'x' ? 2 : 3)}${target.unit === 'x' ? 'x' : ' ms'}`;
    return `  ${target.name.padEnd(width)}  ${shown.padStart(10)}   target ${target.comparison} ${target.bound}${target.unit === 'x' ? 'x' : ' ms'}   ${met ? 'met' : 'MISSED'}`;
  });
}

export function row(cells: readonly (string | number)[], widths: readonly number[]): string {
  return cells.map((cell, index) => (typeof cell === 'number' ? cell.toFixed(cell >= 100 ? 0 : 2).padStart(widths[index]!) : cell.padEnd(widths[index]!))).join('  ');
}
