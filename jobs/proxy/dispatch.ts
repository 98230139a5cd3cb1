import type { Deps } from '../../shared/deps.js';
import {
  type ActionRow,
  checkAction,
  connectorsWithCapability,
  enqueueAction,
  writeAction,
  type CheckedAction,
  type ConnectorRow,
} from '../bridge/index.js';
import { conflict } from '../../shared/errors.js';
import type { Db } from '../../shared/db/knex.js';
import type { MissionRow } from './repository.js';
import type { Principal } from '../../shared/schemas/auth.js';

/** The capability a message goes out with, by its channel; any other channel is a generic message. */
const CHANNEL_CAPABILITY: Record<string, string> = { sms: 'sms.send', email: 'email.send', chat: 'chat.post' };
/** A provider adapter's capability for each way a run's mission reaches a person (issue 31). */
export const MISSION_CAPABILITY: Record<string, string> = {
  voice: 'msg.voice',
  sms: 'msg.sms',
  email: 'msg.email',
  chat: 'msg.chat',
};

/**
 * The account's default connector for a capability: its one connector (not disabled) with it, its own before the
 * platform's. None: null (the mission is recorded for a person, nothing is sent). Several: 409 naming them, since
 * which one reaches the person is the caller's choice (a run's `metadata.connectorId`, a mission's `connectorId`).
 */
export async function defaultConnectorFor(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  capability: string,
): Promise<ConnectorRow | null> {
  const usable = (await connectorsWithCapability(deps.db, accountId, capability, 20)).filter(
    (c) => c.status !== 'disabled',
  );
  const own = usable.filter((c) => c.account_id === accountId);
  const candidates = own.length > 0 ? own : usable;
  if (candidates.length > 1) {
    const ids = candidates.map((c) => c.connector_id);
    throw conflict(
      `${ids.length} connectors have ${capability} (${ids.join(', ')}), so none is the default: name the one to ` +
        'use (metadata.connectorId on a run, connectorId on a mission), or disable the others',
      { capability, connectorIds: ids },
    );
  }
  return candidates[0] ?? null;
}

type Part = 'voiceCall' | 'channelMsg';

/** The parts of a mission that name a connector, each as the bridge action that sends it. */
function sends(
  voiceCall: Record<string, unknown> | null | undefined,
  channelMsg: Record<string, unknown> | null | undefined,
) {
  const out: Array<{ part: Part; connectorId: string; capability: string; input: Record<string, unknown> }> = [];
  // A part may name its capability (a run's mission: the adapter's msg.*); else the generic one of its channel.
  const named = (part: Record<string, unknown>) => (typeof part.capability === 'string' ? part.capability : null);
  if (voiceCall && typeof voiceCall.connectorId === 'string') {
    const { connectorId, capability: _c, ...input } = voiceCall;
    out.push({ part: 'voiceCall', connectorId, capability: named(voiceCall) ?? 'voice.call', input });
  }
  if (channelMsg && typeof channelMsg.connectorId === 'string') {
    const { connectorId, capability: _c, ...fields } = channelMsg;
    // A chat message goes to its Slack channel (`channel` is the adapter's word for it; here it names the medium).
    const input = named(channelMsg) === 'msg.chat' ? { ...fields, channel: fields.to, to: undefined } : fields;
    out.push({
      part: 'channelMsg',
      connectorId,
      capability: named(channelMsg) ?? CHANNEL_CAPABILITY[String(channelMsg.channel ?? '')] ?? 'messages.send',
      input,
    });
  }
  return out;
}

/**
 * Checks each part to send before the mission is written, as any bridge
 * action is checked (404 unknown connector, 409 disabled, 422 a failed
 * check), so a mission is never created with a send that cannot go out.
 */
export async function checkMissionSends(
  deps: Deps,
  principal: Principal,
  voiceCall?: Record<string, unknown> | null,
  channelMsg?: Record<string, unknown> | null,
  outreach?: Record<string, unknown>,
): Promise<CheckedAction[]> {
  const checked: CheckedAction[] = [];
  for (const send of sends(voiceCall, channelMsg)) {
    checked.push(
      await checkAction(deps, principal, {
        connectorId: send.connectorId,
        capability: send.capability,
        input: { part: send.part, ...send.input, ...(outreach ? { outreach } : {}) },
      }),
    );
  }
  return checked;
}

/**
 * Writes the mission's actions in its transaction; the input carries the mission and its callbackRef, which the
 * provider echoes back.
 */
export async function writeMissionSends(
  trx: Db,
  accountId: string,
  mission: MissionRow,
  checked: CheckedAction[],
  actor: string,
): Promise<ActionRow[]> {
  const rows: ActionRow[] = [];
  for (const c of checked) {
    const input = { ...c.request.input, proxyId: mission.id, callbackRef: mission.callback_ref };
    rows.push(
      await writeAction(
        trx,
        accountId,
        { connector: c.connector, request: { ...c.request, input, missionId: mission.id } },
        actor,
      ),
    );
  }
  return rows;
}

/** Queues them once the mission has committed. */
export async function enqueueMissionSends(deps: Pick<Deps, 'queues'>, actions: ActionRow[]): Promise<void> {
  for (const a of actions) await enqueueAction(deps, a);
}
