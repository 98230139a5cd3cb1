import { Type } from '@sinclair/typebox';
import { AnyAgentCard } from './card-schemas.js';
import { AnyObject, Id, PageQuery, Timestamp } from '../../shared/schemas/common.js';
import { PartyId } from '../envelopes/index.js';
import { DomainName } from '../orchestrator/index.js';

const Capability = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'A skill id, name or tag (compared in lower case, words joined by -), or streaming / pushNotifications',
});
const Domains = Type.Array(DomainName, { minItems: 1, maxItems: 12, uniqueItems: true });

export const AgentRegister = Type.Object(
  {
    agentId: Type.Optional(PartyId),
    card: AnyAgentCard,
    domains: Type.Optional(
      Type.Array(DomainName, {
        minItems: 1,
        maxItems: 12,
        uniqueItems: true,
        description: "Domains the agent serves; default: the domain names among its skills' ids and tags",
      }),
    ),
  },
  {
    $id: 'AgentRegister',
    description:
      "agentId defaults to the card's name in lower case, words joined by -; an id the account already has is 409",
  },
);

export const AgentListQuery = Type.Composite([
  PageQuery,
  Type.Object({ domain: Type.Optional(DomainName), capability: Type.Optional(Capability) }),
]);

export const AgentMatchRequest = Type.Object(
  {
    domain: Type.Optional(DomainName),
    capabilities: Type.Optional(Type.Array(Capability, { maxItems: 20 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  },
  { $id: 'AgentMatchRequest', description: 'A domain, capabilities, or both' },
);

export const DelegateRequest = Type.Object(
  {
    request: Type.Optional(
      Type.String({ minLength: 1, maxLength: 8000, description: 'What to delegate; default: the request of runId' }),
    ),
    runId: Type.Optional(Id('Run the hand-offs belong to; its request and route are the default')),
    taskId: Type.Optional(Id('Task the hand-offs belong to')),
    domainRoute: Type.Optional(Domains),
    capabilities: Type.Optional(Type.Array(Capability, { maxItems: 20, description: 'Wanted of every agent chosen' })),
    sender: Type.Optional(PartyId),
    payload: Type.Optional(AnyObject),
  },
  { $id: 'DelegateRequest', description: 'runId or taskId is required' },
);

export const AgentView = Type.Object(
  {
    agentId: Type.String(),
    name: Type.String(),
    description: Type.String(),
    url: Type.Union([Type.String(), Type.Null()]),
    domains: Type.Array(Type.String()),
    capabilities: Type.Array(Type.String()),
    card: AnyObject,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Agent' },
);
