import type { Deps } from '../../shared/deps.js';
import {
  deleteSuppression,
  insertDecision,
  isSuppressed,
  listDecisions,
  listSuppressions,
  upsertSuppression,
  type DecisionRow,
  type SuppressionRow,
} from './outreach-repository.js';
import { invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { LAWFUL_BASES, type OUTREACH_CHANNELS, type OutreachEvaluate } from './compliance-schemas.js';
import {
  evaluateOutreach,
  MAX_RECIPIENTS,
  normaliseRecipient,
  recipientsIn,
  zoneOfRecipient,
  type OutreachReason,
  type OutreachRule,
} from './outreach.js';
import { isTimeZone } from '../../shared/time-zone.js';

type Db = Pick<Deps, 'db'>;

function recipientOf(raw: string, at: string): string {
  const recipient = normaliseRecipient(raw);
  if (!recipient) throw invalidPayload(`${at}: not a phone number in international form (+…) nor an email address`);
  return recipient;
}

export const decisionView = (row: DecisionRow) => ({
  decisionId: row.id,
  allowed: row.decision === 'allow',
  decision: row.decision as 'allow' | 'deny' | 'defer',
  reasons: row.reasons as OutreachReason[],
  notBefore: row.not_before ? row.not_before.toISOString() : null,
  channel: row.channel as never,
  recipient: row.recipient,
  purpose: row.purpose,
  lawfulBasis: row.lawful_basis as never,
  source: row.source,
  createdAt: row.created_at.toISOString(),
});

export const suppressionView = (row: SuppressionRow) => ({
  suppressionId: row.id,
  recipient: row.recipient,
  reason: row.reason,
  createdAt: row.created_at.toISOString(),
});

/**
 * Evaluates outreach against the account's suppressions and the rules, and records the decision whatever it is.
 * Quiet hours are checked in `recipientTimezone`, else in the phone number's country's time zone (see
 * `zoneOfRecipient`).
 */
export async function evaluateAndRecord(
  deps: Db,
  principal: Principal,
  input: OutreachEvaluate,
  source: string,
  at = '/recipient',
) {
  const recipient = recipientOf(input.recipient, at);
  if (input.recipientTimezone && !isTimeZone(input.recipientTimezone))
    throw invalidPayload(
      `${at.replace(/recipient$/, '')}recipientTimezone: ${input.recipientTimezone} is not an IANA time zone`,
    );
  const now = new Date();
  const zone = input.recipientTimezone
    ? { zone: input.recipientTimezone, from: 'given' }
    : zoneOfRecipient(recipient, now);
  const suppressed = await isSuppressed(deps.db, principal.accountId, recipient);
  const verdict = evaluateOutreach({ ...input, recipient }, suppressed, now, zone);
  const row = await insertDecision(deps.db, {
    id: newId('odc'),
    account_id: principal.accountId,
    channel: input.channel,
    recipient,
    purpose: input.purpose ?? null,
    lawful_basis: input.lawfulBasis ?? null,
    decision: verdict.decision,
    reasons: verdict.reasons,
    not_before: verdict.notBefore,
    source,
  });
  return decisionView(row);
}

/**
 * The channel a contact capability reaches a person on; null for a capability that contacts no one. `msg.chat` (a
 * provider adapter's post in the account's own workspace: a Slack channel) names no phone number or address to check.
 */
const CAPABILITY_CHANNEL: Record<string, (typeof OUTREACH_CHANNELS)[number]> = {
  'voice.call': 'call',
  'sms.send': 'sms',
  'email.send': 'email',
  'messages.send': 'message',
  'chat.post': 'message',
  'msg.voice': 'call',
  'msg.sms': 'sms',
  'msg.email': 'email',
};

const pick = <T>(value: unknown, allowed?: readonly T[]) =>
  value === undefined || (allowed && !allowed.includes(value as T)) ? undefined : (value as T);

/** A refusal that names no recorded decision: there was no recipient to evaluate, or too many. */
function refusedUnevaluated(capability: string, source: string, rule: OutreachRule, message: string) {
  const outreach = { allowed: false, decision: 'deny', reasons: [{ rule, message }], source };
  return policyViolation(`Outreach refused: ${message}`, { outreach, capability });
}

/**
 * The gate before a bridge action (or a proxy mission's send) contacts a person. It fails closed: when the
 * capability contacts people, every phone number and email address anywhere in the input (`recipientsIn`, whatever
 * the field is called) is evaluated with the input's `outreach` object, each decision recorded, and anything but
 * `allow` for any of them (a deferral too) is refused (422, the decision that refused in `details.outreach`, every one
 * in `details.decisions`). An input in which the gate finds no recipient is refused too, as is one naming more than
 * MAX_RECIPIENTS. Returns the input without `outreach`, which is for this gate and not for the provider.
 */
export async function requireOutreach(
  deps: Db,
  principal: Principal,
  capability: string,
  input: Record<string, unknown>,
  source: string,
): Promise<Record<string, unknown>> {
  const { outreach, ...rest } = input;
  const channel = CAPABILITY_CHANNEL[capability];
  if (!channel) return rest;
  const recipients = recipientsIn(rest);
  if (recipients.length === 0)
    throw refusedUnevaluated(
      capability,
      source,
      'outreach.noRecipient',
      `${capability} contacts a person, but its input names no recipient the gate can check: give a phone number ` +
        'in international form (+49…) or an email address (in any field)',
    );
  if (recipients.length > MAX_RECIPIENTS)
    throw refusedUnevaluated(
      capability,
      source,
      'outreach.tooManyRecipients',
      `${capability} input names ${recipients.length} phone numbers or email addresses; at most ${MAX_RECIPIENTS} ` +
        'are checked for one action: split it',
    );
  const o = (outreach && typeof outreach === 'object' ? outreach : {}) as Record<string, unknown>;
  const decisions = [];
  for (const recipient of recipients) {
    decisions.push(
      await evaluateAndRecord(
        deps,
        principal,
        {
          channel,
          recipient,
          purpose: typeof o.purpose === 'string' ? o.purpose : undefined,
          lawfulBasis: pick(o.lawfulBasis, LAWFUL_BASES),
          consent: pick<boolean>(o.consent, [true, false]),
          consentToCall: pick<boolean>(o.consentToCall, [true, false]),
          recipientTimezone: typeof o.recipientTimezone === 'string' ? o.recipientTimezone : undefined,
        },
        source,
        '/input/outreach/recipient',
      ),
    );
  }
  const refused = decisions.find((d) => d.decision === 'deny') ?? decisions.find((d) => d.decision === 'defer');
  if (refused) {
    throw policyViolation(
      `Outreach ${refused.decision === 'defer' ? 'deferred' : 'refused'} for ${refused.recipient}: ` +
        `${refused.reasons.map((r) => r.message).join('; ')}`,
      { outreach: refused, decisions },
    );
  }
  return rest;
}

export async function addSuppression(deps: Db, principal: Principal, body: { recipient: string; reason?: string }) {
  return suppressionView(
    await upsertSuppression(deps.db, {
      id: newId('sup'),
      account_id: principal.accountId,
      recipient: recipientOf(body.recipient, '/recipient'),
      reason: body.reason ?? null,
    }),
  );
}

export async function findSuppressions(deps: Db, principal: Principal, query: { limit?: number; cursor?: string }) {
  const { rows, nextCursor } = await listSuppressions(deps.db, principal.accountId, query.limit ?? 50, query.cursor);
  return { ok: true as const, suppressions: rows.map(suppressionView), nextCursor };
}

export async function removeSuppression(deps: Db, principal: Principal, id: string) {
  if (!(await deleteSuppression(deps.db, principal.accountId, id))) throw notFound(`Suppression ${id}`);
}

export async function findDecisions(
  deps: Db,
  principal: Principal,
  query: { decision?: string; limit?: number; cursor?: string },
) {
  const { rows, nextCursor } = await listDecisions(
    deps.db,
    principal.accountId,
    { decision: query.decision },
    query.limit ?? 50,
    query.cursor,
  );
  return { ok: true as const, decisions: rows.map(decisionView), nextCursor };
}
