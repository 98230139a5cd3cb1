import type { Deps } from '../../shared/deps.js';
import { AppError } from '../../shared/errors.js';
import { resolveReference } from '../credentials/index.js';
import { getConnector, type ConnectorRow } from './connectors-repository.js';
import { adapterFor, type ProviderCallContext, type ProviderResult } from './providers/index.js';

type Failure = NonNullable<ProviderResult['error']>;

/**
 * A provider call made outside a bridge action (delivery following a workflow run, cicd reading a commit's checks):
 * the account's connector by id, which must be of `kind`, and its credential opened from the account's vault (a
 * platform connector's from the server's environment), as an action's call opens it. A connector gone, of another
 * kind, or a credential that does not open is a permanent failure, with the reference named and never the value.
 */
export async function providerContextFor(
  deps: Pick<Deps, 'config' | 'db' | 'redis' | 'log'>,
  accountId: string,
  connectorId: string,
  kind: string,
  via: string,
): Promise<{ ctx: ProviderCallContext; connector: ConnectorRow } | { error: Failure }> {
  return providerContextOf(
    deps,
    accountId,
    await getConnector(deps.db, accountId, connectorId),
    connectorId,
    kind,
    via,
  );
}

/** As providerContextFor, for a connector the caller has read already (null: gone). */
export async function providerContextOf(
  deps: Pick<Deps, 'config' | 'db' | 'redis' | 'log'>,
  accountId: string,
  connector: ConnectorRow | null,
  connectorId: string,
  kind: string,
  via: string,
): Promise<{ ctx: ProviderCallContext; connector: ConnectorRow } | { error: Failure }> {
  if (!connector || connector.status === 'disabled')
    return {
      error: { code: 'connectorGone', message: `connector ${connectorId} is gone or disabled`, transient: false },
    };
  if (connector.kind !== kind || !adapterFor(kind))
    return {
      error: {
        code: 'wrongKind',
        message: `connector ${connectorId} is ${connector.kind}, not ${kind}`,
        transient: false,
      },
    };
  let secret: string | null = null;
  try {
    secret = connector.credential
      ? await resolveReference(deps, { accountId, allowEnv: connector.platform, via }, connector.credential.tokenRef)
      : null;
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    return { error: { code: 'credentialUnavailable', message: err.message, transient: false } };
  }
  return { ctx: { deps, connector, secret, idempotencyKey: `${via}:${connectorId}` }, connector };
}
