import type { Deps } from '../../shared/deps.js';
import type { ActionRow } from './actions-repository.js';
import type { ConnectorRow } from './connectors-repository.js';
import { redactSecrets, redactSecretsDeep } from '../../shared/secrets.js';
import { resolveReference } from '../credentials/index.js';
import { callSummary, providerRefOf, sha256Hex, verdictOf } from './action-logic.js';
import type { CallResult } from './connector-call.js';
import type { ProviderAdapter, ProviderCapability, ProviderResult } from './providers/index.js';

/**
 * One attempt of an action as the worker records it, whatever made the call: the connector's endpoint (one signed
 * POST, connector-call.ts) or a provider adapter (jobs/bridge/providers/). `pending`: the provider took it and its
 * outcome arrives by callback.
 */
export interface Attempt {
  verdict: 'succeeded' | 'pending' | 'retry' | 'failed';
  response: Record<string, unknown> | null;
  proof: Record<string, unknown>;
  /** For a client: what went wrong, the provider's code when it gave one, never a secret. */
  error: Record<string, unknown> | null;
  providerRef: string | null;
  retryAfterMs: number | null;
}

/** An endpoint's answer as an attempt: 2xx succeeded, no answer/408/429/5xx retry, any other status failed. */
export function attemptOfHttp(result: CallResult, attempt: number): Attempt {
  const verdict = verdictOf(result.status);
  return {
    verdict: verdict === 'retry' ? 'retry' : verdict,
    response: result.status === null ? null : { status: result.status, body: result.answer },
    proof: result.proof,
    error:
      verdict === 'succeeded'
        ? null
        : { message: result.error ?? `endpoint answered ${result.status}`, status: result.status, attempt },
    providerRef: verdict === 'succeeded' ? providerRefOf(result.answer) : null,
    retryAfterMs: result.retryAfterMs,
  };
}

/** What the adapter is asked: the capability and the input, the bytes the proof's request hash covers. */
const requestBytes = (row: Pick<ActionRow, 'capability' | 'input'>) =>
  JSON.stringify({ capability: row.capability, input: row.input });

/** What is kept of an adapter call before it is made: the provider, where, the request's hash, the credential's ref. */
export function adapterRequestSummary(connector: ConnectorRow, row: ActionRow): Record<string, unknown> {
  return {
    adapter: connector.kind,
    capability: row.capability,
    ...callSummary(connector, row.idempotency_key, requestBytes(row)),
  };
}

/** An adapter that threw (a bug, an unmapped error) or ran out of time: a transient failure, the message masked. */
function thrown(err: unknown, timedOut: boolean, timeoutMs: number): ProviderResult {
  return {
    status: 'failed',
    providerRef: null,
    answer: {},
    error: timedOut
      ? { code: 'timeout', message: `the provider did not answer within ${timeoutMs} ms`, transient: true }
      : { code: 'adapterError', message: err instanceof Error ? err.message : String(err), transient: true },
  };
}

/**
 * One call of an action through its connector's provider adapter: the credential opened from the acting account's
 * vault (or, on a platform connector, this server's environment) as callConnector does, the action's idempotency key,
 * BRIDGE_ACTION_TIMEOUT_MS. An unresolvable credential throws (policyViolation naming the reference), as it does for
 * an endpoint. What the provider answered is kept with the credential masked; the proof hashes the request (capability
 * and input) and the answer as kept.
 */
export async function callAdapter(
  deps: Pick<Deps, 'config' | 'db' | 'redis' | 'log'>,
  adapter: ProviderAdapter,
  connector: ConnectorRow,
  row: ActionRow,
  attempt: number,
): Promise<Attempt> {
  const secret = connector.credential
    ? await resolveReference(
        deps,
        { accountId: row.account_id, allowEnv: connector.platform, via: 'bridge.action' },
        connector.credential.tokenRef,
      )
    : null;
  const masked = secret ? [secret] : [];
  const timeoutMs = deps.config.BRIDGE_ACTION_TIMEOUT_MS;
  const started = new Date();
  const t0 = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let result: ProviderResult;
  if (row.capability.startsWith('pay.')) {
    // Money moves only through pay, under a mandate's budget and row lock: a bridge action never charges or refunds.
    const message = `${row.capability} moves money only through pay (a settlement under a mandate, or a refund)`;
    result = {
      status: 'failed',
      providerRef: null,
      answer: {},
      error: { code: 'mandateRequired', message, transient: false },
    };
  } else if (!(adapter.capabilities as readonly string[]).includes(row.capability)) {
    const does = adapter.capabilities.join(', ');
    const message = `the ${adapter.kind} adapter does not do ${row.capability} (it does ${does})`;
    result = {
      status: 'failed',
      providerRef: null,
      answer: {},
      error: { code: 'unsupported', message, transient: false },
    };
  } else {
    try {
      result = await adapter.call(row.capability as ProviderCapability, row.input, {
        deps,
        connector,
        secret,
        idempotencyKey: row.idempotency_key,
        signal: controller.signal,
        accountId: row.account_id,
      });
    } catch (err) {
      result = thrown(err, controller.signal.aborted, timeoutMs);
    }
  }
  clearTimeout(timer);
  const answer = redactSecretsDeep(result.answer ?? {}, masked);
  const providerRef = result.providerRef ?? (result.status === 'failed' ? null : providerRefOf(answer));
  const error = result.error
    ? {
        code: result.error.code,
        message: redactSecrets(result.error.message, masked),
        provider: connector.kind,
        transient: result.error.transient,
        attempt,
      }
    : null;
  return {
    verdict:
      result.status === 'failed'
        ? result.error?.transient
          ? 'retry'
          : 'failed'
        : result.status === 'pending'
          ? 'pending'
          : 'succeeded',
    response: { provider: connector.kind, status: result.status, body: answer },
    proof: {
      requestSha256: sha256Hex(requestBytes(row)),
      responseStatus: null,
      responseSha256: sha256Hex(JSON.stringify(answer)),
      startedAt: started.toISOString(),
      ms: Math.round(performance.now() - t0),
      idempotencyKey: row.idempotency_key,
      signed: false,
      adapter: connector.kind,
      providerStatus: result.status,
      providerRef,
    },
    error: result.status === 'failed' ? (error ?? { message: 'the provider refused it', attempt }) : null,
    providerRef,
    retryAfterMs: result.error?.retryAfterMs ?? null,
  };
}
