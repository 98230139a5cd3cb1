import assert from 'node:assert/strict';
import type { Role } from '../../shared/schemas/auth.js';
import { harness } from './harness.js';

export const PASSWORD = 'member-password-1';

export const uniqueEmail = (tag = 'member') => `${tag}-${Math.random().toString(36).slice(2)}@example.com`;

/** The invitation code of the newest mail to `address` (on a line of its own). */
export async function invitationCodeFor(address: string): Promise<string> {
  const mail = await harness.deps
    .db('outbound_mails')
    .where({ to_address: address })
    .orderBy('created_at', 'desc')
    .first();
  const line = String(mail?.text_body)
    .split('\n')
    .find((l: string) => /^inv_[\w-]+$/.test(l));
  assert.ok(line, 'invitation code on a line of its own');
  return line;
}

/** Invites `email` as `role` with the inviter's token; asserts 201. */
export async function invite(token: string, role: Role, email = uniqueEmail(role)) {
  const res = await harness.call('POST', '/v1/members/invite', { token, body: { email, name: role, role } });
  assert.equal(res.status, 201, res.text);
  return { memberId: res.body.member.memberId as string, email };
}

/** Signs in to the dashboard; returns the cookie and the CSRF token (asserts 201). */
export async function signIn(email: string, password = PASSWORD, accountId?: string) {
  const res = await harness.call('POST', '/v1/session', {
    body: { email, password, ...(accountId ? { accountId } : {}) },
  });
  assert.equal(res.status, 201, res.text);
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, csrf: res.body.session.csrfToken as string };
}

/**
 * A member who accepted its invitation and signed in, with a token it made
 * for itself from the dashboard (default scopes: all its role allows).
 */
export async function activeMember(ownerToken: string, role: Role, email = uniqueEmail(role)) {
  const { memberId } = await invite(ownerToken, role, email);
  const code = await invitationCodeFor(email);
  const activated = await harness.call('POST', '/v1/members/activate', {
    body: { invitationCode: code, password: PASSWORD },
  });
  assert.equal(activated.status, 200, activated.text);
  const session = await signIn(email);
  const made = await harness.call('POST', '/v1/tokens', {
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    body: { name: `${role} token` },
  });
  assert.equal(made.status, 201, made.text);
  return {
    memberId,
    email,
    session,
    token: made.body.token as string,
    tokenId: made.body.tokenInfo.tokenId as string,
    tokenInfo: made.body.tokenInfo,
  };
}

/** The account's audit entries of an action family (`member.*`), oldest first. */
export async function auditActions(token: string, action: string) {
  const res = await harness.call('GET', `/v1/audit/log?limit=200&action=${encodeURIComponent(action)}`, { token });
  assert.equal(res.status, 200, res.text);
  return (res.body.entries as Array<Record<string, any>>).reverse();
}
