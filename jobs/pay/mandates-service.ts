import type { Deps } from '../../shared/deps.js';
import { getMandate, insertMandate, listMandates, receiptsOfMandate, revokeMandate, type MandateRow, type ReceiptRow } from '../../shared/db/pay.js';
import { getTask } from '../../shared/db/tasks.js';
import { conflict, invalidPayload, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import type { MandateCreate } from '../../shared/schemas/pay.js';
import { issuerKey, verifyIssuerSignature } from './issuer.js';
import { isKnownCurrency, toMinor } from './logic.js';
import { MANDATES } from './machine.js';
import { mandateStatus } from './views.js';

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
  if (minor === null || minor <= 0) throw invalidPayload(`${path}: ${amount} is not a positive amount in whole ${currency} minor units`, { path });
  return minor;
}

/**
 * Grants a mandate on one of the caller's tasks (404 otherwise). A signed
 * mandate is stored only when the issuer's signature verifies (422
 * otherwise), together with the exact payload that was signed.
 */
export async function createMandate(deps: Deps, principal: Principal, body: MandateCreate): Promise<MandateRow> {
  const { maxSpend } = body.constraints;
  const currency = knownCurrency(maxSpend.currency, '/constraints/maxSpend/currency');
  const maxMinor = minorUnits(maxSpend.amount, currency, '/constraints/maxSpend/amount');
  if (body.expiresAt && new Date(body.expiresAt).getTime() <= Date.now()) throw invalidPayload('expiresAt must be in the future', { path: '/expiresAt' });
  if (body.issuer?.publicKey) issuerKey(body.issuer.publicKey);
  const signedPayload = verifyIssuerSignature(body);
  if (!(await getTask(deps.db, principal.accountId, body.taskId))) throw notFound(`Task ${body.taskId}`);
  return insertMandate(deps.db, {
    id: newId('mnd'),
    account_id: principal.accountId,
    task_id: body.taskId,
    currency,
    max_minor: maxMinor,
    allowed_vendors: body.constraints.allowedVendors ?? null,
    resolve_rules: body.constraints.resolveRules ?? [],
    constraints: body.constraints,
    issuer: body.issuer ? { entityId: body.issuer.entityId, ...(body.issuer.publicKey ? { publicKey: body.issuer.publicKey } : {}) } : null,
    issuer_signature: signedPayload ? body.issuer!.signature! : null,
    signed_payload: signedPayload,
    expires_at: body.expiresAt ? new Date(body.expiresAt) : null,
  });
}

export async function fetchMandate(deps: Pick<Deps, 'db'>, principal: Principal, mandateId: string): Promise<{ mandate: MandateRow; settlements: ReceiptRow[]; settlementCount: number }> {
  const mandate = await getMandate(deps.db, principal.accountId, mandateId);
  if (!mandate) throw notFound(`Mandate ${mandateId}`);
  const { rows, total } = await receiptsOfMandate(deps.db, mandate.id, SETTLEMENTS_SHOWN);
  return { mandate, settlements: rows, settlementCount: total };
}

export async function findMandates(deps: Deps, principal: Principal, query: { taskId?: string; status?: string; limit?: number; cursor?: string }) {
  return listMandates(deps.db, principal.accountId, query, query.limit ?? 50, query.cursor);
}

/** Revokes a live mandate under its row lock, so a settlement in flight either finished before or is refused after; revoked or expired is 409. */
export async function revokeMandateByClient(deps: Deps, principal: Principal, mandateId: string, reason?: string): Promise<MandateRow> {
  return deps.db.transaction(async (trx) => {
    const row = await getMandate(trx, principal.accountId, mandateId, true);
    if (!row) throw notFound(`Mandate ${mandateId}`);
    const status = mandateStatus(row);
    if (!MANDATES.canMove(status, 'revoked')) throw conflict(`Mandate ${mandateId} is already ${status}`, { from: status, to: 'revoked', allowed: MANDATES.allowed(status) });
    return revokeMandate(trx, row.id, reason ?? null);
  });
}
