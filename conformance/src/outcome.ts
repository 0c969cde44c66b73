// How a check ended, as the console, the summary and the kit's own tests read it from a Playwright result.
export type Outcome = 'pass' | 'fail' | 'skip' | 'warning';

export interface Annotation {
  type: string;
  description?: string;
}

export function outcomeOf(status: string, annotations: readonly Annotation[]): Outcome {
  if (status === 'skipped') return 'skip';
  if (status !== 'passed') return 'fail';
  return annotations.some((annotation) => annotation.type === 'warning') ? 'warning' : 'pass';
}

/** The first line of the reason a check was skipped or warned, for one-line console output. */
export function reasonOf(annotations: readonly Annotation[], type: 'skip' | 'warning'): string | undefined {
  return annotations.find((annotation) => annotation.type === type)?.description?.split('\n')[0];
}

export function levelOf(annotations: readonly Annotation[]): 'required' | 'warning' {
  return annotations.some((annotation) => annotation.type === 'level' && annotation.description === 'warning') ? 'warning' : 'required';
}
