import { Type } from '@sinclair/typebox';

/**
 * One JSON-RPC 2.0 message, the body of the MCP and A2A endpoints. A batch
 * (an array) is refused: each request carries one call, so the rate limit
 * charges each call once.
 */
export const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Integer(), Type.Null()])),
    method: Type.Optional(Type.String({ maxLength: 200 })),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'JsonRpcMessage', additionalProperties: true },
);
