import assert from 'node:assert/strict';
import {
  availabilityConfirmed,
  evidenceFromOutputs,
  NO_EVIDENCE,
  purchaseOfSelection,
  settlementRefusal,
  toMajor,
  toMinor,
  unmetResolveRules,
  unpricedFees,
  type MandateState,
  type PurchaseEvidence,
} from '../../jobs/pay/logic.js';
import { buildSections, checkPackHashes, headerOf, packIdForRun, sealHashes } from '../../jobs/pay/pack-logic.js';

const mandate = (over: Partial<MandateState> = {}): MandateState => ({
  id: 'mnd_1',
  taskId: 'task_1',
  currency: 'USD',
  maxMinor: 10_000,
  spentMinor: 0,
  allowedVendors: null,
  resolveRules: [],
  status: 'active',
  expired: false,
  ...over,
});
const ask = { taskId: 'task_1', vendorId: 'CafeCo', amountMinor: 2_500, currency: 'USD' };
const chosen = (text: string, feesMinor: number | null = 0): PurchaseEvidence => ({
  candidate: { itemId: 'lst_1', title: 'Espresso', feesMinor, text },
  flaggedHiddenFees: [],
  availability: null,
});

describe('pay logic', () => {
  it('money: minor units per ISO 4217 exponent, amounts finer than the minor unit refused', () => {
    assert.deepEqual(
      [
        toMinor(12.34, 'USD'),
        toMinor(0.07, 'USD'),
        toMinor(5000, 'JPY'),
        toMinor(1.234, 'BHD'),
        toMinor(999_999_999.99, 'USD'),
      ],
      [1234, 7, 5000, 1234, 99_999_999_999],
    );
    assert.deepEqual([toMinor(12.345, 'USD'), toMinor(5.5, 'JPY'), toMinor(1e-7, 'USD')], [null, null, null]);
    assert.deepEqual([toMajor(1234, 'USD'), toMajor(5000, 'JPY'), toMajor(1, 'BHD')], [12.34, 5000, 0.001]);
  });

  it('the first broken rule refuses, in order: revoked, expired, task, currency, vendor, budget, resolve rules', () => {
    const reason = (m: Partial<MandateState>, a: Partial<typeof ask> = {}, ev: PurchaseEvidence = NO_EVIDENCE) =>
      settlementRefusal(mandate(m), { ...ask, ...a }, ev)?.reason ?? null;
    assert.equal(reason({}), null);
    assert.equal(reason({ status: 'revoked', expired: true }), 'mandateRevoked');
    assert.equal(reason({ expired: true }, { taskId: 'task_2' }), 'mandateExpired');
    assert.equal(reason({}, { taskId: 'task_2', currency: 'EUR' }), 'taskMismatch');
    assert.equal(reason({ allowedVendors: ['Other'] }, { currency: 'EUR' }), 'currencyMismatch');
    assert.equal(reason({ allowedVendors: ['Other'] }, { amountMinor: 99_999 }), 'vendorNotAllowed');
    assert.equal(reason({ allowedVendors: [' cafeco '] }), null, 'vendors compare trimmed and case-insensitively');
    assert.equal(reason({ spentMinor: 7_501 }), 'overBudget');
    assert.equal(reason({ spentMinor: 7_500 }), null, 'exactly the remaining budget settles');
    assert.equal(reason({ resolveRules: ['hiddenFeeClear'] }), 'resolveRuleUnmet', 'no evidence fails closed');
    assert.equal(reason({ resolveRules: ['hiddenFeeClear'] }, {}, chosen('Compact machine, no service fee')), null);
  });

  it(
    'hiddenFeeClear: a fee named without a price, or flagged by the audit; inventoryVerified: stock stated or ' +
      'confirmed by a step',
    () => {
      assert.deepEqual(unpricedFees('Plus shipping. A cleaning fee applies.', 0), ['plus shipping', 'cleaning fee']);
      assert.deepEqual(unpricedFees('Free shipping, no service fee, delivery fee included', 0), []);
      assert.deepEqual(unpricedFees('Plus shipping.', 1200), [], 'a listing that prices its fees names none unpriced');
      const flagged = { ...chosen('fine'), flaggedHiddenFees: ['lst_1'] };
      assert.match(unmetResolveRules(['hiddenFeeClear'], flagged)[0]!.message, /audit flagged/);
      assert.equal(availabilityConfirmed(chosen('In stock, ships today')).confirmed, true);
      assert.equal(
        availabilityConfirmed(chosen('In stock soon; currently back-ordered')).confirmed,
        false,
        'a contradiction is not a confirmation',
      );
      assert.deepEqual(
        availabilityConfirmed({
          ...chosen('nothing said'),
          availability: { status: 'confirmedSuccess', source: 'the proxy step' },
        }),
        { confirmed: true, by: 'the proxy step' },
      );
      assert.deepEqual(
        unmetResolveRules(['inventoryVerified', 'hiddenFeeClear'], chosen('Plus tax')).map((u) => u.rule),
        ['inventoryVerified', 'hiddenFeeClear'],
      );
    },
  );

  it('reads the purchase and its evidence from step outputs', () => {
    const hunt = {
      selected: {
        itemId: 'lst_1',
        title: 'Compact',
        price: 149,
        currency: 'USD',
        net: { amount: '161.00', currency: 'USD' },
        vendor: 'CafeCo',
      },
    };
    assert.deepEqual(purchaseOfSelection(hunt), {
      itemId: 'lst_1',
      title: 'Compact',
      vendorId: 'CafeCo',
      amount: 161,
      currency: 'USD',
      povRef: 'catalog:lst_1',
    });
    assert.equal(
      purchaseOfSelection({ selected: { ...hunt.selected, vendor: null } })!.vendorId,
      'lst_1',
      'no vendor: the item pays as itself',
    );
    assert.equal(purchaseOfSelection({}), null);
    const ev = evidenceFromOutputs(
      {
        hunt,
        resolve: { hiddenFees: ['lst_1', 7] },
        proxy: { verifiedProvider: { availability: { status: 'available' } } },
      },
      { feesMinor: 1200, text: 'desc' },
    );
    assert.deepEqual(ev, {
      candidate: { itemId: 'lst_1', title: 'Compact', feesMinor: 1200, text: 'desc' },
      flaggedHiddenFees: ['lst_1'],
      availability: { status: 'available', source: 'the proxy step' },
    });
  });

  it("a pack's hashes are recomputed from its content; any change is found and named", () => {
    assert.equal(packIdForRun('run_0192abc'), 'pp_0192abc');
    const sections = buildSections({
      run: { id: 'run_1', route: ['hunt', 'pay'], status: 'ready', extensions: [] },
      steps: [
        {
          segment: 0,
          idx: 0,
          domain: 'hunt',
          status: 'completed',
          output: { candidates: [{ candidateId: 'lst_1', url: 'https://shop.example/1', price: 1 }] },
          evidence: [{ claim: 'c', source: 'https://shop.example/1', sourceBound: true }],
          extra: { rejected: [{ option: 'x', reason: 'y' }] },
        },
      ],
      card: null,
      receipts: [{ receiptId: 'rcpt_1', amount: { amount: 1, currency: 'USD' } }],
      audit: [
        { id: 'aud_1', action: 'approval.granted', outcome: 'ok' },
        { id: 'aud_2', action: 'approval.granted', outcome: 'denied' },
      ],
    });
    assert.deepEqual(
      sections.map((s) => s.kind),
      ['evidenceMap', 'sourceSnapshots', 'contradictions', 'decisionLog', 'receipts', 'audit'],
    );
    assert.deepEqual([sections[5]!.count, sections[5]!.denied], [2, 1]);
    assert.deepEqual(
      [sections[0]!.itemCount, sections[0]!.allSourceBound, sections[3]!.rejectedCount, sections[4]!.receiptId],
      [1, true, 1, 'rcpt_1'],
    );
    const header = headerOf('pp_1', 'run_1', '2026-01-01T00:00:00.000Z');
    const { sectionHashes, rootHash } = sealHashes(header, sections);
    const pack = { ...header, sections, seal: { sectionHashes, rootHash } };
    assert.deepEqual(checkPackHashes(structuredClone(pack)).problems, []);
    const changed = structuredClone(pack);
    (changed.sections[1] as any).snapshots[0].record.price = 2;
    assert.deepEqual(
      checkPackHashes(changed).problems.map((p) => [p.section, p.problem]),
      [
        ['sourceSnapshots', 'hashMismatch'],
        ['sourceSnapshots', 'itemHashMismatch'],
      ],
    );
    const audited = structuredClone(pack);
    (audited.sections[5] as any).entries[1].outcome = 'ok';
    assert.deepEqual(
      checkPackHashes(audited).problems.map((p) => [p.section, p.problem]),
      [['audit', 'hashMismatch']],
    );
    assert.deepEqual(
      checkPackHashes({ ...structuredClone(pack), runId: 'run_2' }).problems.map((p) => p.problem),
      ['rootHashMismatch'],
    );
    assert.deepEqual(
      checkPackHashes({ ...structuredClone(pack), sections: sections.slice(1) }).problems.map((p) => p.problem)[0],
      'sectionMissing',
    );
  });
});
