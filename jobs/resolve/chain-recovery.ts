import type { Static } from '@sinclair/typebox';
import type { ChainTraceResult } from './chain-schemas.js';

/**
 * The recovery assessment of a trace: what can still be frozen or reported,
 * where, how urgently and how confidently, each action citing the hops it
 * rests on. Funds at a labelled exchange can be frozen if its compliance
 * team acts before they are withdrawn, so time since the last hop sets the
 * urgency. Pure.
 */

type Result = Static<typeof ChainTraceResult>;
type Assessment = Result['recoveryAssessment'];
const DAY_MS = 86_400_000;

export function assessRecovery(
  hops: Result['hops'],
  reached: Result['reached'],
  limits: string[],
  now = Date.now(),
): Assessment {
  if (hops.length === 0)
    return { summary: 'no transfers were found to follow', urgency: 'low', confidence: 0.2, actions: [] };
  const actions: Assessment['actions'] = [];
  for (const r of reached) {
    if (!r.label) continue;
    const { kind, name } = r.label;
    if (kind === 'exchange')
      actions.push({
        action: 'requestFreeze',
        where: name,
        detail:
          `ask ${name}'s compliance team to freeze the deposit at ${r.address}, quoting the transaction hashes ` +
          `of the hops into it and a police or IC3 report number`,
        citesHops: r.viaHops,
      });
    else if (kind === 'sanctioned')
      actions.push({
        action: 'reportSanctioned',
        where: name,
        detail:
          `${r.address} is labelled sanctioned (${name}): report to the sanctions authority (OFAC in the US) ` +
          `and do not transact with it`,
        citesHops: r.viaHops,
      });
    else if (kind === 'mixer')
      actions.push({
        action: 'reportToAuthorities',
        where: name,
        detail:
          `funds entered the mixer ${name} at ${r.address}: tracing past it is unreliable and recovery ` +
          `unlikely; report the hops to the police and IC3`,
        citesHops: r.viaHops,
      });
    else if (kind === 'knownScam')
      actions.push({
        action: 'reportToAuthorities',
        where: name,
        detail: `${r.address} is a known scam address (${name}): report the hops to IC3 (ic3.gov) or the local police`,
        citesHops: r.viaHops,
      });
  }
  const unlabelled = reached.filter((r) => !r.label);
  if (!actions.some((a) => a.action === 'reportToAuthorities'))
    actions.push({
      action: 'reportToAuthorities',
      where: 'IC3 (ic3.gov) or the local police',
      detail: 'report the theft with every hop below, so exchanges can be asked to act on it',
      citesHops: hops.map((h) => h.hopId),
    });
  if (unlabelled.length > 0)
    actions.push({
      action: 'monitor',
      where: unlabelled
        .slice(0, 5)
        .map((r) => r.address)
        .join(', '),
      detail: `${unlabelled.length} address(es) the funds reached have no label: watch them for a move to an exchange`,
      citesHops: [...new Set(unlabelled.flatMap((r) => r.viaHops))],
    });

  const last = Math.max(...hops.map((h) => (h.timestamp ? Date.parse(h.timestamp) : now)));
  const age = now - last;
  const freeze = actions.some((a) => a.action === 'requestFreeze');
  const urgency: Assessment['urgency'] = freeze
    ? age < 3 * DAY_MS
      ? 'critical'
      : 'high'
    : age < 7 * DAY_MS
      ? 'medium'
      : 'low';
  const confidence =
    Math.round(Math.min(0.9, 0.4 + (reached.some((r) => r.label) ? 0.3 : 0) + (limits.length === 0 ? 0.2 : 0)) * 100) /
    100;
  const summary = freeze
    ? `funds reached ${actions
        .filter((a) => a.action === 'requestFreeze')
        .map((a) => a.where)
        .join(', ')}: a freeze can still be requested (${urgency})`
    : `no labelled exchange among the ${reached.length} address(es) reached: report, and watch them`;
  return { summary, urgency, confidence, actions };
}
