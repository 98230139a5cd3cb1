import { AgentCard, A2A_PROTOCOL_VERSION } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { LegacyRestTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { modules } from '../../jobs/module-registry.js';
import { availableDomains } from '../../jobs/steps.js';
import { SERVICE_VERSION } from '../../shared/version.js';

/** Where the A2A JSON-RPC endpoint is mounted (the card names it with the client's base). */
export const A2A_PATH = '/a2a';
/** A2A versions this service speaks; the `A2A-Version` header picks one, and none means 0.3 (A2A 1.0 §3.6.2). */
export const A2A_VERSIONS = [A2A_PROTOCOL_VERSION, '0.3'] as const;

const MODES = { input: ['text/plain', 'application/json'], output: ['application/json', 'text/plain'] };

/**
 * The service's skills: each domain that runs, and each template whose domains all run (a data part `{ templateId, ...
 * }` runs it).
 */
function skills(): AgentCard['skills'] {
  const running = new Set(availableDomains());
  const { domains, templates } = modules();
  const domainSkills = domains
    .filter((d) => running.has(d.name))
    .map((d) => ({
      id: d.name,
      name: d.name,
      description: d.summary,
      tags: ['domain', d.name],
      examples: d.vocabulary.examples.slice(0, 3),
      inputModes: MODES.input,
      outputModes: MODES.output,
      securityRequirements: [],
    }));
  const templateSkills = templates
    .filter((t) => t.domains.every((d) => running.has(d)))
    .map((t) => ({
      id: `template:${t.templateId}`,
      name: t.templateId,
      description:
        `${t.description} Send a data part {"templateId": "${t.templateId}", ...its input} (schema ` +
        `/v1/schemas/${(t.input as { $id?: string }).$id}).`,
      tags: ['template', ...t.domains],
      examples: [],
      inputModes: ['application/json'],
      outputModes: MODES.output,
      securityRequirements: [],
    }));
  return [...domainSkills, ...templateSkills];
}

/** The agent card in the SDK's model: one JSON-RPC interface, declared at 1.0 and at 0.3, behind a bearer token. */
export function agentCard(base: string): AgentCard {
  return {
    name: 'awp',
    description:
      'Agentic Work Protocol service: routes a request across its domains, runs it durably and answers with ' +
      'the result and a proof card. An A2A task is an awp run (same id as GET /v1/runs/{runId}).',
    supportedInterfaces: duplicateInterfacesForLegacy(
      [{ url: `${base}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
      ['JSONRPC'],
    ),
    provider: { organization: 'awp', url: base },
    version: SERVICE_VERSION,
    documentationUrl: `${base}/openapi.json`,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'bearer',
            bearerFormat: 'awp token',
            description:
              'An awp API token (POST /v1/profiles or POST /v1/tokens), sent as Authorization: Bearer <token>',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: MODES.input,
    defaultOutputModes: MODES.output,
    skills: skills(),
    signatures: [],
  };
}

/** True when the `A2A-Version` header asks for 0.x (or is absent). */
export function isLegacyVersion(header: string | undefined): boolean {
  return /^0\./.test(header?.trim() || '0.3');
}

/** The card as JSON for the asked version: A2A 1.0's, or 0.3's through the SDK's own translation. */
export async function agentCardJson(base: string, versionHeader: string | undefined): Promise<unknown> {
  const card = agentCard(base);
  if (!isLegacyVersion(versionHeader)) return AgentCard.toJSON(card);
  const cardOnly = { getAuthenticatedExtendedAgentCard: async () => card } as unknown as A2ARequestHandler;
  return new LegacyRestTransportHandler(cardOnly).getAuthenticatedExtendedAgentCard(new ServerCallContext());
}
