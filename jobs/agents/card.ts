import { AgentCard } from '@a2a-js/sdk';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { invalidPayload } from '../../shared/errors.js';

/**
 * A registered card as A2A 1.0 JSON: a 0.3 card is translated by the SDK's
 * own compat layer, a 1.0 card goes through the SDK's card model. Either way
 * the stored card is one shape, and fields the model does not know are dropped.
 */
export function normalizeCard(raw: Record<string, unknown>): Record<string, unknown> {
  try {
    const core = isLegacyAgentCard(raw) ? parseLegacyAgentCard(raw) : AgentCard.fromJSON(raw);
    return AgentCard.toJSON(core) as Record<string, unknown>;
  } catch (err) {
    throw invalidPayload(`The agent card could not be read as an A2A card: ${(err as Error).message}`);
  }
}
