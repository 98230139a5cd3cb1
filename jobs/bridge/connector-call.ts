import type { Deps } from '../../shared/deps.js';
import type { ConnectorRow } from './connectors-repository.js';
import { egressFailureReason, egressFetch } from '../../shared/http/egress.js';
import { redactSecrets } from '../../shared/secrets.js';
import { openStored } from '../../shared/vault/index.js';
import { resolveReference, type RefContext } from '../credentials/index.js';
import { retryAfterMs } from '../events/index.js';
import { credentialHeaders, parsedAnswer, sha256Hex, signatureHeaders } from './action-logic.js';

/** Largest provider answer kept (the rest is cut; the proof hashes what was read). */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface ConnectorCall {
  /** Stable across retries: the provider's deduplication key. */
  idempotencyKey: string;
  /** `webhook-id` of the signature (the action id: the same message on every attempt). */
  msgId: string;
  body: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface CallResult {
  status: number | null;
  answer: unknown;
  error: string | null;
  retryAfterMs: number | null;
  proof: {
    requestSha256: string;
    responseStatus: number | null;
    responseSha256: string | null;
    startedAt: string;
    ms: number;
    idempotencyKey: string;
    signed: boolean;
  };
}

/**
 * One POST of a hosted action to the connector's endpoint through the
 * guarded egress client: the credential resolved in the acting account's
 * vault (or, on a platform connector, from this server's environment) in
 * its header, the Idempotency-Key, Standard Webhooks signature headers when
 * the connector has a signing secret (opened from its sealed form), the
 * time limit. An unresolvable credential throws (policyViolation naming the
 * reference, the same whether it is missing or another account's).
 * What the provider answered is kept with every resolved value masked, so
 * an endpoint that echoes its credential cannot leak it into a response.
 */
export async function callConnector(
  deps: Pick<Deps, 'config' | 'db' | 'redis'>,
  ctx: RefContext,
  connector: ConnectorRow,
  call: ConnectorCall,
): Promise<CallResult> {
  const secret = connector.credential
    ? await resolveReference(deps, { ...ctx, allowEnv: connector.platform }, connector.credential.tokenRef)
    : null;
  const signingSecret = await openStored(deps, connector.signing_secret);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'awp-bridge/0.1',
    'idempotency-key': call.idempotencyKey,
    ...(secret ? credentialHeaders(connector.credential!.type, secret, call.body) : {}),
    ...(signingSecret ? signatureHeaders(signingSecret, call.msgId, Math.floor(Date.now() / 1000), call.body) : {}),
  };
  const started = new Date();
  const t0 = performance.now();
  const proof = (status: number | null, body: Buffer | null) => ({
    requestSha256: sha256Hex(call.body),
    responseStatus: status,
    responseSha256: body ? sha256Hex(body) : null,
    startedAt: started.toISOString(),
    ms: Math.round(performance.now() - t0),
    idempotencyKey: call.idempotencyKey,
    signed: Boolean(connector.signing_secret),
  });
  try {
    const res = await egressFetch(deps.config.AWP_ALLOW_PRIVATE_EGRESS, connector.endpoint, {
      method: 'POST',
      headers,
      body: call.body,
      timeoutMs: call.timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
      signal: call.signal,
    });
    const text = redactSecrets(res.text, secret ? [secret] : []);
    return {
      status: res.status,
      answer: parsedAnswer(text),
      error: null,
      retryAfterMs: res.status === 429 ? retryAfterMs(res.headers['retry-after']) : null,
      proof: proof(res.status, res.body),
    };
  } catch (err) {
    if (call.signal?.aborted) throw err;
    return {
      status: null,
      answer: null,
      error: egressFailureReason(err),
      retryAfterMs: null,
      proof: proof(null, null),
    };
  }
}
