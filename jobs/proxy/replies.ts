import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { normalizePhone } from '../../shared/phone.js';
import { appendReply, getMission, liveMissionsContacting, type MissionRow } from './repository.js';
import { missionStatusFor, parseReply, type ParsedReply } from './logic.js';
import { LIVE_MISSION_STATUSES } from './machine.js';
import { endMission } from './outcome.js';
import type { ProxyOutcome } from './schemas.js';

/** A reply from outside, as channels hands it over once its callback was verified and stored. */
export interface InboundReply {
  /** The mission the reply answers, when its callback named the message it answers (a call's SID, a thread). */
  missionId: string | null;
  connectorId: string;
  channel: string | null;
  from: string;
  text: string;
  callbackId: string;
}

/** Proof items a reply's own words are: what was said is the transcript. */
const TRANSCRIPT_ITEMS = new Set(['messageTranscript', 'callSummary', 'transcript', 'reply']);

/** The outcome an unambiguous reply gives the mission, or why it cannot give one (a person then judges it). */
function outcomeOf(mission: MissionRow, parsed: ParsedReply, text: string): ProxyOutcome | { why: string } {
  const untold = mission.proof_req.filter((item) => !TRANSCRIPT_ITEMS.has(item));
  if (untold.length > 0)
    return { why: `the mission requires proof a reply cannot carry (${untold.join(', ')}): a person completes it` };
  const yes = parsed.answer === 'yes';
  return {
    status: yes ? 'confirmedSuccess' : 'providerUnavailable',
    note: text.slice(0, 4000),
    availability: {
      status: yes ? 'available' : 'unavailable',
      ...(parsed.availableAt ? { availableAt: parsed.availableAt } : {}),
      ...(parsed.price ? { price: parsed.price } : {}),
    },
    proof: Object.fromEntries(mission.proof_req.map((item) => [item, text])),
  };
}

/** The mission a reply answers: the one named, else the newest live one that contacted its sender. */
async function missionOf(deps: Pick<Deps, 'db'>, accountId: string, reply: InboundReply) {
  if (reply.missionId) return getMission(deps.db, accountId, reply.missionId);
  const address = normalizePhone(reply.from) ?? reply.from.trim().toLowerCase();
  const [newest] = await liveMissionsContacting(deps.db, accountId, address, LIVE_MISSION_STATUSES, 1);
  return newest ?? null;
}

/**
 * A person's reply to a mission's dispatch (issue 31): attached to the mission, read (`parseReply`: yes or no, when,
 * how much), and when it is unambiguous the mission ends through the outcome path (`endMission`), which resumes the
 * run waiting on it exactly once. An ambiguous reply, or one the outcome path refuses (proof it cannot carry, a
 * provider to verify it cannot name), leaves the mission open with the reply and the reason on it.
 */
export async function receiveReply(
  deps: Deps,
  accountId: string,
  reply: InboundReply,
): Promise<Record<string, unknown>> {
  const found = await missionOf(deps, accountId, reply);
  if (!found) return { result: 'noMission', reason: `no live mission contacted ${reply.from}` };
  if (!(LIVE_MISSION_STATUSES as readonly string[]).includes(found.status))
    return { result: 'missionClosed', proxyId: found.id, missionStatus: found.status };
  const parsed = parseReply(reply.text, new Date());
  const outcome = parsed.ambiguous
    ? { why: 'the reply says neither a clear yes nor a clear no: a person judges it' }
    : outcomeOf(found, parsed, reply.text);
  const attached = {
    at: new Date().toISOString(),
    channel: reply.channel,
    from: reply.from,
    text: reply.text.slice(0, 4000),
    connectorId: reply.connectorId,
    callbackId: reply.callbackId,
    parsed,
  };
  if ('why' in outcome) {
    await deps.db.transaction(async (trx) => {
      await getMission(trx, accountId, found.id, true);
      await appendReply(trx, found.id, { ...attached, settled: false, why: outcome.why });
    });
    return { result: 'replyAttached', proxyId: found.id, parsed, reason: outcome.why };
  }
  try {
    const ended = await endMission(deps, accountId, found.id, {
      to: missionStatusFor(outcome.status),
      actor: `connector:${reply.connectorId}`,
      outcome,
    });
    await appendReply(deps.db, found.id, { ...attached, settled: true });
    return {
      result: 'missionResolved',
      proxyId: found.id,
      missionStatus: ended.mission.status,
      outcome: outcome.status,
      runResumed: ended.run?.resumed ?? false,
      parsed,
    };
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    await appendReply(deps.db, found.id, { ...attached, settled: false, why: err.message });
    return { result: 'replyAttached', proxyId: found.id, parsed, reason: err.message };
  }
}
