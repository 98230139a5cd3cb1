import assert from 'node:assert/strict';
import { crmConnector, LITERAL } from '../support/bridge.js';
import { harness } from '../support/harness.js';

describe('bridge connectors', () => {
  let a: { token: string; accountId: string };
  let b: { token: string };
  before(async () => {
    a = await harness.account();
    b = await harness.account();
  });
  const call = (method: string, path: string, body?: unknown, token = a.token) =>
    harness.call(method, path, { token, ...(body === undefined ? {} : { body }) });

  it(
    'registers a connector (201): references shown, never values; readiness names what is missing; list and ' +
      'fetch show it',
    async () => {
      const res = await call('POST', '/v1/bridge/connectors', crmConnector('crm-main'));
      assert.equal(res.status, 201, res.text);
      const c = res.body.connector;
      assert.deepEqual(
        [c.connectorId, c.kind, c.status, c.endpointKind, c.templateId],
        ['crm-main', 'custom', 'active', 'https', null],
      );
      assert.deepEqual(c.credential, { type: 'bearer', tokenRef: 'cred:test-crm-token' });
      assert.deepEqual(c.capabilityFlags, { 'crm.read': true, 'crm.update': true });
      assert.deepEqual(c.scopes[0], { actions: ['crm.read'], resources: ['contacts/*'], tokenRefs: [] });
      assert.equal(c.preflightReady, false);
      assert.deepEqual(
        c.notReady.map((n: any) => n.message),
        [
          'cred:test-crm-token is not available in this account',
          'cred:test-crm-write is not available in this account',
        ],
      );
      assert.deepEqual(c.allowedTransitions, ['needsAttention', 'disabled']);
      const list = await call('GET', '/v1/bridge/connectors');
      assert.equal(list.status, 200);
      assert.ok(
        list.body.connectors.some(
          (x: any) => x.connectorId === 'crm-main' && x.preflightReady === false && x.status === 'active',
        ),
      );
      const one = await call('GET', '/v1/bridge/connectors/crm-main');
      assert.deepEqual(one.body.connector, c);
    },
  );

  it(
    'a client-hosted adapter is bridge://client/<name>; a scope without resources covers any; a duplicate ' +
      'connectorId is 409',
    async () => {
      const body = {
        connectorId: 'local-printer',
        kind: 'webhook',
        caps: ['webhook.post'],
        endpoint: 'bridge://client/printer-1',
        scopes: [{ actions: ['webhook.post'] }],
      };
      const res = await call('POST', '/v1/bridge/connectors', body);
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(
        [res.body.connector.endpointKind, res.body.connector.scopes[0].resources, res.body.connector.preflightReady],
        ['clientHosted', ['**'], true],
      );
      const again = await call('POST', '/v1/bridge/connectors', { ...body, kind: 'custom' });
      assert.equal(again.status, 409);
      assert.equal(again.body.error, 'conflict');
      // Another account may use the same id.
      assert.equal((await call('POST', '/v1/bridge/connectors', body, b.token)).status, 201);
    },
  );

  it(
    'refuses a literal secret where a reference belongs (400, saying to use the vault) without repeating it, ' +
      'and an env: reference on a tenant connector',
    async () => {
      for (const [body, path] of [
        [crmConnector('lit-1', { credential: { type: 'bearer', tokenRef: LITERAL } }), '/credential/tokenRef'],
        [
          crmConnector('lit-2', { scopes: [{ actions: ['crm.read'], tokenRefs: ['cred:ok', LITERAL] }] }),
          '/scopes/0/tokenRefs/1',
        ],
      ] as const) {
        const res = await call('POST', '/v1/bridge/connectors', body);
        assert.equal(res.status, 400, res.text);
        assert.match(
          res.body.message,
          new RegExp(
            [
              String.raw`looks like a secret value, not a reference: store it in the vault \(POST \/v1`,
              String.raw`\/bridge\/credentials\) and send cred:NAME`,
            ].join(''),
          ),
        );
        assert.deepEqual(
          res.body.details.problems.map((p: any) => [p.path, p.problem]),
          [[path, 'literalSecret']],
        );
        assert.ok(!res.text.includes(LITERAL) && !res.text.includes(LITERAL.slice(8)), 'the value is never echoed');
      }
      const outside = await call(
        'POST',
        '/v1/bridge/connectors',
        crmConnector('out-1', { credential: { type: 'bearer', tokenRef: 'env:DATABASE_URL' } }),
      );
      assert.equal(outside.status, 400);
      assert.match(outside.body.message, /env: references are reserved for platform connectors/);
      assert.equal(outside.body.details.problems[0].problem, 'envNotAllowed');
      const keyInUrl = await call(
        'POST',
        '/v1/bridge/connectors',
        crmConnector('url-1', { endpoint: `https://crm.example.com/api?key=${LITERAL}` }),
      );
      assert.equal(keyInUrl.status, 400);
      assert.match(keyInUrl.body.message, /query parameter key looks like a secret value/);
      assert.ok(!keyInUrl.text.includes(LITERAL));
      assert.equal((await call('GET', '/v1/bridge/connectors/lit-1')).status, 404, 'nothing was stored');
    },
  );

  it(
    '400 for bad bodies: kind, caps, endpoint, scope actions no cap has, an oauth connector without a ' + 'credential',
    async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [crmConnector('bad-1', { kind: 'carrierPigeon' }), /kind/],
        [crmConnector('bad-2', { caps: ['read contacts'] }), /caps/],
        [crmConnector('bad-3', { caps: [] }), /caps/],
        [crmConnector('bad-4', { endpoint: 'ftp://crm.example.com' }), /https/],
        [crmConnector('bad-5', { endpoint: 'https://user:pw@crm.example.com' }), /credentials/],
        [crmConnector('bad-6', { endpoint: 'bridge://server/x' }), /bridge:\/\/client\/<name>/],
        [
          crmConnector('bad-7', { scopes: [{ actions: ['tickets.create'] }] }),
          /tickets.create matches none of the connector's caps/,
        ],
        [
          crmConnector('bad-8', { scopes: [{ actions: ['crm.read'], resources: ['contacts/../admin'] }] }),
          /\.\. segment/,
        ],
        [crmConnector('bad-9', { kind: 'oauth', credential: undefined }), /oauth connector needs credential.tokenRef/],
        [crmConnector('bad 10'), /connectorId/],
        [{ connectorId: 'bad-11', kind: 'custom' }, /caps|endpoint/],
      ];
      for (const [body, message] of cases) {
        const res = await call('POST', '/v1/bridge/connectors', body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.match(JSON.stringify(res.body), message);
      }
    },
  );

  it(
    'updates status through the machine (409 for a move it lacks), scopes, credential and endpoint, each ' +
      'checked as at registration',
    async () => {
      await call('POST', '/v1/bridge/connectors', crmConnector('crm-upd'));
      const off = await call('POST', '/v1/bridge/connectors/crm-upd/update', {
        status: 'disabled',
        statusReason: 'rotating keys',
      });
      assert.deepEqual(
        [off.status, off.body.connector.status, off.body.connector.statusReason, off.body.connector.preflightReady],
        [200, 'disabled', 'rotating keys', false],
      );
      const illegal = await call('POST', '/v1/bridge/connectors/crm-upd/update', { status: 'needsAttention' });
      assert.equal(illegal.status, 409);
      assert.deepEqual(illegal.body.details, { from: 'disabled', to: 'needsAttention', allowed: ['active'] });
      const on = await call('POST', '/v1/bridge/connectors/crm-upd/update', {
        status: 'active',
        scopes: [{ actions: ['crm.*'], resources: ['contacts/**'] }],
        credential: { type: 'apiKey', tokenRef: 'cred:test-crm-v2' },
        endpoint: 'https://crm2.example.com/api',
      });
      assert.equal(on.status, 200, on.text);
      const c = on.body.connector;
      assert.deepEqual(
        [c.status, c.statusReason, c.endpoint, c.credential.tokenRef, c.scopes],
        [
          'active',
          null,
          'https://crm2.example.com/api',
          'cred:test-crm-v2',
          [{ actions: ['crm.*'], resources: ['contacts/**'], tokenRefs: [] }],
        ],
      );
      const literal = await call('POST', '/v1/bridge/connectors/crm-upd/update', {
        credential: { type: 'bearer', tokenRef: LITERAL },
      });
      assert.equal(literal.status, 400);
      assert.ok(!literal.text.includes(LITERAL));
      assert.equal((await call('POST', '/v1/bridge/connectors/crm-upd/update', { status: 'paused' })).status, 400);
      assert.equal(
        (await call('POST', '/v1/bridge/connectors/crm-upd/update', { scopes: [{ actions: ['payments.settle'] }] }))
          .status,
        400,
      );
      assert.equal(
        (await call('GET', '/v1/bridge/connectors/crm-upd')).body.connector.credential.tokenRef,
        'cred:test-crm-v2',
        'a refused update changed nothing',
      );
    },
  );

  it('deletes a connector with its sessions; deleting again is 404', async () => {
    await call('POST', '/v1/bridge/connectors', crmConnector('crm-del'));
    const session = await call('POST', '/v1/bridge/connection-sessions', {
      connectorId: 'crm-del',
      actions: ['crm.read'],
    });
    assert.equal(session.status, 201, session.text);
    const del = await call('DELETE', '/v1/bridge/connectors/crm-del');
    assert.deepEqual([del.status, del.body], [200, { ok: true }]);
    assert.equal((await call('GET', '/v1/bridge/connectors/crm-del')).status, 404);
    assert.equal((await call('GET', `/v1/bridge/connection-sessions/${session.body.session.sessionId}`)).status, 404);
    assert.equal((await call('DELETE', '/v1/bridge/connectors/crm-del')).status, 404);
  });

  it(
    'lists ready-made templates; installing twice gives one connector each; an endpoint is required where a ' +
      'template has none',
    async () => {
      const ready = await call('GET', '/v1/bridge/connectors/ready');
      assert.equal(ready.status, 200);
      const ids = ready.body.templates.map((t: any) => t.templateId);
      assert.deepEqual(ids, ['genericWebhook', 'httpJsonBearer', 'githubActions', 'twilio', 'googlePlaces']);
      const twilio = ready.body.templates.find((t: any) => t.templateId === 'twilio');
      assert.deepEqual(twilio.requiredEnv, ['cred:TWILIO_AUTH_TOKEN', 'cred:TWILIO_ACCOUNT_SID']);
      const { token } = await harness.account();
      const body = {
        templates: [
          { templateId: 'twilio' },
          { templateId: 'googlePlaces' },
          { templateId: 'genericWebhook', endpoint: 'https://hooks.example.com/awp' },
        ],
      };
      const first = await harness.call('POST', '/v1/bridge/connectors/ready/install', { token, body });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(
        first.body.installed.map((i: any) => [i.connectorId, i.created, i.connector.templateId]),
        [
          ['twilio', true, 'twilio'],
          ['googlePlaces', true, 'googlePlaces'],
          ['genericWebhook', true, 'genericWebhook'],
        ],
      );
      const second = await harness.call('POST', '/v1/bridge/connectors/ready/install', { token, body });
      assert.deepEqual(
        second.body.installed.map((i: any) => i.created),
        [false, false, false],
      );
      const all = (await harness.call('GET', '/v1/bridge/connectors', { token })).body.connectors;
      assert.deepEqual(
        all
          .filter((c: any) => !c.platform)
          .map((c: any) => c.connectorId)
          .sort(),
        ['genericWebhook', 'googlePlaces', 'twilio'],
      );
      const noEndpoint = await harness.call('POST', '/v1/bridge/connectors/ready/install', {
        token,
        body: { templates: [{ templateId: 'httpJsonBearer' }] },
      });
      assert.equal(noEndpoint.status, 400);
      assert.match(noEndpoint.body.message, /httpJsonBearer needs an endpoint/);
      const taken = await harness.call('POST', '/v1/bridge/connectors/ready/install', {
        token,
        body: {
          templates: [
            { templateId: 'githubActions' },
            { templateId: 'httpJsonBearer', connectorId: 'twilio', endpoint: 'https://api.example.com' },
          ],
        },
      });
      assert.equal(taken.status, 409);
      assert.ok(
        !(await harness.call('GET', '/v1/bridge/connectors', { token })).body.connectors.some(
          (c: any) => c.connectorId === 'githubActions',
        ),
        'all or nothing',
      );
      assert.equal(
        (
          await harness.call('POST', '/v1/bridge/connectors/ready/install', {
            token,
            body: { templates: [{ templateId: 'fax' }] },
          })
        ).status,
        400,
      );
    },
  );

  it('matches by capability and credential scope, scored with reasons, best first', async () => {
    const { token } = await harness.account();
    const reg = (body: unknown) => harness.call('POST', '/v1/bridge/connectors', { token, body });
    await reg(crmConnector('crm-wide', { scopes: [{ actions: ['crm.*'], resources: ['**'] }] }));
    await reg(crmConnector('crm-narrow'));
    await reg({ connectorId: 'ci', kind: 'custom', caps: ['ci.trigger'], endpoint: 'https://ci.example.com' });
    const res = await harness.call('POST', '/v1/bridge/connectors/match', {
      token,
      body: { capability: 'crm.read', resource: 'deals/7' },
    });
    assert.equal(res.status, 200, res.text);
    // Platform connectors other test files registered match every account too: only this account's are compared.
    const own = (matches: any[]) => matches.filter((m) => ['crm-wide', 'crm-narrow', 'ci'].includes(m.connectorId));
    assert.deepEqual(
      own(res.body.matches).map((m: any) => m.connectorId),
      ['crm-wide', 'crm-narrow'],
    );
    const [wide, narrow] = own(res.body.matches);
    assert.ok(wide.score > narrow.score);
    assert.deepEqual(
      narrow.reasons.find((r: any) => r.criterion === 'scope'),
      { criterion: 'scope', met: false, weight: 0.35, detail: 'no scope covers crm.read on deals/7' },
    );
    const byRef = await harness.call('POST', '/v1/bridge/connectors/match', {
      token,
      body: { capability: 'crm.update', resource: 'contacts/1/notes', tokenRef: 'cred:test-crm-write' },
    });
    assert.deepEqual(
      own(byRef.body.matches).map((m: any) => m.connectorId),
      ['crm-narrow'],
    );
    assert.deepEqual(
      (await harness.call('POST', '/v1/bridge/connectors/match', { token, body: { capability: 'sms.send' } })).body
        .matches,
      [],
    );
    assert.equal(
      (await harness.call('POST', '/v1/bridge/connectors/match', { token, body: { capability: 'crm' } })).status,
      400,
    );
    assert.equal(
      (
        await harness.call('POST', '/v1/bridge/connectors/match', {
          token,
          body: { capability: 'crm.read', resource: 'deals/../x' },
        })
      ).status,
      400,
    );
    const literal = await harness.call('POST', '/v1/bridge/connectors/match', {
      token,
      body: { capability: 'crm.read', tokenRef: LITERAL },
    });
    assert.equal(literal.status, 400);
    assert.ok(!literal.text.includes(LITERAL));
    assert.deepEqual(
      own(
        (
          await harness.call('POST', '/v1/bridge/connectors/match', {
            token: b.token,
            body: { capability: 'crm.read' },
          })
        ).body.matches,
      ),
      [],
      'another account sees none of them',
    );
  });

  it(
    '401 without a token; 404 for an unknown connector ' + "and for another account's, on every connector route",
    async () => {
      await call('POST', '/v1/bridge/connectors', crmConnector('crm-private'));
      assert.equal((await harness.call('GET', '/v1/bridge/connectors')).status, 401);
      assert.equal((await call('GET', '/v1/bridge/connectors?limit=0')).status, 400);
      assert.equal((await harness.call('POST', '/v1/bridge/connectors', { body: crmConnector('x') })).status, 401);
      assert.equal((await harness.call('GET', '/v1/bridge/connectors/ready')).status, 401);
      assert.equal(
        (
          await harness.call('POST', '/v1/bridge/connectors/ready/install', {
            body: { templates: [{ templateId: 'twilio' }] },
          })
        ).status,
        401,
      );
      assert.equal(
        (await harness.call('POST', '/v1/bridge/connectors/match', { body: { capability: 'crm.read' } })).status,
        401,
      );
      assert.equal((await harness.call('POST', '/v1/bridge/connectors/crm-private/update', { body: {} })).status, 401);
      assert.equal((await harness.call('DELETE', '/v1/bridge/connectors/crm-private')).status, 401);
      const readOnly = await harness.account({ scopes: ['bridge:read'] });
      assert.equal(
        (await harness.call('POST', '/v1/bridge/connectors', { token: readOnly.token, body: crmConnector('x') }))
          .status,
        403,
      );
      for (const id of ['nope', 'crm-private']) {
        const token = id === 'nope' ? a.token : b.token;
        assert.equal((await call('GET', `/v1/bridge/connectors/${id}`, undefined, token)).status, 404);
        assert.equal(
          (await call('POST', `/v1/bridge/connectors/${id}/update`, { status: 'disabled' }, token)).status,
          404,
        );
        assert.equal((await call('DELETE', `/v1/bridge/connectors/${id}`, undefined, token)).status, 404);
      }
      assert.ok(
        !(await call('GET', '/v1/bridge/connectors', undefined, b.token)).body.connectors.some(
          (c: any) => c.connectorId === 'crm-private',
        ),
      );
      assert.equal(
        (await call('GET', '/v1/bridge/connectors/crm-private')).body.connector.status,
        'active',
        'another account changed nothing',
      );
    },
  );
});
