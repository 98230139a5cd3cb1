import { factsOf, type Fact, type FactKind, type Span } from './facts.js';

/**
 * Contradictions between the claim and the documents, and between the
 * documents themselves, each citing the span on both sides. Pure.
 *
 * Claim versus documents: a fact the claim states that no document states,
 * while the documents do state that kind of fact (an amount the documents
 * state in another currency is a currency contradiction). Document versus
 * document: two documents that each state a kind of fact and share no value
 * of it (an invoice and the mail that sent it naming different IBANs).
 */

export interface SourcedFact extends Fact {
  source: string;
}

export interface Contradiction {
  kind: FactKind;
  between: 'claimVsDocument' | 'documentVsDocument';
  detail: string;
  first: { source: string; value: string; span: Span };
  second: { source: string; value: string; span: Span };
}

export interface SourceText {
  source: string;
  text: string;
}

const side = (f: SourcedFact) => ({ source: f.source, value: f.value, span: f.span });
const KIND_WORDS: Record<FactKind, string> = {
  amount: 'amount',
  currency: 'currency',
  date: 'date',
  name: 'name',
  payee: 'payee',
  bankDetails: 'bank details',
  domain: 'domain',
  paymentMethod: 'payment method',
};

function contradiction(
  kind: FactKind,
  between: Contradiction['between'],
  a: SourcedFact,
  b: SourcedFact,
): Contradiction {
  return {
    kind,
    between,
    detail: `${a.source} states ${KIND_WORDS[kind]} "${a.value}", ${b.source} states "${b.value}"`,
    first: side(a),
    second: side(b),
  };
}

/** Facts of each source, read once. */
export function sourceFacts(sources: SourceText[]): SourcedFact[] {
  return sources.flatMap(({ source, text }) => factsOf(text).map((f) => ({ ...f, source })));
}

function claimVsDocuments(claim: SourcedFact[], documents: SourcedFact[]): Contradiction[] {
  const out: Contradiction[] = [];
  for (const fact of claim) {
    const sameKind = documents.filter((d) => d.kind === fact.kind);
    if (sameKind.length === 0 || sameKind.some((d) => d.value === fact.value)) continue;
    if (fact.kind === 'amount') {
      const sameNumber = sameKind.find((d) => d.amount!.value === fact.amount!.value);
      if (sameNumber) out.push(contradiction('currency', 'claimVsDocument', fact, sameNumber));
      else
        out.push(
          contradiction(
            'amount',
            'claimVsDocument',
            fact,
            sameKind.find((d) => d.amount!.currency === fact.amount!.currency) ?? sameKind[0]!,
          ),
        );
      continue;
    }
    out.push(contradiction(fact.kind, 'claimVsDocument', fact, sameKind[0]!));
  }
  return out;
}

function documentsVsEachOther(documents: SourcedFact[]): Contradiction[] {
  const out: Contradiction[] = [];
  const sources = [...new Set(documents.map((d) => d.source))];
  for (let i = 0; i < sources.length; i++) {
    for (let j = i + 1; j < sources.length; j++) {
      const a = documents.filter((d) => d.source === sources[i]);
      const b = documents.filter((d) => d.source === sources[j]);
      for (const kind of new Set(a.map((f) => f.kind))) {
        const ak = a.filter((f) => f.kind === kind);
        const bk = b.filter((f) => f.kind === kind);
        if (bk.length === 0 || ak.some((x) => bk.some((y) => y.value === x.value))) continue;
        if (kind === 'amount') {
          const currencyOnly = ak.flatMap((x) =>
            bk.filter((y) => y.amount!.value === x.amount!.value).map((y) => [x, y] as const),
          )[0];
          out.push(
            currencyOnly
              ? contradiction('currency', 'documentVsDocument', ...currencyOnly)
              : contradiction('amount', 'documentVsDocument', ak[0]!, bk[0]!),
          );
          continue;
        }
        out.push(contradiction(kind, 'documentVsDocument', ak[0]!, bk[0]!));
      }
    }
  }
  return out;
}

/** Every contradiction among the sources; the source named `claim` is the claim, the rest are documents. */
export function findContradictions(facts: SourcedFact[]): Contradiction[] {
  const claim = facts.filter((f) => f.source === 'claim');
  const documents = facts.filter((f) => f.source.startsWith('document['));
  return [...claimVsDocuments(claim, documents), ...documentsVsEachOther(documents)];
}
