import assert from 'node:assert/strict';
import { analyseClaim } from '../../jobs/resolve/triage.js';
import { SCAM_CORPUS } from '../fixtures/scam-corpus.js';

const high = (severity: string) => severity === 'high' || severity === 'critical';
/** The rule family each FTC/IC3 pattern must be caught by (besides whatever else fires). */
const FAMILY: Record<string, RegExp> = {
  giftCard: /^pay\.giftCard$/,
  rental: /^rental\./,
  romance: /^romance\./,
  techSupport: /^techSupport\./,
  governmentImpersonation: /^(?:government\.|impersonation\.agency$)/,
  job: /^(?:job\.|pay\.fakeCheck$)/,
  overpayment: /^(?:fee\.overpayment|pay\.fakeCheck)$/,
};

describe('scam triage: the FTC and IC3 patterns are high on their own', () => {
  it('a landlord who wants the deposit in gift cards before a viewing: likelyScam, high, both signs cited', () => {
    const claim =
      'My landlord wants the deposit of 1,500 EUR paid in Amazon gift cards before I can see the flat. Is this legit?';
    const t = analyseClaim({ claim });
    assert.equal(t.risk.label, 'likelyScam');
    assert.ok(high(t.risk.severity), t.risk.severity);
    const rules = t.evidenceMap.map((e) => e.ruleId);
    assert.ok(rules.includes('pay.giftCard') && rules.includes('rental.payBeforeViewing'), rules.join());
    for (const e of t.evidenceMap) assert.equal(claim.slice(e.span.start, e.span.end), e.span.text);
    assert.equal(t.recommendedRestraint, 'doNotEngage');
    assert.ok(t.confidence >= 0.5, `confidence ${t.confidence}`);
    assert.ok(t.taxonomy.ic3Categories.includes('realEstate'));
  });

  it('each sign alone is high: a gift-card demand, a deposit before viewing, keys by post', () => {
    for (const [claim, rule] of [
      ['The seller of the puppy will only take payment in Apple gift cards.', 'pay.giftCard'],
      ['The agent wants 800 GBP transferred before we can arrange a viewing of the room.', 'rental.payBeforeViewing'],
      ['For the flat in Lisbon the owner will courier the keys to me after I pay.', 'rental.keysByMail'],
    ] as const) {
      const t = analyseClaim({ claim });
      assert.ok(high(t.risk.severity), `${claim}: ${t.risk.severity}`);
      assert.ok(
        t.evidenceMap.some((e) => e.ruleId === rule),
        `${claim}: ${t.evidenceMap.map((e) => e.ruleId).join()}`,
      );
    }
  });

  const patterns = [...new Set(SCAM_CORPUS.flatMap((c) => (c.pattern ? [c.pattern] : [])))];
  it('the corpus has several differently worded claims of each pattern', () => {
    assert.deepEqual(patterns.sort(), Object.keys(FAMILY).sort());
    for (const p of patterns) assert.ok(SCAM_CORPUS.filter((c) => c.pattern === p).length >= 3, p);
  });

  for (const p of Object.keys(FAMILY)) {
    it(`${p}: every claim is rated high or critical, caught by the pattern's own rules`, () => {
      const wrong: string[] = [];
      for (const c of SCAM_CORPUS.filter((x) => x.pattern === p)) {
        const t = analyseClaim({ claim: c.claim, documents: c.documents });
        const own = t.evidenceMap.some((e) => FAMILY[p]!.test(e.ruleId));
        if (!high(t.risk.severity) || !own)
          wrong.push(`${t.risk.severity} [${t.evidenceMap.map((e) => e.ruleId).join()}]: ${c.claim}`);
      }
      assert.deepEqual(wrong, []);
    });
  }

  it('no legitimate claim of the corpus is rated high', () => {
    const wrong = SCAM_CORPUS.filter((c) => !c.scam)
      .map((c) => ({ c, t: analyseClaim({ claim: c.claim, documents: c.documents }) }))
      .filter(({ t }) => high(t.risk.severity))
      .map(({ c, t }) => `${c.kind}: ${t.risk.severity} [${t.evidenceMap.map((e) => e.ruleId).join()}]`);
    assert.deepEqual(wrong, []);
  });

  it('warnings against the pattern are not the pattern', () => {
    for (const claim of [
      'Reminder from your bank: we will never ask you to pay in gift cards.',
      'The letting agency says: never pay a deposit before you have seen the flat in person.',
      'The job board warns: real employers will not ask you to pay for training or equipment.',
    ]) {
      const t = analyseClaim({ claim });
      assert.ok(!high(t.risk.severity), `${claim}: ${t.evidenceMap.map((e) => e.ruleId).join()}`);
    }
  });
});
