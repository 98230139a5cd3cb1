import type { Deps } from '../../shared/deps.js';
import type { Db } from '../../shared/db/knex.js';
import { AppError } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import {
  checkAction,
  connectorsWithCapability,
  enqueueAction,
  getAction,
  getConnector,
  writeAction,
  type ActionRow,
} from '../bridge/index.js';
import { pages, statusText } from './logic.js';
import type { appendTimeline, IncidentRow } from './repository.js';

/**
 * What an incident sends out (a PagerDuty page, a chat status update) is a bridge action written in the transaction
 * of the change it reports, with an id derived from the incident (`bac_<incident>_page`, `…_c<n>`): the change and
 * its action commit together or not at all, a retried request finds the action it made instead of making another,
 * and the bridge sends each action once (its id is the provider's idempotency key; PagerDuty also deduplicates by
 * `dedup_key`). The action is queued after the commit; one whose job was lost is put back by the `bridge.actions`
 * sweep. The actions go through the bridge's own checks (policy, connector, references) like any other.
 */

/** Who sends: the service itself, for the account, with the one scope a connector call needs (as inbox notices). */
const sender = (accountId: string): Principal => ({
  accountId,
  tokenId: 'incident:notify',
  scopes: ['bridge:write'],
  plan: 'team',
  activated: true,
});

type EffectOutcome = { sent: ActionRow; fresh: boolean } | { refused: string } | { none: string };

/** The account's connector for `capability`: the one named (when usable), else the newest usable one. */
async function connectorFor(deps: Deps, accountId: string, capability: string, named?: string | null) {
  if (named) {
    const c = await getConnector(deps.db, accountId, named);
    return c && c.status !== 'disabled' && (c.caps as string[]).includes(capability) ? c.connector_id : null;
  }
  const usable = (await connectorsWithCapability(deps.db, accountId, capability, 10)).filter(
    (c) => c.status !== 'disabled',
  );
  return usable[0]?.connector_id ?? null;
}

/**
 * Writes the action `id` in `trx` unless it exists; `queue` collects the new ones for `queueAfterCommit`. A refusal
 * by the bridge's checks writes nothing and says why.
 */
async function writeEffect(
  deps: Deps,
  trx: Db,
  queue: ActionRow[],
  e: { accountId: string; id: string; capability: 'incident.page' | 'msg.chat'; input: Record<string, unknown> },
  named?: string | null,
): Promise<EffectOutcome> {
  const existing = await getAction(trx, e.accountId, e.id);
  if (existing) return { sent: existing, fresh: false };
  const connectorId = await connectorFor(deps, e.accountId, e.capability, named);
  if (!connectorId)
    return { none: named ? `connector ${named} cannot do ${e.capability}` : `no ${e.capability} connector` };
  try {
    const checked = await checkAction(deps, sender(e.accountId), {
      connectorId,
      capability: e.capability,
      input: e.input,
    });
    const row = await writeAction(trx, e.accountId, checked, 'incident:notify', e.id);
    queue.push(row);
    return { sent: row, fresh: true };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return { refused: err.message };
    throw err;
  }
}

/** Queues the actions a committed change wrote (a lost enqueue is put back by the bridge's sweep). */
export async function queueAfterCommit(deps: Deps, rows: ActionRow[]): Promise<void> {
  for (const row of rows)
    await enqueueAction(deps, row).catch((err: Error) =>
      deps.log.warn({ actionId: row.id, err: err.message }, 'incident action not queued; the bridge sweep will'),
    );
}

export type Entry = Parameters<typeof appendTimeline>[1][number];
const short = (id: string) => id.replace(/^inc_/, '');
export const entry = (row: IncidentRow, kind: string, text: string, actor: string | null, extra: Partial<Entry> = {}) =>
  ({ incident_id: row.id, account_id: row.account_id, at: new Date(), kind, text, actor, ...extra }) as Entry;

/** One change under way: the actions it wrote (queued after commit) and its timeline. */
export interface Change {
  deps: Deps;
  trx: Db;
  queue: ActionRow[];
  entries: Entry[];
}

function effectEntry(row: IncidentRow, kind: 'page' | 'chat', what: string, out: EffectOutcome): Entry | null {
  if ('sent' in out)
    return out.fresh
      ? entry(row, kind, `${what} (bridge action ${out.sent.id} via ${out.sent.connector_id})`, 'incident')
      : null;
  const reason = 'refused' in out ? out.refused : out.none;
  return entry(row, kind, `${what}: not sent, ${reason}`, 'incident');
}

/** Posts the incident's current status to its chat channel, once per update (`chat_seq` numbers them). */
export async function postStatus(c: Change, row: IncidentRow, note: string | null): Promise<IncidentRow> {
  if (!row.chat) return row;
  const seq = row.chat_seq + 1;
  const base = c.deps.config.PUBLIC_BASE_URL ?? `http://localhost:${c.deps.config.PORT}`;
  const text = statusText(row, note, `${base}/v1/incidents/${row.id}`);
  const out = await writeEffect(
    c.deps,
    c.trx,
    c.queue,
    {
      accountId: row.account_id,
      id: `bac_${short(row.id)}_c${seq}`,
      capability: 'msg.chat',
      input: { channel: row.chat.channel, text },
    },
    row.chat.connectorId,
  );
  const e = effectEntry(row, 'chat', `status ${row.status} posted to ${row.chat.channel}`, out);
  if (e) c.entries.push(e);
  return 'sent' in out ? { ...row, chat_seq: seq } : row;
}

/** PagerDuty: the trigger once per incident; acknowledge and resolve follow it when it paged. */
export async function page(
  c: Change,
  row: IncidentRow,
  action: 'trigger' | 'acknowledge' | 'resolve',
): Promise<IncidentRow> {
  if (action === 'trigger' && (row.page_action_id || !pages(row.severity))) return row;
  if (action !== 'trigger' && !row.page_action_id) return row;
  const suffix = { trigger: 'page', acknowledge: 'ack', resolve: 'resolve' }[action];
  const pdSeverity = { sev1: 'critical', sev2: 'error', sev3: 'warning', sev4: 'info' }[row.severity] ?? 'error';
  const out = await writeEffect(c.deps, c.trx, c.queue, {
    accountId: row.account_id,
    id: `bac_${short(row.id)}_${suffix}`,
    capability: 'incident.page',
    input: {
      action,
      dedupKey: `awp-${row.id}`,
      ...(action === 'trigger'
        ? { summary: row.title, severity: pdSeverity, source: 'awp', component: row.services[0], class: row.severity }
        : {}),
    },
  });
  const e = effectEntry(row, 'page', action === 'trigger' ? 'paged through PagerDuty' : `PagerDuty ${action}`, out);
  if (e) c.entries.push(e);
  return action === 'trigger' && 'sent' in out ? { ...row, page_action_id: out.sent.id } : row;
}
