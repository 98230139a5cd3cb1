import { createHash } from 'node:crypto';
import type { ChaosMode } from '../../shared/schemas/orchestrator.js';

/**
 * The midnight-arbitrage sandbox: buy a lot from one of three vendors and
 * resell it at the market price, under a mandate. Fully deterministic (no
 * clock, no randomness, no I/O), so every chaos mode is reproducible.
 */
export type Chaos = ChaosMode;

const VENDORS = [
  { vendorId: 'vendor_nightowl', name: 'NightOwl Wholesale', unitPrice: 41.5, fees: 12, latencyMs: 180 },
  { vendorId: 'vendor_moonbay', name: 'MoonBay Supply', unitPrice: 39.9, fees: 35, latencyMs: 240 },
  { vendorId: 'vendor_duskmart', name: 'DuskMart', unitPrice: 44.0, fees: 0, latencyMs: 120 },
];
const MARKET_PRICE = 52;
const UNITS = 20;
const MANDATE = {
  mandateId: 'mandate_sandbox',
  maxSpend: { amount: 900, currency: 'USD' },
  allowedVendors: ['vendor_nightowl', 'vendor_moonbay', 'vendor_duskmart'],
  resolveRules: ['inventoryVerified', 'hiddenFeeClear'],
};
const round2 = (n: number) => Math.round(n * 100) / 100;

export function runArbitrage(chaos: Chaos) {
  const trace: Array<{ step: string; status: string; note: string }> = [];
  const telemetry = VENDORS.map((v) => ({
    vendorId: v.vendorId,
    latencyMs: chaos === 'latency' && v.vendorId === 'vendor_nightowl' ? 4800 : v.latencyMs,
    status: 'ok',
  }));
  trace.push({ step: 'quote', status: 'ok', note: `quotes from ${VENDORS.length} vendors` });
  if (chaos === 'latency')
    trace.push({ step: 'quote', status: 'slow', note: 'NightOwl answered after 4.8 s; its quote is still used' });

  const modelFailed = chaos === 'modelError';
  if (modelFailed)
    trace.push({
      step: 'pricingModel',
      status: 'failed',
      note: 'pricing model returned an error; falling back to the rule-based margin check',
    });
  const paths = VENDORS.map((v) => {
    const cost = round2(v.unitPrice * UNITS + v.fees);
    const revenue = MARKET_PRICE * UNITS;
    // The model discounts resale by expected spoilage; the fallback rule keeps a flat 10 % safety margin.
    const expected = modelFailed ? round2(revenue * 0.9 - cost) : round2(revenue * 0.97 - cost);
    const hiddenFee = v.fees > v.unitPrice * UNITS * 0.03;
    return {
      path: `buy:${v.vendorId}`,
      vendorId: v.vendorId,
      cost,
      expectedProfit: expected,
      method: modelFailed ? 'fallbackRule' : 'pricingModel',
      rejectedBecause: hiddenFee ? 'fees over 3 % of the order (hiddenFeeClear)' : expected <= 0 ? 'no margin' : null,
    };
  });
  const viable = paths.filter((p) => !p.rejectedBecause).sort((a, b) => b.expectedProfit - a.expectedProfit);
  const selected = viable[0] ?? null;
  trace.push({
    step: 'decide',
    status: selected ? 'ok' : 'noPath',
    note: selected ? `selected ${selected.path} (${selected.method})` : 'no viable path',
  });

  const decisionTree = { selected: selected ? { ...selected, fallback: modelFailed } : null, paths };
  const base = { chaos, decisionTree, trace, vendorTelemetry: telemetry };
  if (chaos === 'freeze') {
    trace.push({
      step: 'settlementGate',
      status: 'frozen',
      note: 'freeze requested: halted before settlement; nothing was spent',
    });
    return { ok: true, status: 'frozen', receipt: null, mandate: { ...MANDATE, decision: 'notEvaluated' }, ...base };
  }
  const amount = chaos === 'unauthorizedSpend' ? round2((selected?.cost ?? 0) * 1.5) : (selected?.cost ?? 0);
  if (!selected || amount > MANDATE.maxSpend.amount) {
    const reason = !selected
      ? 'no viable path'
      : `spend of ${amount} USD exceeds the mandate's maxSpend of ${MANDATE.maxSpend.amount} USD`;
    trace.push({ step: 'mandate', status: 'refused', note: reason });
    return {
      ok: true,
      status: 'refused',
      receipt: null,
      mandate: { ...MANDATE, decision: 'refused', reason },
      ...base,
    };
  }
  trace.push({ step: 'mandate', status: 'ok', note: `within maxSpend (${amount} of ${MANDATE.maxSpend.amount} USD)` });
  const receiptHash = createHash('sha256').update(`${chaos}|${selected.path}|${amount}`).digest('hex');
  const receiptId = `rcpt_sbx_${receiptHash.slice(0, 16)}`;
  trace.push({ step: 'settle', status: 'settled', note: `paid ${selected.vendorId}` });
  return {
    ok: true,
    status: 'settled',
    receipt: {
      receiptId,
      status: 'settled',
      amount: { amount, currency: 'USD' },
      vendorId: selected.vendorId,
      povRef: `pov:${selected.path}`,
      cite: `awp:receipt:${receiptId}#v1`,
    },
    mandate: { ...MANDATE, decision: 'approved' },
    ...base,
  };
}
