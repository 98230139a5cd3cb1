import assert from 'node:assert/strict';
import { recordAudit } from '../../jobs/audit/index.js';
import { ProofPackReply, ProofPackVerification } from '../../jobs/pay/pack-schemas.js';
import { newId } from '../../shared/ids.js';
import { check } from '../../shared/validation.js';
import { harness } from '../support/harness.js';
import { tamper, verifyOffline } from '../support/pay.js';
import { seedCatalog } from '../support/runs.js';

describe('proof packs', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  let runId: string;
  let pack: any;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    await seedCatalog(a.accountId);
    const run = await harness.call('POST', '/v1/orchestrator/run', {
      token: a.token,
      body: {
        request: 'find the cheapest espresso machine under $250 and check it for hidden fees',
        domainRoute: ['hunt', 'resolve'],
      },
    });
    assert.equal(run.body.status, 'ready', run.text);
    runId = run.body.runId;
    // What an approval records about a run (another run's entry and a non-run entry stay out of this pack).
    const { db } = harness.deps;
    await recordAudit(db, {
      accountId: a.accountId,
      memberId: 'mem_x',
      action: 'approval.denied',
      resourceType: 'run',
      resourceId: runId,
      outcome: 'denied',
      details: { reason: 'self-approval' },
    });
    await recordAudit(db, {
      accountId: a.accountId,
      memberId: 'mem_y',
      action: 'approval.granted',
      resourceType: 'run',
      resourceId: runId,
      details: { gate: 'pay' },
    });
    await recordAudit(db, {
      accountId: a.accountId,
      action: 'approval.granted',
      resourceType: 'run',
      resourceId: 'run_other',
    });
    await recordAudit(db, {
      accountId: a.accountId,
      action: 'token.created',
      resourceType: 'token',
      resourceId: runId,
    });
  });
  const verify = (body: unknown, token = a.token) =>
    harness.call('POST', '/v1/audit/proofPacks/verify', { token, body });

  it(
    "seals a pack of a run (201): sections, hashes, root hash and the service's signature; GET returns it " +
      'unchanged',
    async () => {
      const res = await harness.call('POST', '/v1/audit/proofPacks', { token: a.token, body: { runId } });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(check(ProofPackReply, res.body), []);
      pack = res.body.pack;
      assert.match(pack.packId, /^pp_/);
      assert.deepEqual([pack.status, pack.cite, pack.runId], ['sealed', `awp:proofPack:${pack.packId}#v1`, runId]);
      assert.match(pack.shareUrl, new RegExp(`/v1/audit/proofPacks/${pack.packId}$`));
      assert.deepEqual(
        pack.sections.map((s: any) => s.kind),
        ['evidenceMap', 'sourceSnapshots', 'contradictions', 'decisionLog', 'receipts', 'audit'],
      );
      const [evidence, snapshots, , decision, receipts, audit] = pack.sections;
      assert.deepEqual([audit.count, audit.denied], [2, 1]);
      assert.deepEqual(
        audit.entries.map((e: any) => [e.action, e.memberId, e.resourceId, e.outcome]),
        [
          ['approval.denied', 'mem_x', runId, 'denied'],
          ['approval.granted', 'mem_y', runId, 'ok'],
        ],
      );
      assert.deepEqual(audit.entries[1].details, { gate: 'pay' });
      assert.equal(evidence.itemCount, evidence.items.length);
      assert.ok(evidence.itemCount > 0 && typeof evidence.allSourceBound === 'boolean');
      assert.ok(
        snapshots.snapshots.some(
          (s: any) => s.url === 'https://shop.example/compact' && /^[0-9a-f]{64}$/.test(s.sha256),
        ),
        'each source the run read, with its hash',
      );
      assert.deepEqual(decision.selectedPath, ['hunt', 'resolve']);
      assert.equal(decision.rejectedCount, decision.rejectedPaths.length);
      assert.ok(decision.proofCard.cite.startsWith('awp:proofCard:'));
      assert.deepEqual([receipts.receiptId, receipts.count], [null, 0]);
      const jwks = (await harness.call('GET', '/.well-known/jwks.json')).body;
      assert.equal(pack.seal.kid, jwks.keys[0].kid);
      assert.deepEqual(verifyOffline(pack, jwks), []);

      const again = await harness.call('GET', `/v1/audit/proofPacks/${pack.packId}`, { token: a.token });
      assert.deepEqual(again.body.pack, pack);
      await assert.rejects(
        harness.deps.db('proof_packs').where({ id: pack.packId }).update({ root_hash: 'x' }),
        /a sealed proof pack never changes/,
      );
    },
  );

  it(
    'verify recomputes every hash from the content: intact is valid; one changed byte is invalid, naming the ' +
      'section',
    async () => {
      const ok = await verify({ pack });
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(check(ProofPackVerification, ok.body), []);
      assert.deepEqual([ok.body.valid, ok.body.signature.valid, ok.body.invalidSections], [true, true, []]);

      const claim = await verify({ pack: tamper(pack, ['sections', 0, 'items', 0, 'claim']) });
      assert.deepEqual([claim.body.valid, claim.body.invalidSections], [false, ['evidenceMap']]);
      assert.deepEqual(claim.body.problems.map((p: any) => p.problem).sort(), ['hashMismatch', 'itemHashMismatch']);
      const decision = await verify({ pack: tamper(pack, ['sections', 3, 'status']) });
      assert.deepEqual([decision.body.valid, decision.body.invalidSections], [false, ['decisionLog']]);
      const audit = await verify({ pack: tamper(pack, ['sections', 5, 'entries', 0, 'action']) });
      assert.deepEqual([audit.body.valid, audit.body.invalidSections], [false, ['audit']]);
      const header = await verify({ pack: tamper(pack, ['sealedAt']) });
      assert.deepEqual([header.body.valid, header.body.invalidSections], [false, ['header']]);
      const signature = await verify({ pack: tamper(pack, ['seal', 'signature']) });
      assert.deepEqual(
        [signature.body.valid, signature.body.invalidSections, signature.body.signature.valid],
        [false, ['seal'], false],
      );
      const root = await verify({ pack: tamper(pack, ['seal', 'rootHash']) });
      assert.deepEqual([root.body.valid, root.body.invalidSections], [false, ['seal']]);
      const unknownKey = await verify({ pack: { ...pack, seal: { ...pack.seal, kid: 'not-a-kid' } } });
      assert.deepEqual(
        [unknownKey.body.signature.keyPublished, unknownKey.body.problems.map((p: any) => p.problem)],
        [false, ['unknownKey']],
      );
      const jwks = (await harness.call('GET', '/.well-known/jwks.json')).body;
      assert.deepEqual(
        verifyOffline(tamper(pack, ['sections', 0, 'items', 0, 'claim']), jwks),
        ['evidenceMap'],
        'the offline check agrees',
      );
    },
  );

  it('409 for a run that is still moving; 400 for bad bodies; 401 without a token', async () => {
    const moving = newId('run');
    await harness.deps.db('runs').insert({
      id: moving,
      account_id: a.accountId,
      status: 'running',
      request: 'x',
      input: '{}',
      route: ['hunt'],
      routing: '{}',
    });
    const res = await harness.call('POST', '/v1/audit/proofPacks', { token: a.token, body: { runId: moving } });
    assert.deepEqual([res.status, res.body.details], [409, { status: 'running' }]);
    for (const body of [{}, { runId: '' }, { runId: 7 }])
      assert.equal(
        (await harness.call('POST', '/v1/audit/proofPacks', { token: a.token, body })).status,
        400,
        JSON.stringify(body),
      );
    for (const body of [{}, { pack: 'sealed' }, { pack: { packId: 'pp_1' } }, { pack: { ...pack, sections: 'none' } }])
      assert.equal((await verify(body)).status, 400, JSON.stringify(body));
    assert.equal((await harness.call('POST', '/v1/audit/proofPacks', { body: { runId } })).status, 401);
    assert.equal((await harness.call('GET', `/v1/audit/proofPacks/${pack.packId}`)).status, 401);
    assert.equal((await harness.call('POST', '/v1/audit/proofPacks/verify', { body: { pack } })).status, 401);
  });

  it(
    "404 for an unknown run or pack and for another account's; anyone with audit access can verify a pack they " +
      'were given',
    async () => {
      assert.equal(
        (await harness.call('POST', '/v1/audit/proofPacks', { token: a.token, body: { runId: 'run_missing' } })).status,
        404,
      );
      assert.equal(
        (await harness.call('POST', '/v1/audit/proofPacks', { token: b.token, body: { runId } })).status,
        404,
      );
      assert.equal((await harness.call('GET', '/v1/audit/proofPacks/pp_missing', { token: a.token })).status, 404);
      assert.equal((await harness.call('GET', `/v1/audit/proofPacks/${pack.packId}`, { token: b.token })).status, 404);
      const shared = await verify({ pack }, b.token);
      assert.equal(shared.body.valid, true, 'verification needs the pack and the published key, not its owner');
    },
  );
});
