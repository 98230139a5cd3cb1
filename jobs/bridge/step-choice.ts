import type { Deps } from '../../shared/deps.js';
import type { StepInput } from '../step.js';
import { connectorsWithCapability, type ConnectorRow } from './connectors-repository.js';
import {
  CHANNEL_CAPABILITIES,
  channelInput,
  readStepRequest,
  recipientFor,
  type Recipient,
  type StepChannel,
} from './step-logic.js';

/** Why the step sends nothing, for the run's result and its open question. */
export interface RestReason {
  reason: string;
  message: string;
  [field: string]: unknown;
}

/** What the step will ask for: a capability of one of the account's connectors, with the provider's input. */
export interface StepPlan {
  capability: string;
  connector: ConnectorRow;
  channel: StepChannel | null;
  recipient: Recipient | null;
  message: string | null;
  input: Record<string, unknown>;
  /** The request's outreach facts (lawful basis, consent, time zone) for the gate; never sent to the provider. */
  outreach: Record<string, unknown> | null;
  /** Connectors that had the capability and were not chosen, and why. */
  rejected: Array<{ option: string; reason: string }>;
}

/** Connectors one capability lookup considers; an account holds tens, not thousands. */
const LOOKUP = 20;
/** Capabilities written out in a request that are looked up at most. */
const MAX_NAMED = 5;

const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

const WHAT_TO_ASK =
  'say what to send and to whom, e.g. "email the signed invoice to accounting@example.com", "text +14155550100 ' +
  'that the van arrives at 3pm" or "post the incident summary to #ops", or name a capability of a connector ' +
  '(crm.create); connectors themselves are set up through /v1/bridge/connectors';

/** The usable connectors for a capability: not disabled; the one the request names, then active ones first. */
async function usable(deps: Deps, input: StepInput, capability: string): Promise<ConnectorRow[]> {
  const rows = (await connectorsWithCapability(deps.db, input.accountId, capability, LOOKUP)).filter(
    (c) => c.status !== 'disabled',
  );
  const named = typeof input.metadata.connectorId === 'string' ? input.metadata.connectorId : null;
  const rank = (c: ConnectorRow) =>
    (c.connector_id === named || new RegExp(`(^|[\\s"'(])${escape(c.connector_id)}\\b`, 'i').test(input.clause)
      ? 0
      : 2) + (c.status === 'active' ? 0 : 1);
  return rows
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
    .map((x) => x.c);
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first capability of `capabilities` some usable connector has, with that connector and the others passed over. */
async function connectorFor(deps: Deps, input: StepInput, capabilities: readonly string[]) {
  for (const capability of capabilities) {
    const [chosen, ...others] = await usable(deps, input, capability);
    if (chosen) {
      const rejected = others.map((c) => ({
        option: `connector ${c.connector_id}`,
        reason: `also has ${capability}; ${chosen.connector_id} came first (named in the request, active, newest)`,
      }));
      return { capability, connector: chosen, rejected };
    }
  }
  return null;
}

/**
 * Reads the run's request into a plan, or the reason there is none: a capability the request names outright that a
 * connector of the account has wins; else the channel it asks for (email, SMS, a call, a chat post), its recipient
 * and its message, performed through the first of the channel's capabilities a connector has (a provider adapter's
 * `msg.*` before the generic `email.send`, `sms.send`, `voice.call`, `chat.post`).
 */
export async function chooseAction(deps: Deps, input: StepInput): Promise<StepPlan | { rest: RestReason }> {
  const req = readStepRequest(input.clause, input.extras.country ?? input.metadata.country);
  const outreachFacts = {
    ...(obj(input.metadata.outreach) ?? {}),
    ...(input.extras.consentToCall === true || input.metadata.consentToCall === true ? { consentToCall: true } : {}),
  };
  const outreach = Object.keys(outreachFacts).length > 0 ? outreachFacts : null;
  const named = req.named.slice(0, MAX_NAMED);
  for (const capability of named) {
    const found = await connectorFor(deps, input, [capability]);
    if (!found) continue;
    const text = req.message ?? input.clause;
    return {
      ...found,
      channel: null,
      recipient: null,
      message: text,
      input: { request: input.clause, text, ...(obj(input.metadata.input) ?? {}) },
      outreach,
    };
  }
  if (!req.channel) {
    if (named.length > 0)
      return {
        rest: {
          reason: 'noConnector',
          message: `no connector of this account has ${named.join(' or ')}; register one with it`,
          capabilities: named,
        },
      };
    return {
      rest: { reason: 'notUnderstood', message: `no provider action understood in this request: ${WHAT_TO_ASK}` },
    };
  }
  const recipient = recipientFor(req.channel, req);
  const kind = req.channel === 'email' ? 'email address' : req.channel === 'chat' ? '#channel' : 'phone number';
  if (!recipient)
    return {
      rest: {
        reason: 'noRecipient',
        channel: req.channel,
        message:
          `whom should the ${req.channel} go to? The request names no ${kind}` +
          (req.channel === 'sms' || req.channel === 'voice' ? ' in international form (+1 415…)' : ''),
      },
    };
  if (!req.message)
    return {
      rest: {
        reason: 'noMessage',
        channel: req.channel,
        recipient: recipient.value,
        message: `what should the ${req.channel} to ${recipient.value} say? The request gives no message`,
      },
    };
  const capabilities = CHANNEL_CAPABILITIES[req.channel];
  const found = await connectorFor(deps, input, capabilities);
  if (!found)
    return {
      rest: {
        reason: 'noConnector',
        channel: req.channel,
        recipient: recipient.value,
        capabilities: [...capabilities],
        message:
          `no connector of this account can send the ${req.channel} (none has ${capabilities.join(' or ')}); ` +
          'register one (POST /v1/bridge/connectors) and ask again',
      },
    };
  return {
    ...found,
    channel: req.channel,
    recipient,
    message: req.message,
    input: channelInput(req.channel, recipient, req.message),
    outreach,
  };
}
