import type { Deps } from '../../shared/deps.js';
import type { CheckedAction } from '../bridge/index.js';
import { requireRunEffect } from '../orchestrator/index.js';
import type { StepInput } from '../step.js';
import { checkMissionSends, defaultConnectorFor, MISSION_CAPABILITY } from './dispatch.js';

export interface StepSends {
  voiceCall: Record<string, unknown> | null;
  channelMsg: Record<string, unknown> | null;
  checked: CheckedAction[];
}

const record = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * How a run's mission reaches the person (issue 31): each part (the call, the message) through the connector the run
 * names (`metadata.connectorId`) or the account's default connector for its capability (`msg.voice`, `msg.sms`,
 * `msg.email`, `msg.chat`; see defaultConnectorFor), checked as every bridge action is (the run's grant, preflight,
 * policy, and the outreach gate with `metadata.outreach` and the run's consentToCall) before the mission is written.
 * A part without a recipient or without a connector is not sent: the person does it. A refused check, or several
 * connectors and none named, fails the step with the reason.
 */
export async function planStepSends(
  deps: Deps,
  input: StepInput,
  planned: { voiceCall: Record<string, unknown> | null; channelMsg: Record<string, unknown> | null },
  consentToCall: boolean,
): Promise<StepSends> {
  const named = typeof input.metadata.connectorId === 'string' ? input.metadata.connectorId : null;
  const via = async (capability: string) =>
    named ?? (await defaultConnectorFor(deps, input.accountId, capability))?.connector_id ?? null;
  let { voiceCall, channelMsg } = planned;
  if (voiceCall?.phone) {
    const connectorId = await via(MISSION_CAPABILITY.voice!);
    if (connectorId) voiceCall = { ...voiceCall, connectorId, capability: MISSION_CAPABILITY.voice };
  }
  const capability = MISSION_CAPABILITY[String(channelMsg?.channel ?? '')];
  if (channelMsg?.to && capability) {
    const connectorId = await via(capability);
    if (connectorId) channelMsg = { ...channelMsg, connectorId, capability };
  }
  if (!voiceCall?.connectorId && !channelMsg?.connectorId) return { voiceCall, channelMsg, checked: [] };
  // The run acts within its grant: without bridge:write nothing is sent, and the step says so.
  const principal = await requireRunEffect(deps, input, 'bridge.action');
  const outreach = { ...record(input.metadata.outreach), ...(consentToCall ? { consentToCall: true } : {}) };
  const checked = await checkMissionSends(deps, principal, voiceCall, channelMsg, outreach);
  return { voiceCall, channelMsg, checked };
}
