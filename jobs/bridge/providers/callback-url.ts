import type { Config } from '../../../shared/config.js';

/**
 * Where a provider sends its callbacks for a connector (status callbacks, inbound messages, a call's gathered answer):
 * channels' `POST /v1/channels/callbacks/{accountId}/{connectorId}` under PUBLIC_BASE_URL (else http://localhost:PORT).
 * The acting account is in the path because a platform connector serves every account: the callback lands on the
 * account whose action it reports.
 */
export function providerCallbackUrl(
  config: Pick<Config, 'PUBLIC_BASE_URL' | 'PORT'>,
  accountId: string,
  connectorId: string,
): string {
  const base = (config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
  return `${base}/v1/channels/callbacks/${encodeURIComponent(accountId)}/${encodeURIComponent(connectorId)}`;
}
