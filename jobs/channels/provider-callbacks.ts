import { createHash } from 'node:crypto';
import type { Deps } from '../../shared/deps.js';
import {
  actionByProviderRef,
  adapterFor,
  attachThread,
  type ActionRow,
  getConnector,
  providerCallbackUrl,
  type ConnectorRow,
  type ProviderAdapter,
  type ProviderEvent,
} from '../bridge/index.js';
import { resolveReference } from '../credentials/index.js';
import { receiveReply } from '../proxy/index.js';
import { invalidPayload, notFound, unauthorized } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { openStored } from '../../shared/vault/index.js';
import { moveActionByCallback } from './callbacks.js';
import {
  callbackByExternalId,
  insertCallback,
  insertTouchpoint,
  markReconciled,
  upsertThread,
  type CallbackRow,
} from './repository.js';

/** A provider's callback as the route hands it over: the raw body its signature covers, the headers, where it came. */
export interface ProviderRequest {
  rawBody: string | undefined;
  body: Record<string, unknown>;
  headers: Readonly<Record<string, string | undefined>>;
  /** `scheme://host` the request reached (behind a proxy: as TRUST_PROXY reads it). */
  origin: string;
}

export interface ProviderCallbackResult {
  row: CallbackRow;
  duplicate: boolean;
  /** What the provider expects in answer (Twilio: TwiML), or null for the service's JSON. */
  reply: { contentType: string; body: string } | null;
}

/**
 * The secret a connector's callbacks are verified with: its own signing secret, else (a kind that signs with its API
 * credential: Twilio's auth token) the one its credential holds, opened from the vault. Null: nothing to verify with.
 */
async function verifyingSecret(deps: Deps, accountId: string, connector: ConnectorRow, adapter: ProviderAdapter) {
  const own = await openStored(deps, connector.signing_secret);
  if (own) return own;
  if (!adapter.signingSecretFromCredential || !connector.credential) return null;
  const opened = await resolveReference(
    deps,
    { accountId, allowEnv: connector.platform, via: 'channels.callback' },
    connector.credential.tokenRef,
  ).catch(() => null);
  return opened ? adapter.signingSecretFromCredential(opened) : null;
}

/**
 * What a verified callback changes, event by event: an action's delivery, a reply to its mission (and its thread).
 * `found`: the action the reply answers when the caller looked it up already (undefined: look it up here).
 */
async function reconcileEvent(
  deps: Deps,
  accountId: string,
  connector: ConnectorRow,
  event: ProviderEvent,
  callbackId: string,
  found?: ActionRow | null,
): Promise<Record<string, unknown>> {
  if (event.kind === 'deliveryStatus')
    return moveActionByCallback(deps, accountId, connector, { providerRef: event.providerRef }, event.status);
  // A reply that names what it answers (a call's SID, an email's In-Reply-To, a Slack thread) finds its action.
  const action =
    found !== undefined
      ? found
      : event.inReplyTo
        ? await actionByProviderRef(deps.db, accountId, connector.connector_id, event.inReplyTo)
        : null;
  const out: Record<string, unknown> = {};
  if (action?.thread_id) {
    const tp = await insertTouchpoint(deps.db, {
      id: newId('tp'),
      account_id: accountId,
      thread_id: action.thread_id,
      direction: 'inbound',
      status: 'received',
      body: event.text,
      data: { from: event.from, connectorId: connector.connector_id, callbackId },
      case_id: null,
      conversation_id: null,
      provider_id: null,
    });
    out.touchpointId = tp.id;
  }
  const mission = await receiveReply(deps, accountId, {
    missionId: action?.mission_id ?? null,
    connectorId: connector.connector_id,
    channel: event.channel ?? null,
    from: event.from,
    text: event.text,
    callbackId,
  });
  return { ...mission, ...out };
}

/** The channel a provider capability speaks on, for the thread of a mission's messages. */
const CHANNEL_OF: Record<string, 'sms' | 'voice' | 'email' | 'chat'> = {
  'msg.sms': 'sms',
  'msg.voice': 'voice',
  'msg.email': 'email',
  'msg.chat': 'chat',
};

/**
 * The thread a callback lands on: its action's, or for an action a mission sent, the mission's thread (one per
 * mission, keyed `mission:<id>`, made when its first callback lands), which the action joins so the thread's timeline
 * holds what was sent and what came back.
 */
async function threadOf(deps: Deps, accountId: string, action: ActionRow | null): Promise<string | null> {
  if (!action) return null;
  if (action.thread_id) return action.thread_id;
  if (!action.mission_id) return null;
  const thread = await upsertThread(deps.db, {
    id: newId('thr'),
    account_id: accountId,
    external_key: `mission:${action.mission_id}`,
    channel: CHANNEL_OF[action.capability] ?? 'api',
    subject: null,
    participants: [],
    case_id: null,
    conversation_id: null,
    mission_id: action.mission_id,
    provider_id: null,
  });
  await attachThread(deps.db, accountId, action.id, thread.id);
  return thread.id;
}

const kindOf = (events: ProviderEvent[]) =>
  events.some((e) => e.kind === 'inbound')
    ? 'inboundMessage'
    : events.some((e) => e.kind === 'deliveryStatus')
      ? 'deliveryStatus'
      : 'other';

function statusOf(events: ProviderEvent[]) {
  const e = events[0];
  if (!e) return 'unknown';
  if (e.kind === 'inbound') return 'received';
  return e.status === 'pending' ? 'sent' : e.status;
}

/**
 * A provider's callback for a connector (`POST /v1/channels/callbacks/{accountId}/{connectorId}`): no token, the
 * provider's own signature is the authentication (the connector kind's adapter checks it over the raw body and the
 * URL it was sent to). 404 for a connector the account does not have (another account's too) or whose kind has no
 * adapter taking callbacks; 401 forged, unsigned or without a secret to verify with (the development setting
 * `callbackSigning: unsigned` excepted, outside production); 400 a body the provider would not send. Stored once per
 * the adapter's external id (a redelivery changes nothing: `duplicate`), then reconciled.
 */
export async function ingestProviderCallback(
  deps: Deps,
  accountId: string,
  connectorId: string,
  req: ProviderRequest,
): Promise<ProviderCallbackResult> {
  const connector = await getConnector(deps.db, accountId, connectorId);
  if (!connector) throw notFound(`Connector ${connectorId}`);
  const adapter = adapterFor(connector.kind);
  if (!adapter?.verifyCallback || !adapter.parseCallback)
    throw notFound(
      `Connector ${connectorId} (kind ${connector.kind}) takes no provider callbacks here: its callbacks go to ` +
        `POST /v1/channels/callbacks?connectorId=${connectorId}`,
    );
  const rawBody = req.rawBody ?? '';
  if (!rawBody.trim()) throw invalidPayload('The callback has no body');
  const callback = {
    rawBody,
    contentType: req.headers['content-type'] ?? '',
    headers: req.headers,
    url: providerCallbackUrl(deps.config, accountId, connector.connector_id),
    receivedAt: new Date(),
  };
  const secret = await verifyingSecret(deps, accountId, connector, adapter);
  await adapter.load?.();
  let externalId: string;
  if (!secret) {
    if (connector.callback_signing !== 'unsigned' || deps.config.NODE_ENV === 'production')
      throw unauthorized(
        `Callback refused: connector ${connectorId} has no secret to verify its callbacks with (give it a ` +
          'signingSecret, or a credential its provider signs with)',
      );
    externalId = `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
  } else {
    // The URL the provider signed: PUBLIC_BASE_URL's (what the adapter gave it), else the one this request reached.
    const urls = [...new Set([callback.url, `${req.origin}${new URL(callback.url).pathname}`])];
    const verdicts = urls.map((url) => adapter.verifyCallback!({ ...callback, url }, secret));
    const ok = verdicts.find((v) => v.ok);
    if (!ok || !ok.ok) throw unauthorized(`Callback refused: ${(verdicts[0] as { reason: string }).reason}`);
    externalId = ok.externalId;
  }
  let events: ProviderEvent[];
  try {
    events = adapter.parseCallback(callback);
  } catch (err) {
    throw invalidPayload(`The callback is not one ${connector.kind} sends: ${(err as Error).message}`);
  }
  const refs: Record<string, string> = events[0]?.providerRef ? { providerRef: events[0].providerRef } : {};
  const named = events.find((e) => e.kind === 'inbound' && e.inReplyTo);
  const action =
    events[0]?.providerRef || named
      ? await actionByProviderRef(
          deps.db,
          accountId,
          connector.connector_id,
          (named?.kind === 'inbound' ? named.inReplyTo : events[0]!.providerRef)!,
        )
      : null;
  const threadId = await threadOf(deps, accountId, action);
  const callbackId = newId('cb');
  const inserted = await insertCallback(deps.db, {
    id: callbackId,
    account_id: accountId,
    connector_pk: connector.id,
    connector_id: connector.connector_id,
    external_id: externalId.slice(0, 200),
    kind: kindOf(events),
    status: statusOf(events),
    signature: secret ? 'provider' : 'unsigned',
    refs,
    payload: req.body,
    thread_id: threadId,
  });
  const reply = adapter.callbackReply?.(events, callback) ?? null;
  const row = inserted ?? (await callbackByExternalId(deps.db, accountId, connector.connector_id, externalId))!;
  // A callback stored by an attempt that died before reconciling is reconciled by its redelivery.
  if (!inserted && row.reconciled_at) return { row, duplicate: true, reply };
  // The reply that named its action has it already, with the thread threadOf gave it: not read a second time.
  const answered = action ? { ...action, thread_id: threadId } : null;
  const results = [];
  for (const event of events)
    results.push(
      await reconcileEvent(deps, accountId, connector, event, row.id, event === named ? answered : undefined),
    );
  const reconciliation =
    results.length === 1 ? results[0]! : { result: results.length ? 'several' : 'stored', results };
  return { row: await markReconciled(deps.db, row.id, reconciliation), duplicate: !inserted, reply };
}
