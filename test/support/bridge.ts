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
