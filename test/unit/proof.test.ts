import assert from 'node:assert/strict';
import { assessProof, redactFor } from '../../jobs/orchestrator/proof.js';

const item = (sourceBound: boolean, contradicts?: string[]) => ({
  claim: 'c',
  source: sourceBound ? 'https://x.example' : null,
  sourceBound,
  ...(contradicts ? { contradicts } : {}),
});
const step = (evidence: any[], openQuestions: string[] = []) => ({
  domain: 'hunt',
  evidence,
  openQuestions,
  rejected: [],
});

describe('proof assessment', () => {
  it('all sourced, no doubts → sourceBound, high confidence, proceedSafely', () => {
    const p = assessProof([step([item(true), item(true), item(true)])], false);
    assert.equal(p.evidenceStatus, 'sourceBound');
    assert.ok(p.confidence >= 0.9);
    assert.equal(p.recommendedRestraint, 'proceedSafely');
  });
  it('some sourced → partiallySourced with lower confidence', () => {
    const all = assessProof([step([item(true), item(true)])], false).confidence;
    const half = assessProof([step([item(true), item(false)])], false);
    assert.equal(half.evidenceStatus, 'partiallySourced');
    assert.ok(half.confidence < all);
  });
  it('no evidence or none sourced → unverified and escalate', () => {
    assert.equal(assessProof([step([])], false).evidenceStatus, 'unverified');
    const none = assessProof([step([item(false)])], false);
    assert.equal(none.evidenceStatus, 'unverified');
    assert.equal(none.recommendedRestraint, 'escalateBeforeActing');
  });
  it('a contradiction wins over sourcing and pulls confidence down', () => {
    const p = assessProof([step([item(true), item(true, ['a', 'b'])])], false);
    assert.equal(p.evidenceStatus, 'contradicted');
    assert.equal(p.recommendedRestraint, 'escalateBeforeActing');
    assert.ok(p.confidence < 0.6);
  });
  it('open questions and a pending decision lower confidence; values stay in [0, 1]', () => {
    const base = assessProof([step([item(true)])], false).confidence;
    const doubts = assessProof([step([item(true)], ['q1', 'q2'])], true);
    assert.ok(doubts.confidence < base);
    assert.deepEqual(doubts.openQuestions, ['q1', 'q2']);
    assert.ok(doubts.confidence >= 0 && doubts.confidence <= 1);
  });
  it('redaction: board drops sources and prices, regulator masks personal data, legal keeps all', () => {
    const entry = {
      selectedOption: {
        title: 'X',
        price: 10,
        url: 'https://a.example',
        note: 'mail bob@example.com or +1 415 555 0100',
      },
    };
    const board = redactFor(entry, 'board') as any;
    assert.equal(board.selectedOption.price, undefined);
    assert.equal(board.selectedOption.url, undefined);
    assert.equal(board.selectedOption.title, 'X');
    const reg = redactFor(entry, 'regulator') as any;
    assert.equal(reg.selectedOption.price, 10);
    assert.equal(reg.selectedOption.note, 'mail [email] or [phone]');
    assert.deepEqual(redactFor(entry, 'legal'), entry);
  });
});
