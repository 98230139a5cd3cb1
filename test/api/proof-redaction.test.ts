import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';

/** Issue 8 §6: proof exports are redacted by field and by claim structure, for every audience. */
describe('proof card export: redaction per audience', () => {
  let token: string;
  let realCardId: string;
  const cardId = `pc_redact_${Date.now()}`;
  const createdAt = '2026-11-23T13:13:00.473Z';
  const selectedOption = {
    itemId: 'itm_pro',
    title: 'Espresso machine Pro',
    price: 900,
    currency: 'USD',
    net: { amount: '920.00', currency: 'USD' },
    vendor: 'Brewhouse',
    url: 'https://shop.example/pro',
    contactEmail: 'sales@brewhouse.example',
    note: 'Call +44 20 7946 0958, quote 900 USD (net $920), listed 2026-11-20',
  };
  const evidence = [
    {
      domain: 'hunt',
      claim: 'Espresso machine Pro: 900 USD (net $920)',
      source: 'https://shop.example/pro',
      sourceBound: true,
    },
    { domain: 'hunt', claim: 'Espresso machine Lite at 120 EUR', source: 'Brewhouse', sourceBound: false },
    {
      domain: 'resolve',
      claim: 'Seller alice@example.org (+1 415 555 0100) confirmed on 2026-11-20T13:13:00.473Z',
      source: 'request text',
      sourceBound: true,
      contradicts: ['claim', 'documents'],
    },
  ];
  const rejectedPaths = [
    { domain: 'hunt', option: 'Espresso machine Deluxe by Brewhouse', reason: 'net $939.00 is over the $250 budget' },
  ];
  const openQuestion = 'Confirm with bob@example.com or +1 415 555 0100 before 2026-12-01T09:30:00Z?';

  // The export without its references and timestamps, whose random digits could look like a leaked number.
  const prose = (entry: unknown) =>
    JSON.stringify(entry, (k, v) => (/^(cite|citeRef|cardId|runId|exportedAt|createdAt)$/.test(k) ? undefined : v));
  const exportAs = async (id: string, body: Record<string, unknown>) => {
    const res = await harness.call('POST', `/v1/audit/proofCards/${id}/export`, { token, body });
    assert.equal(res.status, 200, res.text);
    return res.body.ledgerEntry;
  };

  before(async () => {
    const a = await harness.account();
    token = a.token;
    await seedCatalog(a.accountId);
    const run = await harness.call('POST', '/v1/orchestrator/run', {
      token,
      body: { request: 'find an espresso machine under $250', domainRoute: ['hunt'] },
    });
    assert.equal(run.status, 200, run.text);
    realCardId = run.body.proofCard.cardId;
    // A card of the same run carrying everything redaction must handle: prices, emails, phones, dates.
    const real = await harness.deps.db('proof_cards').where({ id: realCardId }).first();
    await harness.deps.db('proof_cards').insert({
      id: cardId,
      account_id: a.accountId,
      run_id: real.run_id,
      decision_id: real.decision_id,
      card: { ...real.card, cardId, cite: `awp:proofCard:${cardId}#v1`, createdAt, openQuestions: [openQuestion] },
      decision: { ...real.decision, selectedOption, evidence, rejectedPaths },
    });
  });

  it('legal: everything, unredacted, marked privileged', async () => {
    const plain = await exportAs(cardId, {});
    const legal = await exportAs(cardId, { audience: 'legal' });
    assert.equal(legal.privileged, true);
    assert.deepEqual(legal.decision, plain.decision);
    assert.deepEqual(legal.proofCard, plain.proofCard);
    assert.deepEqual(legal.decision.evidence, evidence);
  });

  it(
    'regulator: personal data masked by field and inside ' + 'free text; prices, sources, ids and timestamps kept',
    async () => {
      const reg = await exportAs(cardId, { audience: 'regulator' });
      assert.equal(reg.proofCard.createdAt, createdAt);
      assert.equal(reg.proofCard.cardId, cardId);
      assert.ok(!JSON.stringify(reg).includes('[phone]T'), 'no timestamp is taken for a phone number');
      assert.ok(!/alice@|bob@|sales@|415 555|7946/.test(prose(reg)), prose(reg));
      assert.deepEqual(reg.proofCard.openQuestions, ['Confirm with [email] or [phone] before 2026-12-01T09:30:00Z?']);
      assert.equal(reg.decision.selectedOption.contactEmail, '[email]');
      assert.equal(reg.decision.selectedOption.note, 'Call [phone], quote 900 USD (net $920), listed 2026-11-20');
      assert.deepEqual(
        [reg.decision.selectedOption.itemId, reg.decision.selectedOption.price, reg.decision.selectedOption.url],
        ['itm_pro', 900, 'https://shop.example/pro'],
      );
      assert.deepEqual(
        reg.decision.evidence.map((e: any) => e.claim),
        [evidence[0]!.claim, evidence[1]!.claim, 'Seller [email] ([phone]) confirmed on 2026-11-20T13:13:00.473Z'],
      );
      assert.deepEqual(reg.decision.evidence[2].contradicts, ['claim', 'documents']);
      assert.deepEqual(reg.decision.rejectedPaths, rejectedPaths);
    },
  );

  it(
    'board: claims reduced to their structure; no prices, vendors, links, item ids, emails or phones; dates ' +
      'and ids kept',
    async () => {
      for (const format of ['service/v1', 'ledger/v1']) {
        const board = await exportAs(cardId, { audience: 'board', format });
        const text = prose(board);
        for (const leak of [
          'EUR',
          '$',
          '900',
          '920',
          '939',
          'Brewhouse',
          'Deluxe',
          'https://',
          'shop.example',
          '@',
          '415',
          '7946',
          'itm_pro',
        ]) {
          assert.ok(!text.includes(leak), `${format} board export leaks ${leak}: ${text}`);
        }
        assert.equal(board.selectedOption?.title ?? board.decision.selectedOption.title, 'Espresso machine Pro');
        const rejected = format === 'ledger/v1' ? board.rejectedPaths : board.decision.rejectedPaths;
        assert.deepEqual(rejected, [
          { domain: 'hunt', option: 'hunt option 1', reason: 'net [amount] is over the [amount] budget' },
        ]);
      }
      const board = await exportAs(cardId, { audience: 'board' });
      assert.deepEqual(board.decision.evidence, [
        { domain: 'hunt', claim: 'hunt claim 1: backed by a named source', sourceBound: true, contradicted: false },
        { domain: 'hunt', claim: 'hunt claim 2: no retrievable source', sourceBound: false, contradicted: false },
        {
          domain: 'resolve',
          claim: 'resolve claim 1: backed by a named source; contradicted by other evidence',
          sourceBound: true,
          contradicted: true,
        },
      ]);
      assert.equal(
        board.decision.selectedOption.note,
        'Call [phone], quote [amount] (net [amount]), listed 2026-11-20',
      );
      assert.equal(board.decision.selectedOption.contactEmail, '[email]');
      assert.deepEqual(board.proofCard.openQuestions, ['Confirm with [email] or [phone] before 2026-12-01T09:30:00Z?']);
      assert.deepEqual(
        [board.proofCard.createdAt, board.proofCard.cardId, board.cite],
        [createdAt, cardId, `awp:proofCard:${cardId}#v1`],
      );
      assert.match(board.exportedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    },
  );

  it('board: a real hunt card keeps no listing price, vendor or link', async () => {
    const board = await exportAs(realCardId, { audience: 'board' });
    const text = prose(board);
    for (const leak of ['USD', '$', '189', '149', 'Brewhouse', 'CafeCo', 'https://'])
      assert.ok(!text.includes(leak), `leaks ${leak}: ${text}`);
    assert.ok(board.decision.evidence.length > 0);
  });
});
