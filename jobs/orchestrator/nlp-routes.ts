import { Type } from '@sinclair/typebox';
import { decideRoute, previousTurn } from './decide.js';
import { DOMAIN_NAMES } from '../../shared/domain-names.js';
import { availableDomains } from '../steps.js';
import { Ok, StringEnum } from '../../shared/schemas/common.js';
import { toolsGroup } from '../../shared/http/route-group.js';

const NlpRequest = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 8000 }),
    conversationId: Type.Optional(
      Type.String({ maxLength: 200, description: "Uses that conversation's previous turn for follow-up detection" }),
    ),
    domainRoute: Type.Optional(
      Type.Array(StringEnum(DOMAIN_NAMES), {
        maxItems: 12,
        description: 'Forces a domain sequence and skips NLP routing',
      }),
    ),
  },
  { $id: 'NlpRequest' },
);

const NlpResult = Ok(
  {
    classification: Type.Array(Type.Object({ domain: Type.String(), score: Type.Number() })),
    followUp: Type.Object({
      detected: Type.Boolean(),
      previous: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
        description: "The conversation's previous turn: its route, status and what it waited for",
      }),
    }),
    route: Type.Array(StringEnum(DOMAIN_NAMES)),
    source: StringEnum(['forced', 'deterministic', 'llm'] as const),
    why: Type.String(),
    unavailableDomains: Type.Array(Type.String(), { description: 'Routed domains this service does not run' }),
  },
  'NlpResult',
);

export const routes = [
  toolsGroup.post('/v1/tools/nlp', 'Classify a query, detect follow-up context, select domain routing', {
    body: NlpRequest,
    mcpTool: 'tools.nlp',
    response: { 200: NlpResult },
    handler: async ({ body, principal }, deps) => {
      const { previous: context } = await previousTurn(deps, principal.accountId, body.conversationId);
      const decision = await decideRoute(deps, {
        request: body.query,
        domainRoute: body.domainRoute,
        previous: context,
      });
      const available = new Set<string>(availableDomains());
      return {
        ok: true,
        classification: decision.classification,
        followUp: { detected: decision.followUp, previous: context },
        route: decision.route,
        source: decision.source,
        why: decision.reason,
        unavailableDomains: decision.route.filter((d) => !available.has(d)),
      };
    },
  }),
];
