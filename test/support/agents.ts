/** A2A agent cards as other agents publish them, for registry tests. */
export function cardV1(
  name: string,
  skills: Array<{ id: string; name?: string; description?: string; tags?: string[] }>,
  opts: { streaming?: boolean } = {},
) {
  return {
    name,
    description: `${name} agent`,
    supportedInterfaces: [
      {
        url: `https://${name.toLowerCase().replace(/\W+/g, '-')}.example/a2a`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      },
    ],
    version: '1.0.0',
    capabilities: { streaming: opts.streaming ?? false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: skills.map((s) => ({ name: s.id, description: '', tags: [], ...s })),
  };
}

export function cardV03(
  name: string,
  skills: Array<{ id: string; name?: string; description?: string; tags?: string[] }>,
) {
  return {
    protocolVersion: '0.3.0',
    name,
    description: `${name} agent`,
    url: `https://${name.toLowerCase().replace(/\W+/g, '-')}.example/a2a`,
    preferredTransport: 'JSONRPC',
    version: '0.9.0',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: skills.map((s) => ({ name: s.id, description: '', tags: [], ...s })),
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    security: [{ bearer: [] }],
  };
}
