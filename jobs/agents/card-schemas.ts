import { Type } from '@sinclair/typebox';

/**
 * The A2A agent card as registered agents publish it: A2A 1.0's JSON shape,
 * or 0.3's (which names one `url` and a `protocolVersion`). The fields the
 * protocol requires are required here; what else a card carries is kept
 * only as far as the SDK's card model knows it (jobs/agents/card.ts).
 */
const Text = (max: number) => Type.String({ maxLength: max });
const Name = (max: number) => Type.String({ minLength: 1, maxLength: max });
const HttpUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 });
const Modes = Type.Array(Name(200), {
  maxItems: 50,
  description: 'Media types, such as text/plain or application/json',
});
const Open = Type.Object({}, { additionalProperties: true });

const Skill = Type.Object(
  {
    id: Name(200),
    name: Name(200),
    description: Text(4000),
    tags: Type.Array(Name(100), { maxItems: 50 }),
    examples: Type.Optional(Type.Array(Text(2000), { maxItems: 50 })),
    inputModes: Type.Optional(Modes),
    outputModes: Type.Optional(Modes),
  },
  { additionalProperties: true },
);

const Capabilities = Type.Object(
  {
    streaming: Type.Optional(Type.Boolean()),
    pushNotifications: Type.Optional(Type.Boolean()),
    extendedAgentCard: Type.Optional(Type.Boolean()),
    extensions: Type.Optional(Type.Array(Open, { maxItems: 50 })),
  },
  { additionalProperties: true },
);

const common = {
  name: Name(200),
  description: Text(4000),
  version: Name(100),
  provider: Type.Optional(Type.Object({ url: HttpUrl, organization: Name(200) }, { additionalProperties: true })),
  documentationUrl: Type.Optional(HttpUrl),
  iconUrl: Type.Optional(HttpUrl),
  capabilities: Capabilities,
  securitySchemes: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Open)),
  defaultInputModes: Modes,
  defaultOutputModes: Modes,
  skills: Type.Array(Skill, { minItems: 1, maxItems: 200 }),
};

export const AgentCardV1 = Type.Object(
  {
    ...common,
    supportedInterfaces: Type.Array(
      Type.Object(
        { url: HttpUrl, protocolBinding: Name(50), protocolVersion: Name(20), tenant: Type.Optional(Text(200)) },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 20 },
    ),
    securityRequirements: Type.Optional(Type.Array(Open, { maxItems: 20 })),
  },
  { $id: 'A2AAgentCard', additionalProperties: true, description: 'An A2A 1.0 agent card' },
);

export const AgentCardV03 = Type.Object(
  {
    ...common,
    protocolVersion: Type.String({ pattern: '^0\\.', maxLength: 20 }),
    url: HttpUrl,
    preferredTransport: Type.Optional(Name(50)),
    additionalInterfaces: Type.Optional(
      Type.Array(Type.Object({ url: HttpUrl, transport: Name(50) }, { additionalProperties: true }), { maxItems: 20 }),
    ),
    security: Type.Optional(Type.Array(Open, { maxItems: 20 })),
  },
  { $id: 'A2AAgentCardV03', additionalProperties: true, description: 'An A2A 0.3 agent card' },
);

export const AnyAgentCard = Type.Union([AgentCardV1, AgentCardV03], { description: 'An A2A agent card, 1.0 or 0.3' });
