import type { Deps } from '../../shared/deps.js';
import { type ActionRow, checkAction, enqueueAction, writeAction, type CheckedAction } from '../bridge/index.js';
import type { Db } from '../../shared/db/knex.js';
import type { MissionRow } from './repository.js';
import type { Principal } from '../../shared/schemas/auth.js';

/** The capability a message goes out with, by its channel; any other channel is a generic message. */
const CHANNEL_CAPABILITY: Record<string, string> = { sms: 'sms.send', email: 'email.send', chat: 'chat.post' };

type Part = 'voiceCall' | 'channelMsg';

/** The parts of a mission that name a connector, each as the bridge action that sends it. */
function sends(
  voiceCall: Record<string, unknown> | null | undefined,
  channelMsg: Record<string, unknown> | null | undefined,
) {
  const out: Array<{ part: Part; connectorId: string; capability: string; input: Record<string, unknown> }> = [];
  if (voiceCall && typeof voiceCall.connectorId === 'string') {
    const { connectorId, ...input } = voiceCall;
    out.push({ part: 'voiceCall', connectorId, capability: 'voice.call', input });
  }
  if (channelMsg && typeof channelMsg.connectorId === 'string') {
    const { connectorId, ...input } = channelMsg;
    out.push({
      part: 'channelMsg',
      connectorId,
      capability: CHANNEL_CAPABILITY[String(channelMsg.channel ?? '')] ?? 'messages.send',
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
): Promise<CheckedAction[]> {
  const checked: CheckedAction[] = [];
  for (const send of sends(voiceCall, channelMsg)) {
    checked.push(
      await checkAction(deps, principal, {
        connectorId: send.connectorId,
        capability: send.capability,
        input: { part: send.part, ...send.input },
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
