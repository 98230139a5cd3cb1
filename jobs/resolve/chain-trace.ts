import type { Static } from '@sinclair/typebox';
import { labelsOf, type ChainLabelRow } from './chain-labels-repository.js';
import { getTask } from '../tasks/index.js';
import type { Deps } from '../../shared/deps.js';
import { invalidPayload, notFound, policyViolation } from '../../shared/errors.js';
import type { ChainTraceRequest, ChainTraceResult } from './chain-schemas.js';
import { targetOf } from './chain-providers.js';
import { assessRecovery } from './chain-recovery.js';
import { bitcoinTracer, evmTracer, type RawHop } from './chain-tracers.js';

/**
 * POST /v1/tools/chainTrace: follows the funds from a transaction or an
 * address over the configured provider, breadth first, up to `depth` hops,
 * and matches every address reached against the account's labels. No
 * provider configured for the chain: 422, never invented hops.
 */

type Request = Static<typeof ChainTraceRequest>;
type Result = Static<typeof ChainTraceResult>;
const MAX_HOPS = 100;

export const familyOf = (chain: Request['chain']) => (chain === 'bitcoin' ? 'bitcoin' : 'evm');
export const normalizeAddress = (chain: Request['chain'], address: string) =>
  familyOf(chain) === 'evm' ? address.toLowerCase() : address;

/** raw / 10^decimals as an exact decimal string. */
export function unitsOf(raw: bigint, decimals: number): string {
  const s = raw.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = decimals > 0 ? s.slice(-decimals).replace(/0+$/, '') : '';
  return frac ? `${whole}.${frac}` : whole;
}

export const labelView = (l: ChainLabelRow) => ({
  labelId: l.id,
  kind: l.kind as Result['labelMatches'][number]['label']['kind'],
  name: l.name,
  note: l.note,
});

export async function traceForClient(
  deps: Deps,
  accountId: string,
  body: Request,
  signal?: AbortSignal,
): Promise<Result> {
  if (!body.txHash === !body.address)
    throw invalidPayload('give exactly one of txHash or address', [
      { path: '/txHash', message: 'exactly one of txHash or address', keyword: 'oneOf' },
    ]);
  if (body.taskId && !(await getTask(deps.db, accountId, body.taskId))) throw notFound(`Task ${body.taskId}`);
  const family = familyOf(body.chain);
  const url = family === 'evm' ? deps.config.CHAIN_EVM_RPC_URL : deps.config.CHAIN_BTC_ESPLORA_URL;
  if (!url)
    throw policyViolation(
      `no ${family === 'evm' ? 'EVM JSON-RPC' : 'Bitcoin Esplora'} provider is configured on this server ` +
        `(set ${family === 'evm' ? 'CHAIN_EVM_RPC_URL' : 'CHAIN_BTC_ESPLORA_URL'}); chainTrace reports no hops ` +
        `rather than invented ones`,
      { reason: 'noProvider', chain: body.chain },
    );
  const tracer = (family === 'evm' ? evmTracer : bitcoinTracer)(targetOf(deps.config, url, signal));

  const hops: Array<RawHop & { hopId: string; depth: number }> = [];
  const seen = new Set<string>();
  const add = (found: RawHop[], depth: number) => {
    const fresh = found
      .filter((h) => !seen.has(`${h.txHash}|${h.from}|${h.to}|${h.contract}|${h.vout}`))
      .slice(0, MAX_HOPS - hops.length);
    if (fresh.length < found.length && hops.length + fresh.length >= MAX_HOPS)
      tracer.limits.add(`the trace stops at ${MAX_HOPS} hops`);
    const made = fresh.map((h, i) => ({ ...h, depth, hopId: `h${hops.length + i + 1}` }));
    for (const h of made) seen.add(`${h.txHash}|${h.from}|${h.to}|${h.contract}|${h.vout}`);
    hops.push(...made);
    return made;
  };
  let frontier = add(
    await tracer.start({ txHash: body.txHash, address: body.address && normalizeAddress(body.chain, body.address) }),
    1,
  );
  for (let depth = 2; depth <= body.depth && frontier.length > 0 && hops.length < MAX_HOPS; depth++) {
    const next: RawHop[] = [];
    for (const hop of frontier) next.push(...(await tracer.next(hop)));
    frontier = add(next, depth);
  }
  if (frontier.length > 0 && hops.length < MAX_HOPS)
    tracer.limits.add(`depth ${body.depth} reached: hops beyond it were not followed`);

  const byAddress = new Map<string, string[]>();
  for (const h of hops) byAddress.set(h.to, [...(byAddress.get(h.to) ?? []), h.hopId]);
  const labels = new Map(
    (await labelsOf(deps.db, accountId, family, [...byAddress.keys()])).map((l) => [l.address, l]),
  );
  const reached = [...byAddress].map(([address, viaHops]) => ({
    address,
    viaHops,
    label: labels.has(address) ? labelView(labels.get(address)!) : null,
  }));
  const view = hops.map((h) => ({
    hopId: h.hopId,
    depth: h.depth,
    txHash: h.txHash,
    from: h.from,
    to: h.to,
    amount: {
      raw: h.raw.toString(),
      value: unitsOf(h.raw, h.decimals),
      asset: h.asset,
      decimals: h.decimals,
      contract: h.contract,
    },
    timestamp: h.timestamp,
  }));
  const limits = [...tracer.limits];
  return {
    ok: true,
    chain: body.chain,
    provider: family === 'evm' ? 'evmJsonRpc' : 'esplora',
    taskId: body.taskId ?? null,
    depth: body.depth,
    hops: view,
    reached,
    labelMatches: reached.filter((r) => r.label).map((r) => ({ address: r.address, label: r.label!, hops: r.viaHops })),
    recoveryAssessment: assessRecovery(view, reached, limits),
    limits,
  };
}
