import assert from 'node:assert/strict';
import net from 'node:net';
import type { ProviderCallContext } from '../../jobs/bridge/providers/adapter.js';
import { checkSmtpEndpoint, smtpAdapter } from '../../jobs/bridge/providers/smtp.js';
import { harness } from '../support/harness.js';
import { headerOf, startSmtpServer, type SmtpTestServer } from '../support/smtp-server.js';

/**
 * The email adapter against a real SMTP server in process (smtp-server): the SMTP protocol is the contract, so what
 * the server received (envelope, headers, body, who authenticated) is what a real relay would have.
 */
describe('the email adapter (SMTP through nodemailer)', function () {
  this.timeout(30_000);
  const password = 'pw-' + 'x7Q2'.repeat(6);
  let smtp: SmtpTestServer;
  let ctx: ProviderCallContext;
  before(async () => {
    smtp = await startSmtpServer({ users: { 'mailer@example.com': password } });
    ctx = {
      deps: harness.deps,
      connector: { endpoint: smtp.url } as ProviderCallContext['connector'],
      secret: `mailer@example.com:${password}`,
      idempotencyKey: 'act_mail1',
    };
  });
  after(() => smtp.stop());

  const mail = { to: 'Ops <ops@example.com>', cc: 'lead@example.com', bcc: ['audit@example.com'] };

  it('sends the message: envelope, headers, body, a Message-ID from the key, authenticated, no secret', async () => {
    const before = smtp.received.length;
    const out = await smtpAdapter.call(
      'msg.email',
      { ...mail, subject: 'The summary', text: 'All systems nominal.\nSee you.' },
      ctx,
    );
    assert.equal(out.status, 'succeeded', JSON.stringify(out));
    assert.equal(out.providerRef, '<act_mail1@example.com>');
    assert.deepEqual(out.answer.accepted, ['ops@example.com', 'lead@example.com', 'audit@example.com']);
    const got = smtp.received.slice(before);
    assert.equal(got.length, 1);
    const m = got[0]!;
    assert.equal(m.user, 'mailer@example.com', 'AUTH with the credential from the vault');
    assert.equal(m.from, 'mailer@example.com', 'the sender is the credential user when the input names none');
    assert.deepEqual(m.to, ['ops@example.com', 'lead@example.com', 'audit@example.com']);
    assert.equal(headerOf(m.raw, 'Message-ID'), '<act_mail1@example.com>');
    assert.equal(headerOf(m.raw, 'Subject'), 'The summary');
    assert.equal(headerOf(m.raw, 'To'), 'Ops <ops@example.com>');
    assert.equal(headerOf(m.raw, 'Cc'), 'lead@example.com');
    assert.equal(headerOf(m.raw, 'Bcc'), undefined, 'Bcc only in the envelope');
    assert.match(m.raw, /All systems nominal\.\r?\nSee you\./);
    assert.ok(!m.raw.includes(password), 'the password is not in the message');
    assert.ok(!JSON.stringify(out).includes(password), 'nor in the answer');
  });

  it('a retry of the same action sends the same Message-ID (recognisable); a reply threads by inReplyTo', async () => {
    const before = smtp.received.length;
    const input = { to: 'ops@example.com', from: 'Bot <bot@mail.example.org>', subject: 's', text: 't' };
    const a = await smtpAdapter.call('msg.email', input, { ...ctx, idempotencyKey: 'act_retry' });
    const b = await smtpAdapter.call('msg.email', input, { ...ctx, idempotencyKey: 'act_retry' });
    assert.equal(a.providerRef, '<act_retry@mail.example.org>');
    assert.equal(b.providerRef, a.providerRef);
    const ids = smtp.received.slice(before).map((m) => headerOf(m.raw, 'Message-ID'));
    assert.deepEqual(ids, [a.providerRef, a.providerRef]);
    const reply = await smtpAdapter.call(
      'msg.email',
      { ...input, inReplyTo: '<CAF=abc@mail.gmail.com>' },
      { ...ctx, idempotencyKey: 'act_reply' },
    );
    const raw = smtp.received.at(-1)!.raw;
    assert.equal(reply.status, 'succeeded');
    assert.equal(headerOf(raw, 'In-Reply-To'), '<CAF=abc@mail.gmail.com>');
    assert.equal(headerOf(raw, 'References'), '<CAF=abc@mail.gmail.com>');
  });

  it('a 5xx reply is final, its code mapped to a clear message', async () => {
    smtp.refuseRecipient('nobody@example.com', { code: 550, message: '5.1.1 No such user here' });
    const out = await smtpAdapter.call('msg.email', { to: 'nobody@example.com', subject: 's', text: 't' }, ctx);
    assert.equal(out.status, 'failed');
    assert.deepEqual([out.error!.code, out.error!.transient], ['550', false]);
    assert.match(out.error!.message, /recipient's mailbox is unavailable.*5\.1\.1 No such user here/);
  });

  it('a 4xx reply and a refused connection are transient (retried by the queue)', async () => {
    smtp.refuseNextData({ code: 451, message: '4.3.0 Try again later' });
    const deferred = await smtpAdapter.call('msg.email', { to: 'ops@example.com', subject: 's', text: 't' }, ctx);
    assert.deepEqual([deferred.status, deferred.error!.code, deferred.error!.transient], ['failed', '451', true]);
    assert.match(deferred.error!.message, /local error.*4\.3\.0 Try again later/);
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const refused = await smtpAdapter.call(
      'msg.email',
      { to: 'ops@example.com', subject: 's', text: 't' },
      { ...ctx, connector: { endpoint: `smtp://127.0.0.1:${port}` } as ProviderCallContext['connector'] },
    );
    assert.deepEqual([refused.error!.code, refused.error!.transient], ['connection', true]);
  });

  it('a wrong password is final (535), the password in no answer; bad input fails without a connection', async () => {
    const before = smtp.received.length;
    const out = await smtpAdapter.call(
      'msg.email',
      { to: 'ops@example.com', subject: 's', text: 't' },
      { ...ctx, secret: 'mailer@example.com:wrong-password' },
    );
    assert.deepEqual([out.error!.code, out.error!.transient], ['535', false]);
    assert.match(out.error!.message, /refused the connector's credential/);
    assert.ok(!JSON.stringify(out).includes('wrong-password'));
    for (const input of [{ subject: 's', text: 't' }, { to: 'not an address', text: 't' }, { to: 'ops@example.com' }]) {
      const bad = await smtpAdapter.call('msg.email', input, ctx);
      assert.deepEqual([bad.status, bad.error!.code, bad.error!.transient], ['failed', 'invalidInput', false]);
    }
    assert.equal(smtp.received.length, before);
  });

  it('an endpoint is smtp:// or smtps://, a host and port, no credentials, no private host in production', () => {
    assert.equal(checkSmtpEndpoint('smtps://smtp.example.com:465', false), 'smtps://smtp.example.com:465');
    assert.equal(checkSmtpEndpoint('smtp://127.0.0.1:2525', true), 'smtp://127.0.0.1:2525');
    for (const [endpoint, why] of [
      ['https://smtp.example.com', /smtp:\/\/host/],
      ['smtp://user:pw@smtp.example.com', /credentials/],
      ['smtp://smtp.example.com/path', /host and a port/],
      ['smtp://127.0.0.1:25', /private, loopback/],
    ] as const)
      assert.throws(() => checkSmtpEndpoint(endpoint, false), why);
  });
});
