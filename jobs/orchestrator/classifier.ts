/**
 * A multinomial naive Bayes text classifier over unigrams and bigrams with
 * Laplace smoothing. Small, deterministic, and trained in a few milliseconds
 * from the shipped examples; scores are normalised to probabilities. Each
 * label has the same prior (how many examples a domain ships says nothing of
 * how often it is asked for), and a token counts once per example, which
 * suits short requests better than raw counts.
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
  'so',
  'just',
  'some',
  'any',
  'its',
  'your',
  'their',
  'at',
  'what',
  'about',
  'how',
  'one',
  'there',
  'us',
]);

/**
 * Folds inflections onto one form (charges, charged, charging → charg) with
 * a few suffix rules; enough for routing requests, not a linguist's stemmer.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /[^a-z]/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(ss|us|is)$/.test(w)) return w;
  else if (/(ch|sh|x|z|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s')) w = w.slice(0, -1);
  if (/ing$/.test(w) && w.length > 5) w = w.slice(0, -3);
  else if (/ed$/.test(w) && w.length > 4) w = w.slice(0, -2);
  if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  if (/ly$/.test(w) && w.length > 5) w = w.slice(0, -2);
  return w.length > 3 && w.endsWith('e') ? w.slice(0, -1) : w;
}

/** Amounts, versions and other numbers become one token each, so "$1,500" and "$40" are the same evidence. */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’']/g, '')
    .replace(/[$€£]\s?\d[\d,.]*|\d[\d,.]*\s?(?:usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b/g, ' _money ')
    .replace(/\bv?\d+\.\d+(?:\.\d+)*\b/g, ' _version ')
    .replace(/\d+/g, ' _num ');
}

export function tokens(text: string): string[] {
  const words = normalise(text)
    .replace(/[^a-z0-9_\s-]/g, ' ')
    .split(/[\s-]+/)
    .filter((w) => w && !STOP.has(w));
  const stems = words.map(stem);
  // What a request starts with is usually what it asks for ("phone the cheapest roofer"): a feature of its own.
  const grams = stems.length > 0 ? [`^${stems[0]}`, ...stems] : [];
  for (let i = 0; i + 1 < stems.length; i++) grams.push(`${stems[i]}_${stems[i + 1]}`);
  return grams;
}

export interface Classifier {
  classify(text: string): Array<{ label: string; score: number }>;
  /** How many of the text's words the examples have (a lone known word is too little to route on). */
  known(text: string): number;
}

export function train(examples: Record<string, string[]>): Classifier {
  const labels = Object.keys(examples);
  const counts = new Map<string, Map<string, number>>();
  const totals = new Map<string, number>();
  const vocab = new Set<string>();
  for (const label of labels) {
    const c = new Map<string, number>();
    let total = 0;
    for (const text of examples[label]!) {
      for (const t of new Set(tokens(text))) {
        c.set(t, (c.get(t) ?? 0) + 1);
        vocab.add(t);
        total++;
      }
    }
    counts.set(label, c);
    totals.set(label, total);
  }
  return {
    known: (text) => new Set(tokens(text).filter((t) => /^[a-z]/.test(t) && !t.includes('_') && vocab.has(t))).size,
    classify(text) {
      const toks = [...new Set(tokens(text))].filter((t) => vocab.has(t));
      const logp = labels.map((label) => {
        const c = counts.get(label)!;
        const denom = totals.get(label)! + vocab.size;
        let lp = 0;
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
