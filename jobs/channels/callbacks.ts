import type { Deps } from '../../shared/deps.js';
import {
  ACTIONS,
  actionByProviderRef,
  getAction,
  getConnector,
  transitionAction,
  type ActionRow,
  type ConnectorRow,
} from '../bridge/index.js';
import {
  callbackByExternalId,
  getThread,
  insertCallback,
  insertTouchpoint,
  listCallbacks,
  markReconciled,
  type CallbackRow,
} from './repository.js';
import type { Db } from '../../shared/db/knex.js';
import { AppError, notFound, unauthorized } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { submitOutcomeByReference, type ProxyOutcomeByReference } from '../proxy/index.js';
import { openStored } from '../../shared/vault/index.js';
import { externalIdOf, normalizeCallback, verifyCallback, type Normalized } from './logic.js';

/**
 * The action a delivery status names (by actionId, or by the id its provider answered with), of this connector, locked.
 */
async function actionNamed(
  trx: Db,
  accountId: string,
  connector: ConnectorRow,
  refs: Normalized['refs'],
): Promise<ActionRow | null> {
  const row = refs.actionId
    ? await getAction(trx, accountId, refs.actionId, true)
    : refs.providerRef
      ? await actionByProviderRef(trx, accountId, connector.connector_id, refs.providerRef)
      : null;
  return row && row.connector_id === connector.connector_id ? row : null;
}

/**
 * A delivery status moves the action it names (succeeded or awaitingProvider → delivered or failed, as the action
 * table allows); any other status is noted.
 */
export async function moveActionByCallback(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  connector: ConnectorRow,
  refs: Normalized['refs'],
  status: string,
): Promise<Record<string, unknown>> {
  const actor = `connector:${connector.connector_id}`;
  return deps.db.transaction(async (trx) => {
    const action = await actionNamed(trx, accountId, connector, refs);
    if (!action) return { result: 'noAction', reason: 'no action of this connector matches actionId or providerRef' };
    const to = status === 'delivered' ? 'delivered' : status === 'failed' ? 'failed' : null;
    if (!to) return { result: 'noted', actionId: action.id, status: action.status };
    if (!ACTIONS.canMove(action.status, to))
      return {
        result: 'unchanged',
        actionId: action.id,
        status: action.status,
        reason: `an action cannot move from ${action.status} to ${to}`,
      };
    await transitionAction(trx, action, to, actor, {
      note: 'provider callback',
      ...(to === 'failed' ? { error: { message: 'the provider reported it failed' } } : {}),
    });
    return { result: 'actionUpdated', actionId: action.id, from: action.status, to };
  });
}

/**
 * What a callback changes: a delivery status moves its action (succeeded →
 * delivered or failed, as the action table allows); a proxy outcome goes
 * through the proxy domain's outcome path (which accepts one outcome per
 * mission: a second is recorded as refused); an inbound message on a
 * thread becomes an inbound touchpoint.
 */
async function reconcile(
  deps: Deps,
  principal: Principal,
  connector: ConnectorRow,
  n: Normalized,
  threadId: string | null,
): Promise<Record<string, unknown>> {
  if (n.kind === 'deliveryStatus') return moveActionByCallback(deps, principal.accountId, connector, n.refs, n.status);
  if (n.kind === 'proxyOutcome') {
    if (!n.refs.proxyId && !n.refs.callbackRef)
      return { result: 'noMission', reason: 'a proxy outcome names its mission by proxyId or callbackRef' };
    try {
      const ended = await submitOutcomeByReference(deps, principal, {
        ...n.outcome,
        proxyId: n.refs.proxyId,
        callbackRef: n.refs.callbackRef,
      } as ProxyOutcomeByReference);
      return {
        result: 'missionResolved',
        proxyId: ended.mission.id,
        missionStatus: ended.mission.status,
        runResumed: ended.run?.resumed ?? false,
      };
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return { result: 'refused', error: err.code, message: err.message };
    }
  }
  if (n.kind === 'inboundMessage' && threadId) {
    const tp = await insertTouchpoint(deps.db, {
      id: newId('tp'),
      account_id: principal.accountId,
      thread_id: threadId,
      direction: 'inbound',
      status: 'received',
      body: n.message!.text,
      data: { from: n.message!.from, connectorId: connector.connector_id },
      case_id: null,
      conversation_id: null,
      provider_id: null,
    });
    return { result: 'touchpointRecorded', touchpointId: tp.id };
  }
  return { result: 'stored' };
}

/** The thread a callback belongs to: the one it names (when it is the caller's), else its action's. */
async function threadOf(
  deps: Deps,
  accountId: string,
  connector: ConnectorRow,
  refs: Normalized['refs'],
): Promise<string | null> {
  if (refs.threadId && (await getThread(deps.db, accountId, refs.threadId))) return refs.threadId;
  const action = refs.actionId
    ? await getAction(deps.db, accountId, refs.actionId)
    : refs.providerRef
      ? await actionByProviderRef(deps.db, accountId, connector.connector_id, refs.providerRef)
      : null;
  return action?.thread_id ?? null;
}

/**
 * Ingests a provider callback for a connector: verified over the raw body
 * with the connector's signing secret (401 forged, stale or unsigned; without a secret 401 too, unless the
 * connector has the development setting `callbackSigning: unsigned` outside production), normalised,
 * stored once per external id (a resend answers the stored callback,
 * `duplicate: true`, and changes nothing), then reconciled.
 */
export async function ingestCallback(
  deps: Deps,
  principal: Principal,
  connectorId: string,
  payload: Record<string, unknown>,
  raw: string | undefined,
  headers: Readonly<Record<string, string | undefined>>,
): Promise<{ row: CallbackRow; duplicate: boolean }> {
  const connector = await getConnector(deps.db, principal.accountId, connectorId);
  if (!connector) throw notFound(`Connector ${connectorId}`);
  const body = raw ?? JSON.stringify(payload);
  const verdict = verifyCallback(await openStored(deps, connector.signing_secret), body, headers, {
    connectorId: connector.connector_id,
    accepted: connector.callback_signing === 'unsigned',
    production: deps.config.NODE_ENV === 'production',
  });
  if (!verdict.ok) throw unauthorized(`Callback refused: ${verdict.reason}`);
  const n = normalizeCallback(payload);
  const externalId = externalIdOf(headers, payload, body);
  const threadId = await threadOf(deps, principal.accountId, connector, n.refs);
  const inserted = await insertCallback(deps.db, {
    id: newId('cb'),
    account_id: principal.accountId,
    connector_pk: connector.id,
    connector_id: connector.connector_id,
    external_id: externalId,
    kind: n.kind,
    status: n.status,
    signature: verdict.scheme,
    refs: n.refs as Record<string, string>,
    payload,
    thread_id: threadId,
  });
  const row =
    inserted ?? (await callbackByExternalId(deps.db, principal.accountId, connector.connector_id, externalId))!;
  // A callback stored by an attempt that died before reconciling is reconciled by its resend.
  if (!inserted && row.reconciled_at) return { row, duplicate: true };
  return {
    row: await markReconciled(deps.db, row.id, await reconcile(deps, principal, connector, n, threadId)),
    duplicate: !inserted,
  };
}

export async function findCallbacks(
  deps: Pick<Deps, 'db'>,
  principal: Principal,
  q: { connectorId?: string; kind?: string; threadId?: string; limit?: number; cursor?: string },
) {
  return listCallbacks(deps.db, principal.accountId, q, q.limit ?? 50, q.cursor);
}
