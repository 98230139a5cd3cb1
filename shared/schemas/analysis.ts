import { StringEnum } from './common.js';

/**
 * The vocabulary the deterministic analyzers (migration validation, secret
 * scanning) answer in: each finding has a severity, and the answer's verdict
 * is the worst of them. `error` makes the verdict `block`, `warning` makes it
 * `warn`, a `note` is advice that never changes the verdict.
 */
export const VERDICTS = ['pass', 'warn', 'block'] as const;
export type Verdict = (typeof VERDICTS)[number];
export const VerdictSchema = StringEnum(VERDICTS, {
  description:
    '`block`: do not apply or ship as is; `warn`: risky but bounded, read the findings; `pass`: nothing found',
});

export const SEVERITIES = ['error', 'warning', 'note'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const SeveritySchema = StringEnum(SEVERITIES, {
  description: '`error` blocks, `warning` warns, `note` is advice and leaves the verdict alone',
});

/** The verdict a set of findings adds up to. */
export function verdictOf(severities: Iterable<Severity>): Verdict {
  let verdict: Verdict = 'pass';
  for (const s of severities) {
    if (s === 'error') return 'block';
    if (s === 'warning') verdict = 'warn';
  }
  return verdict;
}
