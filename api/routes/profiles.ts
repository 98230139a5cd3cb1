import { activateAccount, insertAccount } from '../../shared/db/accounts.js';
import { hashPassword, sha256 } from '../../shared/crypto.js';
import { conflict, notFound } from '../../shared/errors.js';
import { newId, randomSecret } from '../../shared/ids.js';
import { issueToken } from '../../shared/auth/issue-token.js';
import type { Deps } from '../../shared/deps.js';
import { sendMail } from '../../shared/mail.js';
import { DEFAULT_SCOPES, ProfileActivate, ProfileActivated, ProfileCreate, ProfileCreated } from '../../shared/schemas/auth.js';
import { defineRoute, Reply } from '../../shared/http/route-spec.js';

function activationText(name: string, activationToken: string, baseUrl: string): string {
  return [
    `Hello ${name},`,
    '',
    'Activate your awp account to lift the starter limit. Your activation token:',
    '',
    activationToken,
    '',
    `Open ${baseUrl}/v1/profiles/activate?activationToken=${activationToken}`,
    `or POST ${baseUrl}/v1/profiles/activate with {"activationToken": "<the token above>"}.`,
    '',
  ].join('\n');
}

async function activate(deps: Deps, activationToken: string) {
  const account = await activateAccount(deps.db, sha256(activationToken));
  if (!account) throw notFound('Activation token (unknown or already used)');
  return { ok: true, status: 'activated', tokenStatus: 'unlimited' };
}

export const routes = [
  defineRoute({
    method: 'POST', path: '/v1/profiles', tag: 'security', auth: 'public', summary: 'Create a developer profile and its starter token',
    body: ProfileCreate, response: { 201: ProfileCreated },
    handler: async ({ body }, deps) => {
      const accountId = newId('acct');
      const activationToken = `act_${randomSecret(24)}`;
      const passwordHash = await hashPassword(body.password);
      const issued = await deps.db.transaction(async (trx) => {
        const created = await insertAccount(trx, { id: accountId, email: body.email.trim(), name: body.name, password_hash: passwordHash, plan: 'builder', activation_hash: sha256(activationToken) });
        if (!created) throw conflict('A profile with this email already exists');
        return issueToken(trx, accountId, { name: 'starter', scopes: DEFAULT_SCOPES });
      });
      const baseUrl = deps.config.PUBLIC_BASE_URL ?? `http://localhost:${deps.config.PORT}`;
      const delivery = await sendMail(deps, { accountId, to: body.email, subject: 'Activate your awp account', text: activationText(body.name, activationToken, baseUrl) });
      return new Reply(201, {
        ok: true,
        accountId,
        token: issued.token,
        tokenId: issued.row.id,
        tokenStatus: 'limited',
        unverifiedRequestLimit: deps.config.UNVERIFIED_REQUEST_LIMIT,
        activation: { required: true, sentTo: body.email, delivery },
      });
    },
  }),
  defineRoute({
    method: 'POST', path: '/v1/profiles/activate', tag: 'security', auth: 'public', summary: 'Activate a profile: its tokens become unlimited',
    body: ProfileActivate, response: { 200: ProfileActivated },
    handler: ({ body }, deps) => activate(deps, body.activationToken),
  }),
  defineRoute({
    method: 'GET', path: '/v1/profiles/activate', tag: 'security', auth: 'public', summary: 'Activate from the link in the activation mail',
    query: ProfileActivate, response: { 200: ProfileActivated },
    handler: ({ query }, deps) => activate(deps, query.activationToken),
  }),
];
