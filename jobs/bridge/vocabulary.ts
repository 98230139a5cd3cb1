import type { DomainVocabulary } from '../domain.js';

/**
 * What the router learns about bridge; test/unit/router.test.ts checks it on requests that are not in these examples.
 */
export const vocabulary: DomainVocabulary = {
  lexicon: /\b(connector|webhook|integration|oauth|credential|portal)\b/i,
  precedence: 110,
  examples: [
    'connect my google calendar',
    'register a webhook connector for our CRM',
    'set up a scoped credential for the shipping API',
    'run the provider action to create a ticket in Jira',
    'preflight the slack connector before posting',
    'install the ready made stripe connector',
    'open a portal session with the utility provider',
    'link our hubspot account with read only scope',
    'revoke the connection session for the old integration',
    'trigger the connector to sync contacts',
  ],
};
