import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../shared/deps.js';
import { connectorsWithCapability, sha256Hex, callConnector } from '../bridge/index.js';
import { AVAILABILITIES, type Candidate } from '../../shared/schemas/hunt.js';
import { check } from '../../shared/validation.js';
import { judge, termShare, type Comparison, type Pricing } from './logic.js';

/** The capability a connector needs to be a hunt source. */
export const HUNT_CAPABILITY = 'hunt.search';
/** Connectors asked per search (an account holds a few). */
const MAX_CONNECTORS = 5;

/**
 * What a `hunt.search` connector answers (docs/api/bridge.md, "Bridge actions":
 * the hunt `connector` source): up to 100 candidates, each a title and a price at least.
 */
export const ConnectorSearchAnswer = Type.Object(
  {
    candidates: Type.Array(
      Type.Object(
        {
          id: Type.Optional(Type.String({ maxLength: 200 })),
          title: Type.String({ minLength: 1, maxLength: 300 }),
          price: Type.Number({ minimum: 0, maximum: 1e9 }),
          currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
          fees: Type.Optional(Type.Number({ minimum: 0, maximum: 1e9 })),
          vendor: Type.Optional(Type.String({ maxLength: 200 })),
          url: Type.Optional(Type.String({ maxLength: 2000 })),
          availability: Type.Optional(Type.Union(AVAILABILITIES.map((a) => Type.Literal(a)))),
        },
        { additionalProperties: true },
      ),
      { maxItems: 100 },
    ),
  },
  { additionalProperties: true },
);
type Answer = Static<typeof ConnectorSearchAnswer>;

function candidateOf(
  connectorId: string,
  c: Answer['candidates'][number],
  i: number,
  terms: string,
  cmp: Comparison,
): Candidate {
  const fees = c.fees ?? 0;
  const pricing: Pricing = {
    price: c.price,
    currency: c.currency ?? 'USD',
    fees,
    feeParts: fees > 0 ? [`${fees.toFixed(2)} fees`] : [],
    unpricedFees: [],
    unclear: [],
    notes: [],
    availability: c.availability,
  };
  return {
    candidateId: `connector:${connectorId}:${c.id ?? i}`,
    title: c.title,
    price: c.price,
    currency: pricing.currency,
    source: 'connector',
    vendor: c.vendor ?? connectorId,
    url: c.url ?? null,
    rank: termShare(c.title, terms),
    ...judge(pricing, cmp),
    ...(c.availability ? { availability: c.availability } : {}),
  };
}

/**
 * The `connector` source: every active connector of the account with
 * `hunt.search` is POSTed the query (signed, with its credential, as a
 * bridge action is) and answers candidates in the contract above. Each
 * connector's result is reported on its own; an answer outside the
 * contract is reported, not guessed at.
 */
export async function searchConnectors(
  deps: Pick<Deps, 'db' | 'config' | 'redis'>,
  accountId: string,
  query: { terms: string; cmp: Comparison; signal?: AbortSignal },
) {
  const connectors = (await connectorsWithCapability(deps.db, accountId, HUNT_CAPABILITY, MAX_CONNECTORS)).filter(
    (c) => c.status !== 'disabled' && !c.endpoint.startsWith('bridge:'),
  );
  const candidates: Candidate[] = [];
  const perConnector: Record<string, unknown> = {};
  for (const connector of connectors) {
    const body = JSON.stringify({
      type: HUNT_CAPABILITY,
      timestamp: new Date().toISOString(),
      data: { query: query.terms, budget: query.cmp.budget },
    });
    const key = `hunt_${sha256Hex(`${connector.id}:${body}`).slice(0, 32)}`;
    try {
      const result = await callConnector(
        deps,
        { accountId, allowEnv: connector.platform, via: 'hunt.search' },
        connector,
        {
          idempotencyKey: key,
          msgId: key,
          body,
          timeoutMs: deps.config.BRIDGE_ACTION_TIMEOUT_MS,
          signal: query.signal,
        },
      );
      const problems = result.status !== null && result.status < 300 ? check(ConnectorSearchAnswer, result.answer) : [];
      if (result.status === null || result.status >= 300 || problems.length > 0) {
        const error =
          result.error ??
          (problems.length > 0
            ? `answer outside the hunt.search contract at ${problems[0]!.path}: ${problems[0]!.message}`
            : `answered ${result.status}`);
        perConnector[connector.connector_id] = {
          status: 'failed',
          httpStatus: result.status,
          error,
          ms: result.proof.ms,
        };
        continue;
      }
      const found = (result.answer as Answer).candidates.map((c, i) =>
        candidateOf(connector.connector_id, c, i, query.terms, query.cmp),
      );
      candidates.push(...found);
      perConnector[connector.connector_id] = {
        status: 'ok',
        matched: found.length,
        eligible: found.filter((c) => c.eligible).length,
        ms: result.proof.ms,
        responseSha256: result.proof.responseSha256,
      };
    } catch (err) {
      if (query.signal?.aborted) throw err;
      perConnector[connector.connector_id] = { status: 'failed', error: (err as Error).message };
    }
  }
  const telemetry =
    connectors.length === 0
      ? { status: 'unavailable', reason: `no active connector with ${HUNT_CAPABILITY}` }
      : {
          status: Object.values(perConnector).every((c) => (c as { status: string }).status === 'ok')
            ? 'ok'
            : 'partial',
          connectors: perConnector,
        };
  return { candidates, telemetry };
}
