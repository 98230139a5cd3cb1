import assert from 'node:assert/strict';
import { harness } from '../support/harness.js';
import { cardV03, cardV1 } from '../support/agents.js';

describe('agent registry: register, list, fetch, match, delegate', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  let runId: string;
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    const register = (body: object) => harness.call('POST', '/v1/agents', { token: a.token, body });
    assert.equal(
      (
        await register({
          card: cardV1('Shop Finder', [{ id: 'catalog-search', name: 'Catalog search', tags: ['hunt', 'shopping'] }], {
            streaming: true,
          }),
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await register({
          agentId: 'price-watch',
          card: cardV1('Price Watch', [
            { id: 'price-history', description: 'Tracks price history of listings', tags: ['shopping'] },
          ]),
          domains: ['hunt'],
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await register({
          agentId: 'auditor',
          card: cardV03('Claim Auditor', [{ id: 'contradictions', tags: ['resolve'] }]),
        })
      ).status,
      201,
    );
    assert.equal(
      (await register({ agentId: 'payer', card: cardV1('Payer', [{ id: 'settle', tags: ['pay'] }]) })).status,
      201,
    );
    const run = await harness.call('POST', '/v1/orchestrator/run', {
      token: a.token,
      body: { request: 'audit this claim', domainRoute: ['resolve'] },
    });
    runId = run.body.runId;
  });

  it('POST /v1/agents registers a card (its id from the card name unless given); a duplicate id is 409', async () => {
    const shop = await harness.call('GET', '/v1/agents/shop-finder', { token: a.token });
    assert.equal(shop.status, 200);
    assert.deepEqual(shop.body.agent.domains, ['hunt']);
    assert.equal(shop.body.agent.url, 'https://shop-finder.example/a2a');
    assert.ok(
      shop.body.agent.capabilities.includes('catalog-search') && shop.body.agent.capabilities.includes('streaming'),
    );
    const dup = await harness.call('POST', '/v1/agents', {
      token: a.token,
      body: { card: cardV1('Shop Finder', [{ id: 'other', tags: ['hunt'] }]) },
    });
    assert.deepEqual([dup.status, dup.body.error], [409, 'conflict']);
    // Another account may use the same id: ids are per account.
    assert.equal(
      (
        await harness.call('POST', '/v1/agents', {
          token: b.token,
          body: { card: cardV1('Shop Finder', [{ id: 'x', tags: ['hunt'] }]) },
        })
      ).status,
      201,
    );
  });

  it('a 0.3 card is stored as A2A 1.0 JSON', async () => {
    const auditor = await harness.call('GET', '/v1/agents/auditor', { token: a.token });
    assert.deepEqual(auditor.body.agent.card.supportedInterfaces, [
      { url: 'https://claim-auditor.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' },
    ]);
    assert.deepEqual(auditor.body.agent.card.securitySchemes, {
      bearer: { httpAuthSecurityScheme: { scheme: 'bearer' } },
    });
    assert.equal(auditor.body.agent.card.url, undefined);
  });

  it(
    "POST /v1/agents: 400 for a card without the A2A fields, without domains, or for the service's own id; 401 " +
      'without a token',
    async () => {
      const noSkills = await harness.call('POST', '/v1/agents', {
        token: a.token,
        body: { card: { ...cardV1('Bare', []), skills: [] } },
      });
      assert.equal(noSkills.status, 400);
      const { supportedInterfaces: _s, ...noInterfaces } = cardV1('Lost', [{ id: 'x', tags: ['hunt'] }]);
      assert.equal(
        (await harness.call('POST', '/v1/agents', { token: a.token, body: { card: noInterfaces } })).status,
        400,
      );
      const badUrl = cardV1('Bad Url', [{ id: 'x', tags: ['hunt'] }]);
      badUrl.supportedInterfaces[0]!.url = 'ftp://nowhere';
      assert.equal((await harness.call('POST', '/v1/agents', { token: a.token, body: { card: badUrl } })).status, 400);
      const noDomain = await harness.call('POST', '/v1/agents', {
        token: a.token,
        body: { card: cardV1('Generalist', [{ id: 'chat' }]) },
      });
      assert.deepEqual([noDomain.status, noDomain.body.details[0].path], [400, '/domains']);
      assert.equal(
        (
          await harness.call('POST', '/v1/agents', {
            token: a.token,
            body: { agentId: 'awp', card: cardV1('Me', [{ id: 'x', tags: ['hunt'] }]) },
          })
        ).status,
        400,
      );
      assert.equal(
        (
          await harness.call('POST', '/v1/agents', {
            token: a.token,
            body: { card: cardV1('Unknown Domain', [{ id: 'x' }]), domains: ['teleport'] },
          })
        ).status,
        400,
      );
      assert.equal(
        (await harness.call('POST', '/v1/agents', { body: { card: cardV1('Anon', [{ id: 'x', tags: ['hunt'] }]) } }))
          .status,
        401,
      );
    },
  );

  it("GET /v1/agents lists the account's agents with domain and capability filters and a cursor", async () => {
    const all = await harness.call('GET', '/v1/agents', { token: a.token });
    assert.deepEqual(
      all.body.agents.map((x: any) => x.agentId),
      ['payer', 'auditor', 'price-watch', 'shop-finder'],
    );
    const hunt = await harness.call('GET', '/v1/agents?domain=hunt', { token: a.token });
    assert.deepEqual(
      hunt.body.agents.map((x: any) => x.agentId),
      ['price-watch', 'shop-finder'],
    );
    const cap = await harness.call('GET', '/v1/agents?capability=Catalog%20Search', { token: a.token });
    assert.deepEqual(
      cap.body.agents.map((x: any) => x.agentId),
      ['shop-finder'],
    );
    const page1 = await harness.call('GET', '/v1/agents?limit=3', { token: a.token });
    const page2 = await harness.call('GET', `/v1/agents?limit=3&cursor=${page1.body.nextCursor}`, { token: a.token });
    assert.deepEqual(
      page2.body.agents.map((x: any) => x.agentId),
      ['shop-finder'],
    );
    assert.equal(page2.body.nextCursor, null);
    assert.equal((await harness.call('GET', '/v1/agents?domain=teleport', { token: a.token })).status, 400);
    assert.equal((await harness.call('GET', '/v1/agents')).status, 401);
    assert.deepEqual(
      (await harness.call('GET', '/v1/agents', { token: b.token })).body.agents.map((x: any) => x.agentId),
      ['shop-finder'],
    );
  });

  it("GET /v1/agents/{agentId}: 404 unknown, 404 another account's, 401 without a token", async () => {
    assert.equal((await harness.call('GET', '/v1/agents/nobody', { token: a.token })).status, 404);
    assert.equal((await harness.call('GET', '/v1/agents/payer', { token: b.token })).status, 404);
    assert.equal((await harness.call('GET', '/v1/agents/payer')).status, 401);
  });

  it('POST /v1/agents/match scores by domain and capabilities and says why', async () => {
    const res = await harness.call('POST', '/v1/agents/match', {
      token: a.token,
      body: { domain: 'hunt', capabilities: ['catalog search', 'price history'] },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.matches.map((m: any) => [m.agentId, m.score]),
      [
        ['price-watch', 0.75],
        ['shop-finder', 0.75],
      ],
    );
    const shop = res.body.matches.find((m: any) => m.agentId === 'shop-finder');
    assert.deepEqual(shop.reasons, [
      'serves domain hunt',
      'skill catalog-search is catalog-search',
      'no skill for price-history',
    ]);
    const partial = res.body.matches.find((m: any) => m.agentId === 'price-watch');
    assert.ok(partial.reasons.includes('skill price-history is price-history'));
    const caps = await harness.call('POST', '/v1/agents/match', {
      token: a.token,
      body: { capabilities: ['streaming', 'contradictions'] },
    });
    assert.deepEqual(
      caps.body.matches.map((m: any) => [m.agentId, m.score]),
      [
        ['auditor', 1],
        ['shop-finder', 0.5],
      ],
    );
    const words = await harness.call('POST', '/v1/agents/match', {
      token: a.token,
      body: { capabilities: ['listings price'] },
    });
    assert.deepEqual(
      words.body.matches.map((m: any) => [m.agentId, m.score, m.reasons[0]]),
      [['price-watch', 0.5, 'skill price-history mentions every word of listings-price']],
    );
    assert.deepEqual(
      (await harness.call('POST', '/v1/agents/match', { token: a.token, body: { domain: 'security' } })).body.matches,
      [],
    );
    assert.equal((await harness.call('POST', '/v1/agents/match', { token: a.token, body: {} })).status, 400);
    assert.equal(
      (await harness.call('POST', '/v1/agents/match', { token: a.token, body: { domain: 'teleport' } })).status,
      400,
    );
    assert.equal((await harness.call('POST', '/v1/agents/match', { body: { domain: 'hunt' } })).status, 401);
    assert.deepEqual(
      (await harness.call('POST', '/v1/agents/match', { token: b.token, body: { domain: 'resolve' } })).body.matches,
      [],
    );
  });

  it('POST /v1/agents/delegate splits a request across agents, one queued envelope per hand-off', async () => {
    const res = await harness.call('POST', '/v1/agents/delegate', {
      token: a.token,
      body: { request: 'buy a road bike', runId },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.route, ['hunt', 'pay']);
    assert.deepEqual(
      res.body.handoffs.map((h: any) => [h.domain, h.agentId]),
      [
        ['hunt', 'price-watch'],
        ['pay', 'payer'],
      ],
    );
    assert.deepEqual(
      res.body.handoffs[0].alternatives.map((x: any) => x.agentId),
      ['shop-finder'],
    );
    assert.deepEqual(res.body.unassigned, []);
    assert.equal(res.body.envelopes.length, 2);
    for (const [i, env] of res.body.envelopes.entries()) {
      assert.deepEqual(
        [env.kind, env.status, env.sender, env.recipient, env.runId, env.planId, env.msgId],
        [
          'delegation',
          'queued',
          'awp',
          res.body.handoffs[i].agentId,
          runId,
          res.body.planId,
          res.body.handoffs[i].msgId,
        ],
      );
      assert.equal(env.payload.domain, res.body.handoffs[i].domain);
    }
    const listed = await harness.call('GET', `/v1/a2a/envelopes?planId=${res.body.planId}`, { token: a.token });
    assert.equal(listed.body.envelopes.length, 2);

    // The run's own request and route when none is given; a domain nobody serves stays unassigned.
    const fromRun = await harness.call('POST', '/v1/agents/delegate', {
      token: a.token,
      body: { runId, domainRoute: ['resolve', 'security'] },
    });
    assert.deepEqual(
      fromRun.body.handoffs.map((h: any) => h.agentId),
      ['auditor'],
    );
    assert.deepEqual(
      fromRun.body.unassigned.map((u: any) => u.domain),
      ['security'],
    );
    assert.equal(fromRun.body.request, 'audit this claim');
  });

  it(
    "POST /v1/agents/delegate: 400 without a run or task, 404 for another account's run, 422 when no agent " +
      'serves any part, 401 without a token',
    async () => {
      assert.equal(
        (await harness.call('POST', '/v1/agents/delegate', { token: a.token, body: { request: 'buy a road bike' } }))
          .status,
        400,
      );
      assert.equal(
        (
          await harness.call('POST', '/v1/agents/delegate', {
            token: b.token,
            body: { request: 'buy a road bike', runId },
          })
        ).status,
        404,
      );
      assert.equal(
        (await harness.call('POST', '/v1/agents/delegate', { token: a.token, body: { runId: 'run_missing' } })).status,
        404,
      );
      assert.equal(
        (
          await harness.call('POST', '/v1/agents/delegate', {
            token: a.token,
            body: { request: 'x', runId, domainRoute: ['security'] },
          })
        ).status,
        422,
      );
      assert.equal(
        (await harness.call('POST', '/v1/agents/delegate', { token: a.token, body: { runId, domainRoute: ['warp'] } }))
          .status,
        400,
      );
      assert.equal((await harness.call('POST', '/v1/agents/delegate', { body: { request: 'x', runId } })).status, 401);
    },
  );
});
