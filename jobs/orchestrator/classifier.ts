/**
 * A multinomial naive Bayes text classifier over unigrams and bigrams with
 * Laplace smoothing. Small, deterministic, and trained in a few milliseconds
 * from the shipped examples; scores are normalised to probabilities.
 */
const STOP = new Set([
  'the',
  'a',
  'an',
  'to',
  'for',
  'of',
  'me',
  'my',
  'i',
  'is',
  'it',
  'this',
  'that',
  'and',
  'or',
  'in',
  'on',
  'with',
  'please',
  'can',
  'you',
  'our',
  'we',
  'be',
  'are',
  'do',
  'does',
]);

export function tokens(text: string): string[] {
  const words = text
    .toLowerCase()
    .replace(/[^a-z0-9$€£\s-]/g, ' ')
    .split(/\s+/)
    .filter((w) => w && !STOP.has(w));
  const stems = words.map((w) => w.replace(/(ing|ed|es|s)$/, '') || w);
  const grams = [...stems];
  for (let i = 0; i + 1 < stems.length; i++) grams.push(`${stems[i]}_${stems[i + 1]}`);
  return grams;
}

export interface Classifier {
  classify(text: string): Array<{ label: string; score: number }>;
}

export function train(examples: Record<string, string[]>): Classifier {
  const labels = Object.keys(examples);
  const counts = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  const vocab = new Set<string>();
  let docs = 0;
  for (const label of labels) {
    const c = new Map<string, number>();
    let total = 0;
    for (const text of examples[label]!) {
      docs++;
      for (const t of tokens(text)) {
        c.set(t, (c.get(t) ?? 0) + 1);
        vocab.add(t);
        total++;
      }
    }
    counts.set(label, c);
    totals.set(label, total);
  }
  const priors = new Map(labels.map((l) => [l, Math.log(examples[l]!.length / docs)]));
  return {
    classify(text) {
      const toks = tokens(text).filter((t) => vocab.has(t));
      const logp = labels.map((label) => {
        const c = counts.get(label)!;
        const denom = totals.get(label)! + vocab.size;
        let lp = priors.get(label)!;
        for (const t of toks) lp += Math.log(((c.get(t) ?? 0) + 1) / denom);
        return lp;
      });
      const max = Math.max(...logp);
      const exp = logp.map((v) => Math.exp(v - max));
      const sum = exp.reduce((a, b) => a + b, 0);
      // With no known token every label is equally likely: report that honestly as a flat distribution.
      return labels
        .map((label, i) => ({ label, score: toks.length === 0 ? 1 / labels.length : exp[i]! / sum }))
        .sort((a, b) => b.score - a.score);
    },
  };
}
