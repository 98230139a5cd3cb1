import { hasRunOfTask } from '../../shared/db/runs.js';
import type { Deps } from '../../shared/deps.js';
import {
  getMandate,
  insertMandate,
  listMandates,
  receiptsOfMandate,
  revokeMandate,
  type MandateRow,
  type ReceiptRow,
} from './repository.js';
import { getTask } from '../tasks/index.js';
import { conflict, forbidden, invalidPayload, notFound } from '../../shared/errors.js';
import type { Db } from '../../shared/db/knex.js';
import { authorizeApproval } from '../approvals/index.js';
import { activeIssuerKeys } from './issuers-repository.js';
import { jwkKey } from './issuers-service.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { MandateCreate } from './mandate-schemas.js';
import { verifyIssuerSignature } from './issuer.js';
import { isKnownCurrency, toMinor } from './logic.js';
import { MANDATES } from './machine.js';
import { mandateStatus } from './views.js';
import { checkedBacking } from './backing.js';

/** Receipts a mandate's view lists (newest first); `settlementCount` says how many there are in all. */
const SETTLEMENTS_SHOWN = 200;

/** A currency code ICU knows (400 naming the field otherwise). */
export function knownCurrency(code: string, path: string): string {
  if (!isKnownCurrency(code)) throw invalidPayload(`${path}: ${code} is not an ISO 4217 currency`, { path });
  return code;
}

/** `amount` in the currency's minor units: 400 when it is finer than the currency allows. */
export function minorUnits(amount: number, currency: string, path: string): number {
  const minor = toMinor(amount, currency);
  if (minor === null || minor <= 0)
    throw invalidPayload(`${path}: ${amount} is not a positive amount in whole ${currency} minor units`, { path });
  return minor;
}

/**
 * Grants a mandate on one of the caller's tasks (404 otherwise). A mandate
 * is an approval to pay: either an issuer the account registered signed it
 * (verified against the registered key, 422 otherwise; the caller needs
 * pay:write), or it is issued as an approval by a member holding
 * approvals:write who did not submit a run of the task waiting for it (409
 * selfApproval, unless the policy allows `mandate`). Who issued it is kept.
 */
export async function createMandate(deps: Deps, principal: Principal, body: MandateCreate): Promise<MandateRow> {
  const { maxSpend } = body.constraints;
  const currency = knownCurrency(maxSpend.currency, '/constraints/maxSpend/currency');
  const maxMinor = minorUnits(maxSpend.amount, currency, '/constraints/maxSpend/amount');
  if (body.expiresAt && new Date(body.expiresAt).getTime() <= Date.now())
    throw invalidPayload('expiresAt must be in the future', { path: '/expiresAt' });
  const issuers =
    body.issuer?.signature !== undefined
      ? await activeIssuerKeys(deps.db, principal.accountId, body.issuer.entityId)
      : [];
  const signed = verifyIssuerSignature(
    body,
    issuers.map((i) => jwkKey(i.public_key)),
  );
  if (signed) assertAnyScope(principal, ['pay:write', 'approvals:write']);
  if (!(await getTask(deps.db, principal.accountId, body.taskId))) throw notFound(`Task ${body.taskId}`);
  // Asked of Stripe before the transaction: no row lock waits on the network.
  const backing = body.provider ? await checkedBacking(deps, principal, body.provider) : null;
  const id = newId('mnd');
  return deps.db.transaction(async (trx) => {
    const issuer = signed ? issuers[signed.key]! : null;
    const approvedBy = issuer
      ? null
      : (
          await authorizeApproval(
            deps,
            trx,
            principal,
            {
              resourceType: 'mandate',
              resourceId: id,
              gate: 'mandate',
              details: { taskId: body.taskId },
              submittedBy: await waitingSubmitter(trx, principal, body.taskId),
            },
            true,
          )
        ).approvedBy;
    return insertMandate(trx, {
      id,
      account_id: principal.accountId,
      task_id: body.taskId,
      currency,
      max_minor: maxMinor,
      allowed_vendors: body.constraints.allowedVendors ?? null,
      resolve_rules: body.constraints.resolveRules ?? [],
      constraints: body.constraints,
      issuer: issuer
        ? { entityId: issuer.entity_id, publicKey: issuer.public_key.x }
        : body.issuer
          ? { entityId: body.issuer.entityId }
          : null,
      issuer_signature: signed ? body.issuer!.signature! : null,
      signed_payload: signed?.payload ?? null,
      expires_at: body.expiresAt ? new Date(body.expiresAt) : null,
      approved_by: approvedBy,
      issuer_id: issuer?.id ?? null,
      provider_backing: backing,
    });
  });
}

/**
 * The caller, when a run of the task they submitted waits for a payment approval: issuing its mandate would approve
 * their own run.
 */
async function waitingSubmitter(db: Db, principal: Principal, taskId: string): Promise<string | null> {
  if (!principal.memberId) return null;
  const own = await hasRunOfTask(db, principal.accountId, taskId, {
    status: 'awaitingApproval',
    submittedBy: principal.memberId,
  });
  return own ? principal.memberId : null;
}

function assertAnyScope(principal: Principal, scopes: string[]): void {
  if (!scopes.some((s) => principal.scopes.includes(s)) && !principal.scopes.includes('admin')) {
    throw forbidden(`Creating a signed mandate needs one of ${scopes.join(', ')}`);
  }
}

export async function fetchMandate(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  mandateId: string,
): Promise<{ mandate: MandateRow; settlements: ReceiptRow[]; settlementCount: number }> {
  const mandate = await getMandate(deps.db, principal.accountId, mandateId);
  if (!mandate) throw notFound(`Mandate ${mandateId}`);
  const { rows, total } = await receiptsOfMandate(deps.db, mandate.id, SETTLEMENTS_SHOWN);
  return { mandate, settlements: rows, settlementCount: total };
}

export async function findMandates(
  deps: Deps,
  principal: Principal,
  query: { taskId?: string; status?: string; limit?: number; cursor?: string },
) {
  return listMandates(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
}

/**
 * Revokes a live mandate under its row lock, so a settlement in flight either finished before or is refused after;
 * revoked or expired is 409.
 */
export async function revokeMandateByClient(
  deps: Deps,
  principal: Principal,
  mandateId: string,
  reason?: string,
): Promise<MandateRow> {
  return deps.db.transaction(async (trx) => {
    const row = await getMandate(trx, principal.accountId, mandateId, true);
    if (!row) throw notFound(`Mandate ${mandateId}`);
    const status = mandateStatus(row);
    if (!MANDATES.canMove(status, 'revoked'))
      throw conflict(`Mandate ${mandateId} is already ${status}`, {
        from: status,
        to: 'revoked',
        allowed: MANDATES.allowed(status),
      });
    return revokeMandate(trx, row.id, reason ?? null);
  });
}
