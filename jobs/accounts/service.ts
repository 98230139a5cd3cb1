import { activateAccount, getToken, insertAccount, listTokens, revokeToken, type TokenRow } from './repository.js';
import { issueToken } from './issue-token.js';
import { forgetPrincipals } from './authenticate.js';
import { hashPassword, sha256 } from '../../shared/crypto.js';
import type { Deps } from '../../shared/deps.js';
import { conflict, forbidden, notFound } from '../../shared/errors.js';
import { newId, randomSecret } from '../../shared/ids.js';
import { sendMail } from '../../shared/mail.js';
import { DEFAULT_SCOPES, TRANSPORTS, type Principal, type Transport } from '../../shared/schemas/auth.js';
import { actorOf, recordAudit } from '../audit/index.js';
import { tokenManagementRefusal } from './logic.js';
import { tokenHolder } from './members-repository.js';

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

/**
 * Sends (or stores) the activation mail of a pending account; the dashboard's "resend" sends a new code through it too.
 */
export async function activationMail(
  deps: Deps,
  to: { accountId: string; email: string; name: string },
  activationToken: string,
) {
  const baseUrl = deps.config.PUBLIC_BASE_URL ?? `http://localhost:${deps.config.PORT}`;
  const delivery = await sendMail(deps, {
    accountId: to.accountId,
    to: to.email,
    subject: 'Activate your awp account',
    text: activationText(to.name, activationToken, baseUrl),
  });
  if (delivery !== 'smtp' && deps.config.NODE_ENV !== 'production') {
    // A mail "console backend" for local use: without SMTP the link would only be in Postgres. This one line is the
    // only
    // place a log carries an activation token, and never in production.
    deps.log.info(
      `development: activation link for ${to.email} (no mail was sent): ` +
        `${baseUrl}/v1/profiles/activate?activationToken=${activationToken}`,
    );
  }
  return delivery;
}

/**
 * A pending builder account with its starter token (409 when the email is
 * taken), then the activation mail. The mail goes out after commit: the
 * account exists whether or not it could be sent.
 */
export async function createProfile(deps: Deps, input: { email: string; name: string; password: string }) {
  const accountId = newId('acct');
  const activationToken = `act_${randomSecret(24)}`;
  const passwordHash = await hashPassword(input.password);
  const issued = await deps.db.transaction(async (trx) => {
    const created = await insertAccount(trx, {
      id: accountId,
      email: input.email.trim(),
      name: input.name,
      password_hash: passwordHash,
      plan: 'builder',
      activation_hash: sha256(activationToken),
    });
    if (!created) throw conflict('A profile with this email already exists');
    const starter = await issueToken(trx, accountId, { name: 'starter', scopes: DEFAULT_SCOPES });
    await recordAudit(trx, { ...tokenEntry(starter.row, 'token.created'), accountId, memberId: starter.row.member_id });
    return starter;
  });
  const delivery = await activationMail(deps, { accountId, email: input.email, name: input.name }, activationToken);
  return { accountId, token: issued.token, tokenId: issued.row.id, activationSentTo: input.email, delivery };
}

/** Activates the account of an activation token; an unknown or used one is 404. */
export async function activateProfile(deps: Deps, activationToken: string): Promise<void> {
  const account = await activateAccount(deps.db, sha256(activationToken));
  if (!account) throw notFound('Activation token (unknown or already used)');
  await forgetPrincipals(deps, { accountId: account.id });
}

const holds = (principal: Principal, scope: string) =>
  principal.scopes.includes(scope) || principal.scopes.includes('admin');
const transportsOf = (principal: Principal): Transport[] => principal.transports ?? [...TRANSPORTS];

/** The entry of a token change; names and scopes only, never the secret or its hash. */
function tokenEntry(row: TokenRow, action: string, details: Record<string, unknown> = {}) {
  return {
    accountId: row.account_id,
    action,
    resourceType: 'token',
    resourceId: row.id,
    details: { name: row.name, memberId: row.member_id, scopes: row.scopes, ...details },
  };
}

/** Owners and admins (members:manage) see every token of the account; other members only their own. */
const seesAll = (principal: Principal) => !principal.memberId || holds(principal, 'members:manage');

export async function listAccountTokens(deps: Deps, principal: Principal): Promise<TokenRow[]> {
  return listTokens(deps.db, principal.accountId, seesAll(principal) ? undefined : principal.memberId);
}

/**
 * A new token of the calling member; it can only grant scopes and transports
 * its creator holds (403 otherwise), and defaults to the creator's non-admin
 * scopes and its transports. The creator's scopes are already within its
 * role, so the token is too (and stays so: authentication caps it by the
 * member's role of the moment).
 */
export async function createToken(
  deps: Deps,
  principal: Principal,
  input: { name?: string; scopes?: string[]; transports?: Transport[] },
): Promise<{ token: string; row: TokenRow }> {
  const scopes = input.scopes ?? DEFAULT_SCOPES.filter((s) => holds(principal, s));
  const escalation = scopes.filter((s) => !holds(principal, s));
  if (escalation.length > 0) throw forbidden(`A token cannot grant scopes its creator lacks: ${escalation.join(', ')}`);
  const transports = input.transports ?? transportsOf(principal);
  const wider = transports.filter((t) => !transportsOf(principal).includes(t));
  if (wider.length > 0) throw forbidden(`A token cannot grant transports its creator lacks: ${wider.join(', ')}`);
  return deps.db.transaction(async (trx) => {
    const issued = await issueToken(trx, principal.accountId, {
      name: input.name ?? 'api',
      scopes,
      transports,
      memberId: principal.memberId,
    });
    await recordAudit(trx, { ...tokenEntry(issued.row, 'token.created'), ...actorOf(principal) });
    return issued;
  });
}

/** One token the caller may see (its own, or any with members:manage); 404 otherwise, as for another account's. */
export async function fetchToken(deps: Pick<Deps, 'db'>, principal: Principal, tokenId: string): Promise<TokenRow> {
  const row = await getToken(deps.db, principal.accountId, tokenId);
  if (!row || !(seesAll(principal) || row.member_id === principal.memberId)) throw notFound(`Token ${tokenId}`);
  return row;
}

/**
 * Managing a token needs every scope (and transport) it holds: otherwise `tokens:manage`
 * alone would be a way to obtain (rotate) or switch off (revoke) a more
 * powerful token. A token may always revoke itself. Another member's token
 * also needs the rank to govern that member (an admin does not manage an owner's).
 */
async function assertOutranks(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  target: TokenRow,
  action: 'rotate' | 'revoke',
): Promise<void> {
  if (action === 'revoke' && target.id === principal.tokenId) return;
  const missing = [
    ...target.scopes.filter((s) => !holds(principal, s)),
    ...target.transports.filter((t) => !transportsOf(principal).includes(t)).map((t) => `transport ${t}`),
  ];
  if (missing.length > 0)
    throw forbidden(
      `To ${action} token ${target.id} the calling token must hold all of its scopes and transports; it ` +
        `lacks ${missing.join(', ')}`,
    );
  if (!principal.memberId || target.member_id === principal.memberId) return;
  const holder = await tokenHolder(deps.db, target.member_id);
  const refusal = holder && tokenManagementRefusal(principal, holder);
  if (refusal) throw forbidden(`Cannot ${action} token ${target.id}: ${refusal}`);
}

// A token's scopes and transports never change after it is issued, so checking them before the write's transaction is
// safe.
async function activeToken(deps: Pick<Deps, 'db'>, principal: Principal, tokenId: string): Promise<TokenRow> {
  const row = await fetchToken(deps, principal, tokenId).catch(() => null);
  if (!row || row.status !== 'active') throw notFound(`Active token ${tokenId}`);
  return row;
}

/** A new secret with the same name, scopes and member; the old token is revoked in the same transaction. */
export async function rotateToken(
  deps: Deps,
  principal: Principal,
  tokenId: string,
): Promise<{ token: string; row: TokenRow }> {
  await assertOutranks(deps, principal, await activeToken(deps, principal, tokenId), 'rotate');
  return deps.db
    .transaction(async (trx) => {
      // The conditional revoke decides a race between two rotations: the loser finds no active token.
      const old = await revokeToken(trx, principal.accountId, tokenId);
      if (!old) throw notFound(`Active token ${tokenId}`);
      const issued = await issueToken(trx, principal.accountId, {
        name: old.name,
        scopes: old.scopes,
        transports: old.transports,
        rotatedFrom: old.id,
        memberId: old.member_id,
      });
      const entry = tokenEntry(old, 'token.rotated', { rotatedTo: issued.row.id });
      await recordAudit(trx, { ...entry, ...actorOf(principal) });
      return issued;
    })
    .then(async (issued) => {
      await forgetPrincipals(deps, { tokenId });
      return issued;
    });
}

export async function revokeAccountToken(deps: Deps, principal: Principal, tokenId: string): Promise<TokenRow> {
  await assertOutranks(deps, principal, await activeToken(deps, principal, tokenId), 'revoke');
  const row = await deps.db.transaction(async (trx) => {
    const revoked = await revokeToken(trx, principal.accountId, tokenId);
    if (!revoked) throw notFound(`Active token ${tokenId}`);
    await recordAudit(trx, { ...tokenEntry(revoked, 'token.revoked'), ...actorOf(principal) });
    return revoked;
  });
  await forgetPrincipals(deps, { tokenId });
  return row;
}
