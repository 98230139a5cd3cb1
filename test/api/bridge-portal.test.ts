import assert from 'node:assert/strict';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';
import { until } from '../support/receiver.js';

/**
 * Portal sessions, preflight, templates, playbooks and actions: success, 400, 401, 404 and another account's records
 * (404).
 */
describe('bridge portal API', function () {
  this.timeout(20_000);
  let owner: { token: string };
  let other: { token: string };
  let sessionId: string;
  const origin = 'https://portal.example.com';
  const post = (path: string, body: unknown, token = owner.token) => harness.call('POST', path, { token, body });
  const get = (path: string, token = owner.token) => harness.call('GET', path, { token });
  before(async () => {
    owner = await harness.account();
    other = await harness.account();
    assert.equal(
      (await post('/v1/bridge/credentials', { name: 'portal-user', kind: 'apiKey', value: 'portal-user' })).status,
      201,
    );
    assert.equal(
      (await post('/v1/bridge/credentials', { name: 'portal-pass', kind: 'password', value: 'portal-pass-Zx81' }))
        .status,
      201,
    );
    const made = await post('/v1/bridge/portal/sessions', {
      targetOrigin: origin,
      credentials: { usernameRef: 'cred:portal-user', passwordRef: 'cred:portal-pass' },
      scope: { origins: [origin], paths: ['/login', '/home', '/invoices', '/orders/**', '/account/**', '/charges/**'] },
    });
    assert.equal(made.status, 201, made.text);
    sessionId = made.body.session.portalSessionId;
  });

  it('creates, lists and fetches sessions; preflight is ready with every reference set', async () => {
    const one = await get(`/v1/bridge/portal/sessions/${sessionId}`);
    assert.deepEqual(
      [one.body.session.targetOrigin, one.body.session.mfaMethod, one.body.session.preflight],
      [origin, 'none', null],
    );
    assert.deepEqual(
      (await get('/v1/bridge/portal/sessions')).body.sessions.map((s: any) => s.portalSessionId),
      [sessionId],
    );
    const pre = await post(`/v1/bridge/portal/sessions/${sessionId}/preflight`, {});
    assert.equal(pre.status, 200, pre.text);
    assert.deepEqual([pre.body.status, pre.body.errors], ['ready', []]);
    assert.ok(!pre.text.includes('portal-pass-Zx81'));
    assert.equal((await get(`/v1/bridge/portal/sessions/${sessionId}`)).body.session.preflight.status, 'ready');
  });

  it(
    'a session whose variable is unset is accepted and fails preflight naming it; MFA and scope failures each ' +
      'get an error',
    async () => {
      const made = await post('/v1/bridge/portal/sessions', {
        targetOrigin: origin,
        credentials: { usernameRef: 'cred:portal-user', passwordRef: 'cred:portal-unset' },
        mfaMethod: 'sms',
        scope: { origins: ['https://elsewhere.example.com'] },
      });
      assert.equal(made.status, 201, made.text);
      const pre = await post(`/v1/bridge/portal/sessions/${made.body.session.portalSessionId}/preflight`, {});
      assert.equal(pre.body.status, 'credentialsMissing');
      assert.deepEqual(
        pre.body.errors.map((e: any) => [e.check, e.variable ?? null]),
        [
          ['credential', 'portal-unset'],
          ['mfa', null],
          ['scope', null],
        ],
      );
      const totp = await post('/v1/bridge/portal/sessions', {
        targetOrigin: origin,
        credentials: {},
        mfaMethod: 'totp',
      });
      assert.equal(
        (await post(`/v1/bridge/portal/sessions/${totp.body.session.portalSessionId}/preflight`, {})).body.status,
        'mfaUnavailable',
      );
    },
  );

  it(
    '400 on bad sessions: a literal secret, an env: ' + "reference (operators' only), a bad origin, no " + 'target',
    async () => {
      assert.equal(
        (
          await post('/v1/bridge/portal/sessions', {
            targetOrigin: origin,
            credentials: { passwordRef: 'hunter2-literal' },
          })
        ).status,
        400,
      );
      const outside = await post('/v1/bridge/portal/sessions', {
        targetOrigin: origin,
        credentials: { passwordRef: 'env:AWP_SECRET_X' },
      });
      assert.equal(outside.status, 400);
      assert.match(outside.body.message, /env: references are reserved for platform connectors/);
      assert.equal(
        (await post('/v1/bridge/portal/sessions', { targetOrigin: 'https://x.example.com/path', credentials: {} }))
          .status,
        400,
      );
      assert.equal((await post('/v1/bridge/portal/sessions', { credentials: {} })).status, 400);
      assert.equal(
        (await post('/v1/bridge/portal/sessions', { targetOrigin: origin, credentials: {}, mfaMethod: 'pigeon' }))
          .status,
        400,
      );
    },
  );

  it('lists and fetches templates and playbooks; 404 for unknown ones', async () => {
    const templates = (await get('/v1/bridge/portal/templates')).body.templates.map((t: any) => t.templateId);
    for (const id of ['download-latest-invoice', 'check-order-status', 'update-delivery-address', 'request-refund'])
      assert.ok(templates.includes(id), id);
    const t = await get('/v1/bridge/portal/templates/check-order-status');
    assert.deepEqual(
      t.body.template.inputs.map((i: any) => i.name),
      ['orderId'],
    );
    const playbooks = (await get('/v1/bridge/portal/playbooks')).body.playbooks.map((p: any) => p.playbookId);
    assert.deepEqual(playbooks, ['account-locked', 'mfa-reset', 'disputed-charge']);
    assert.equal((await get('/v1/bridge/portal/playbooks/mfa-reset')).body.playbook.actions[0].templateId, 'reset-mfa');
    assert.equal((await get('/v1/bridge/portal/templates/nope')).status, 404);
    assert.equal((await get('/v1/bridge/portal/playbooks/nope')).status, 404);
  });

  it('creates actions from a template or steps, validated; lists with filters; fetches', async () => {
    const fromTemplate = await post('/v1/bridge/portal/actions', {
      portalSessionId: sessionId,
      templateId: 'check-order-status',
      inputs: { orderId: 'A 17' },
    });
    assert.equal(fromTemplate.status, 201, fromTemplate.text);
    assert.equal(fromTemplate.body.action.status, 'queued');
    const steps = [
      { op: 'navigate', url: '/invoices' },
      { op: 'extractText', selector: 'h1', as: 'title' },
    ];
    const fromSteps = await post('/v1/bridge/portal/actions', { portalSessionId: sessionId, steps });
    assert.equal(fromSteps.status, 201, fromSteps.text);
    assert.deepEqual(fromSteps.body.action.steps, steps);
    const list = await get(`/v1/bridge/portal/actions?portalSessionId=${sessionId}&status=queued`);
    assert.deepEqual(
      list.body.actions.map((a: any) => a.portalActionId),
      [fromSteps.body.action.portalActionId, fromTemplate.body.action.portalActionId],
    );
    assert.equal(
      (await get(`/v1/bridge/portal/actions/${fromTemplate.body.action.portalActionId}`)).body.action.templateId,
      'check-order-status',
    );
  });

  it(
    '400 on bad actions: both or neither of template and steps, a missing input, an out-of-scope navigation, a ' +
      'credential the session lacks, an unknown op',
    async () => {
      const bad = async (body: Record<string, unknown>) =>
        (await post('/v1/bridge/portal/actions', { portalSessionId: sessionId, ...body })).status;
      assert.equal(await bad({}), 400);
      assert.equal(
        await bad({ templateId: 'check-order-status', steps: [{ op: 'screenshot' }], inputs: { orderId: '1' } }),
        400,
      );
      assert.equal(await bad({ templateId: 'check-order-status' }), 400);
      const out = await post('/v1/bridge/portal/actions', {
        portalSessionId: sessionId,
        steps: [{ op: 'navigate', url: '/admin' }],
      });
      assert.equal(out.status, 400);
      assert.match(out.body.message, /outside the session's target scope/);
      assert.equal(await bad({ steps: [{ op: 'navigate', url: 'https://evil.example.net/login' }] }), 400);
      assert.equal(await bad({ steps: [{ op: 'fill', selector: '#otp', credential: 'totp' }] }), 400);
      assert.equal(await bad({ steps: [{ op: 'fill', selector: '#x' }] }), 400);
      assert.equal(await bad({ steps: [{ op: 'evaluate', script: 'alert(1)' }] }), 400);
    },
  );

  it('instantiates a playbook into queued actions, all or none', async () => {
    const made = await post('/v1/bridge/portal/playbooks/disputed-charge/instantiate', {
      portalSessionId: sessionId,
      inputs: { chargeId: 'ch_1', reason: 'charged twice' },
    });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(
      made.body.actions.map((a: any) => [a.templateId, a.status, a.playbookId]),
      [
        ['download-latest-invoice', 'queued', 'disputed-charge'],
        ['dispute-charge', 'queued', 'disputed-charge'],
      ],
    );
    const before = (await get('/v1/bridge/portal/actions?limit=200')).body.actions.length;
    assert.equal(
      (
        await post('/v1/bridge/portal/playbooks/disputed-charge/instantiate', {
          portalSessionId: sessionId,
          inputs: { chargeId: 'ch_1' },
        })
      ).status,
      400,
    );
    assert.equal((await get('/v1/bridge/portal/actions?limit=200')).body.actions.length, before, 'nothing written');
  });

  it('run answers 202 with the queued action; the worker settles it, and the caller follows it with GET', async () => {
    // The request only checks that a browser exists (any file here); the worker's preflight blocks this session
    // before a browser would start: its password is not in the vault.
    const app = await startExtraApp({ BROWSER_EXECUTABLE: process.execPath });
    try {
      const unset = await post('/v1/bridge/portal/sessions', {
        targetOrigin: origin,
        credentials: { usernameRef: 'cred:portal-user', passwordRef: 'cred:portal-never-stored' },
      });
      const made = await post('/v1/bridge/portal/actions', {
        portalSessionId: unset.body.session.portalSessionId,
        steps: [{ op: 'navigate', url: '/login' }],
      });
      const id = made.body.action.portalActionId;
      assert.deepEqual([made.body.action.status, made.body.action.attempts], ['queued', 0]);
      const ask = (path: string, body?: unknown) =>
        harness.call('POST', path, { token: owner.token, ...(body ? { body } : {}) }, app.url);
      const asked = await ask(`/v1/bridge/portal/actions/${id}/run`);
      assert.equal(asked.status, 202, asked.text);
      assert.ok(['queued', 'running'].includes(asked.body.action.status), asked.text);
      assert.equal(asked.body.action.attempts, 1);
      const follow = () =>
        until(
          () => get(`/v1/bridge/portal/actions/${id}`),
          (r) => ['succeeded', 'failed', 'blocked'].includes(r.body.action.status),
        );
      const done = (await follow()).body.action;
      assert.deepEqual(
        [done.status, done.blocked.reason, done.attempts, done.artefacts],
        ['blocked', 'preflight.credentialsMissing', 1, []],
      );
      assert.ok(done.finishedAt && done.updatedAt);
      // A blocked action runs again on request: a new attempt, through the tool this time.
      const again = await ask('/v1/tools/portalBrowser', { portalActionId: id });
      assert.equal(again.status, 202, again.text);
      assert.equal(again.body.action.attempts, 2);
      assert.deepEqual([(await follow()).body.action.status, (await follow()).body.action.attempts], ['blocked', 2]);
      assert.equal((await ask('/v1/tools/portalBrowser', {})).status, 400, 'portalActionId is required');
    } finally {
      await app.stop();
    }
  });

  it('401 without a token', async () => {
    assert.equal((await harness.call('GET', '/v1/bridge/portal/sessions')).status, 401);
    assert.equal((await harness.call('POST', '/v1/bridge/portal/actions', { body: {} })).status, 401);
    assert.equal((await harness.call('GET', '/v1/bridge/portal/templates')).status, 401);
    assert.equal(
      (await harness.call('POST', '/v1/tools/portalBrowser', { body: { portalActionId: 'pac_x' } })).status,
      401,
    );
  });

  it("404 for unknown records; another account's session and action are 404", async () => {
    const action = (
      await post('/v1/bridge/portal/actions', { portalSessionId: sessionId, steps: [{ op: 'screenshot' }] })
    ).body.action;
    assert.equal((await get('/v1/bridge/portal/sessions/psn_missing')).status, 404);
    assert.equal((await get(`/v1/bridge/portal/sessions/${sessionId}`, other.token)).status, 404);
    assert.equal((await post(`/v1/bridge/portal/sessions/${sessionId}/preflight`, {}, other.token)).status, 404);
    assert.equal(
      (
        await post(
          '/v1/bridge/portal/actions',
          { portalSessionId: sessionId, steps: [{ op: 'screenshot' }] },
          other.token,
        )
      ).status,
      404,
    );
    assert.equal((await get(`/v1/bridge/portal/actions/${action.portalActionId}`, other.token)).status, 404);
    assert.equal((await post(`/v1/bridge/portal/actions/${action.portalActionId}/run`, {}, other.token)).status, 404);
    assert.equal(
      (await post('/v1/tools/portalBrowser', { portalActionId: action.portalActionId }, other.token)).status,
      404,
    );
    assert.equal(
      (await post('/v1/bridge/portal/playbooks/mfa-reset/instantiate', { portalSessionId: sessionId }, other.token))
        .status,
      404,
    );
    assert.equal((await post('/v1/bridge/portal/sessions', { connectorId: 'nope', credentials: {} })).status, 404);
    assert.deepEqual((await get('/v1/bridge/portal/actions', other.token)).body.actions, []);
  });
});
