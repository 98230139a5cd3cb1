import assert from 'node:assert/strict';
import { harness, type ApiResponse } from './harness.js';

/** Bodies the bridge tests share. */

/** A credential as someone might paste it where a reference belongs. */
export const LITERAL = 'sk_live_' + 'Q7zR2mX9'.repeat(4);

export const crmConnector = (connectorId: string, extra: Record<string, unknown> = {}) => ({
  connectorId,
  kind: 'custom',
  caps: ['crm.read', 'crm.update'],
  endpoint: 'https://crm.example.com/api',
  credential: { type: 'bearer', tokenRef: 'cred:test-crm-token' },
  scopes: [
    { actions: ['crm.read'], resources: ['contacts/*'] },
    { actions: ['crm.update'], resources: ['contacts/*/notes'], tokenRefs: ['cred:test-crm-write'] },
  ],
  ...extra,
});

/** A credential for the account's vault: basic ones hold `{ username, password }`. */
export interface VaultCredential {
  name: string;
  kind: 'bearer' | 'basic' | 'apiKey';
  value: unknown;
}

/**
 * Stores the credential in the account's vault and registers a connector that uses it (`cred:<name>`, of the
 * credential's kind), each answering 201. Returns both answers, for tests that check no answer held a secret.
 */
export async function providerConnector(
  token: string,
  credential: VaultCredential,
  connector: { connectorId: string; kind: string; caps: string[]; endpoint: string; signingSecret?: string },
  base?: string,
): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  for (const [path, body] of [
    ['/v1/bridge/credentials', credential],
    [
      '/v1/bridge/connectors',
      { ...connector, credential: { type: credential.kind, tokenRef: `cred:${credential.name}` } },
    ],
  ] as const) {
    const made = await harness.call('POST', path, { token, body }, base);
    assert.equal(made.status, 201, made.text);
    answers.push(made);
  }
  return answers;
}
