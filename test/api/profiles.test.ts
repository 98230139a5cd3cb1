import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../shared/http/route-spec.js';
import { issueToken } from '../../jobs/accounts/issue-token.js';
import { DEFAULT_SCOPES } from '../../shared/schemas/auth.js';
import { harness } from '../support/harness.js';
import { startExtraApp } from '../support/extra-app.js';

function email() {
  return `dev-${Math.random().toString(36).slice(2)}@example.com`;
}

async function activationTokenFor(address: string): Promise<string> {
  const mail = await harness.deps.db('outbound_mails').where({ to_address: address }).first();
  const line = String(mail.text_body)
    .split('\n')
    .find((l: string) => /^act_[\w-]+$/.test(l));
  assert.ok(line, 'activation token on a line of its own');
  return line;
}

/** A test-only workflow route: exercises the allowance through the real mount layer. */
const workflowProbe = defineRoute({
  method: 'POST',
  path: '/test/workflow',
  tag: 'test',
  auth: 'bearer',
  summary: 'test workflow',
  countsAsWorkflow: true,
  body: Type.Object({ n: Type.Optional(Type.Integer()) }),
  handler: ({ body }) => ({ ok: true, n: body.n ?? null }),
});

describe('profiles and activation', () => {
  let extra: Awaited<ReturnType<typeof startExtraApp>>;
  before(async () => {
    extra = await startExtraApp({ RATE_LIMIT_PER_MINUTE: '1000' }, [workflowProbe]);
  });
  after(() => extra.stop());

  it('creates a profile with a limited starter token and stores the mail without the password', async () => {
    const address = email();
    const res = await harness.call('POST', '/v1/profiles', {
      body: { email: address, name: 'Ada', password: 'correct horse' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.ok, true);
    assert.match(res.body.token, /^awp_/);
    assert.equal(res.body.tokenStatus, 'limited');
    assert.equal(res.body.unverifiedRequestLimit, 5);
    assert.equal(res.body.activation.required, true);
    const mail = await harness.deps.db('outbound_mails').where({ to_address: address }).first();
    assert.equal(mail.status, 'stored');
    assert.ok(!mail.text_body.includes('correct horse'));
    const account = await harness.deps.db('accounts').where({ email: address }).first();
    assert.match(account.password_hash, /^scrypt\$/);
  });

  it('refuses a short password, a bad email and a missing name with 400 and the failing fields', async () => {
    const res = await harness.call('POST', '/v1/profiles', { body: { email: 'not-an-email', password: 'short' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalidPayload');
    const paths = res.body.details.map((d: { path: string }) => d.path).sort();
    assert.deepEqual(paths, ['/email', '/name', '/password']);
    assert.ok(res.body.requestId);
  });

  it('answers 409 conflict for a duplicate email, whatever its case', async () => {
    const address = email();
    assert.equal(
      (await harness.call('POST', '/v1/profiles', { body: { email: address, name: 'A', password: 'password-1' } }))
        .status,
      201,
    );
    const dup = await harness.call('POST', '/v1/profiles', {
      body: { email: address.toUpperCase(), name: 'B', password: 'password-2' },
    });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error, 'conflict');
  });

  it('admits 5 workflow requests, refuses the 6th with 403, and lifts the limit on activation', async () => {
    const address = email();
    const created = await harness.call('POST', '/v1/profiles', {
      body: { email: address, name: 'Lin', password: 'password-1' },
    });
    const token = created.body.token;
    for (let i = 0; i < 5; i++) {
      const ok = await harness.call('POST', '/test/workflow', { token, body: { n: i } }, extra.url);
      assert.equal(ok.status, 200, `request ${i + 1}`);
    }
    const sixth = await harness.call('POST', '/test/workflow', { token, body: {} }, extra.url);
    assert.equal(sixth.status, 403);
    assert.equal(sixth.body.error, 'forbidden');
    assert.match(sixth.body.message, /activat/);
    // Non-workflow routes keep working for a limited token.
    assert.equal((await harness.call('GET', '/v1/tokens', { token })).status, 200);

    const activated = await harness.call('POST', '/v1/profiles/activate', {
      body: { activationToken: await activationTokenFor(address) },
    });
    assert.equal(activated.status, 200);
    assert.deepEqual(activated.body, { ok: true, status: 'activated', tokenStatus: 'unlimited' });
    assert.equal((await harness.call('POST', '/test/workflow', { token, body: {} }, extra.url)).status, 200);
  });

  it('activation tokens work once: a reused or unknown token is 404, a malformed one 400', async () => {
    const address = email();
    await harness.call('POST', '/v1/profiles', { body: { email: address, name: 'Kim', password: 'password-1' } });
    const activationToken = await activationTokenFor(address);
    assert.equal((await harness.call('GET', `/v1/profiles/activate?activationToken=${activationToken}`)).status, 200);
    const again = await harness.call('POST', '/v1/profiles/activate', { body: { activationToken } });
    assert.equal(again.status, 404);
    assert.equal(again.body.error, 'notFound');
    assert.equal((await harness.call('POST', '/v1/profiles/activate', { body: {} })).status, 400);
  });

  it('20 concurrent workflow requests on a limited token admit exactly 5', async () => {
    const created = await harness.call('POST', '/v1/profiles', {
      body: { email: email(), name: 'Par', password: 'password-1' },
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        harness.call('POST', '/test/workflow', { token: created.body.token, body: {} }, extra.url),
      ),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 5);
    assert.equal(statuses.filter((s) => s === 403).length, 15);
  });

  it('the builder plan refuses workflow requests past its monthly quota with quotaExceeded', async () => {
    const { accountId, token } = await harness.account({ plan: 'builder' });
    const period = new Date().toISOString().slice(0, 7);
    await harness.deps.db('usage_counters').insert({ account_id: accountId, period, workflow_requests: 499 });
    assert.equal((await harness.call('POST', '/test/workflow', { token, body: {} }, extra.url)).status, 200);
    const over = await harness.call('POST', '/test/workflow', { token, body: {} }, extra.url);
    assert.equal(over.status, 429);
    assert.equal(over.body.error, 'quotaExceeded');
    assert.equal(over.body.details.limit, 500);
    const nextMonth = new Date();
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1, 1);
    nextMonth.setUTCHours(0, 0, 0, 0);
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(
      retryAfter >= 1 && Math.abs(Date.now() + retryAfter * 1000 - nextMonth.getTime()) < 60_000,
      `Retry-After ${retryAfter} s points at the next month`,
    );
    const team = await harness.account({ plan: 'team' });
    await harness.deps.db('usage_counters').insert({ account_id: team.accountId, period, workflow_requests: 10_000 });
    assert.equal(
      (await harness.call('POST', '/test/workflow', { token: team.token, body: {} }, extra.url)).status,
      200,
    );
  });

  it(
    'an operator (admin) token is exempt from the unverified allowance and the monthly quota, and is not ' + 'counted',
    async () => {
      const { accountId, token } = await harness.account({
        activated: false,
        plan: 'builder',
        scopes: [...DEFAULT_SCOPES, 'admin'],
      });
      const period = new Date().toISOString().slice(0, 7);
      await harness.deps.db('usage_counters').insert({ account_id: accountId, period, workflow_requests: 500 });
      for (let i = 0; i < 8; i++) {
        const res = await harness.call('POST', '/test/workflow', { token, body: { n: i } }, extra.url);
        assert.equal(res.status, 200, `operator workflow request ${i + 1} (allowance 5, quota used up)`);
      }
      const usage = await harness.deps.db('usage_counters').where({ account_id: accountId, period }).first();
      assert.equal(usage.workflow_requests, 500);
      // A normal token of the same account is still limited: the exemption is the token's, not the account's.
      const normal = await issueToken(harness.deps.db, accountId, { name: 'normal', scopes: DEFAULT_SCOPES });
      const refused = await harness.call('POST', '/test/workflow', { token: normal.token, body: {} }, extra.url);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error, 'quotaExceeded');
    },
  );
});

describe('activation mail over SMTP', () => {
  it('sends the activation token on a line of its own, and a link, when SMTP_URL is set', async () => {
    const { startSmtpSink } = await import('../support/smtp-sink.js');
    const sink = await startSmtpSink();
    const app = await startExtraApp({ SMTP_URL: `${sink.url}?ignoreTLS=true` });
    try {
      const address = email();
      const res = await harness.call(
        'POST',
        '/v1/profiles',
        { body: { email: address, name: 'Mo', password: 'password-1' } },
        app.url,
      );
      assert.equal(res.status, 201);
      assert.equal(res.body.activation.delivery, 'smtp');
      assert.equal(sink.messages.length, 1);
      // The text part is quoted-printable; undo soft line breaks and =3D.
      const msg = sink.messages[0]!.replace(/=\n/g, '').replace(/=3D/g, '=');
      assert.match(msg, new RegExp(`To: ${address}`));
      const token = msg
        .split('\n')
        .find((l) => /^act_[\w-]+$/.test(l.trim()))!
        .trim();
      assert.match(msg, /https?:\/\/\S+\/v1\/profiles\/activate\?activationToken=act_/);
      assert.ok(!msg.includes('password-1'));
      const row = await harness.deps.db('outbound_mails').where({ to_address: address }).first();
      assert.equal(row.status, 'sent');
      assert.equal(
        (await harness.call('POST', '/v1/profiles/activate', { body: { activationToken: token } })).status,
        200,
      );
    } finally {
      await app.stop();
      await sink.stop();
    }
  });
});
