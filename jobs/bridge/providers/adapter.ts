/**
 * The shape every provider adapter has (issue 31). A provider is a connector `kind` (`PROVIDER_KINDS`): the connector
 * row holds its base URL (`endpoint`: the provider's own API, or an override for tests and regional endpoints), its
 * credential reference (opened in the acting account's vault) and its callback signing secret. An adapter calls the
 * provider through its official SDK, with the provider's own idempotency mechanism, retries only the provider's
 * documented transient errors, and maps its error codes to clear answers.
 */
import type { Deps } from '../../../shared/deps.js';
import type { ConnectorRow } from '../connectors-repository.js';
import type { ProviderCapability, ProviderKind } from './kinds.js';

export interface ProviderCallContext {
  deps: Pick<Deps, 'config' | 'db' | 'redis' | 'log'>;
  connector: ConnectorRow;
  /** The credential, opened from the acting account's vault (never logged, never answered). */
  secret: string | null;
  /** Stable across retries of one action: passed as the provider's idempotency key where it has one. */
  idempotencyKey: string;
  signal?: AbortSignal;
  /** The acting account (a platform connector serves several): the one its callbacks land on. */
  accountId?: string;
}

/** A provider's answer, with what the service keeps of it (no secret, nothing the provider echoed of one). */
export interface ProviderResult {
  /** `pending`: accepted, its outcome arrives by callback (an SMS queued, a payment processing). */
  status: 'succeeded' | 'pending' | 'failed';
  /** The provider's id for what it did (PaymentIntent, message SID, Slack ts, SMTP message id). */
  providerRef: string | null;
  answer: Record<string, unknown>;
  /** Set when `failed`: the provider's code, a message for clients, and whether a retry may succeed. */
  error?: { code: string; message: string; transient: boolean; retryAfterMs?: number };
}

/** A provider callback as it arrived: the raw body its signature covers, the headers, the public URL it was sent to. */
export interface ProviderCallback {
  rawBody: string;
  contentType: string;
  headers: Record<string, string | undefined>;
  url: string;
  receivedAt: Date;
}

/** What a verified callback says, in the service's words (channels reconciles it: an action, a mission, a thread). */
export type ProviderEvent =
  | { kind: 'deliveryStatus'; providerRef: string; status: 'delivered' | 'failed' | 'pending'; error?: string }
  | {
      kind: 'inbound';
      /** The sender (a phone number, an email address, a Slack user) and where it was sent to. */
      from: string;
      to: string | null;
      text: string;
      providerRef: string | null;
      /** The provider's id of the message this one answers, when it says (email In-Reply-To, a Slack thread). */
      inReplyTo: string | null;
      /** How it came: an SMS, a call's gathered answer (speech or keypad), an email, a chat message. */
      channel?: 'sms' | 'voice' | 'email' | 'chat';
    };

export type CallbackVerdict = { ok: true; externalId: string } | { ok: false; reason: string };

export interface ProviderAdapter {
  kind: ProviderKind;
  capabilities: readonly ProviderCapability[];
  call(
    capability: ProviderCapability,
    input: Record<string, unknown>,
    ctx: ProviderCallContext,
  ): Promise<ProviderResult>;
  /**
   * Checks a callback by the provider's own scheme (Stripe-Signature, X-Twilio-Signature over the form parameters,
   * Slack's signing secret): the signature is the authentication; a replay outside the provider's timestamp window
   * is refused. `externalId` names the callback once (its redelivery has the same one).
   */
  verifyCallback?(callback: ProviderCallback, signingSecret: string): CallbackVerdict;
  /**
   * Loads the provider's SDK, which `verifyCallback`, `parseCallback` and `callbackReply` may need: awaited before
   * them. SDKs load on first use (`call` loads its own), so a process that never talks to a provider never holds it.
   */
  load?(): Promise<void>;
  /** Reads a verified callback (a status callback, an inbound SMS, a Slack interaction, an inbound email). */
  parseCallback?(callback: ProviderCallback): ProviderEvent[];
  /**
   * The connector's signing secret contract (issue 31): why `secret` is not one this provider signs with (a clear 400
   * when a connector is registered or updated with it), or null. Without it a secret must be Standard Webhooks'
   * `whsec_…`.
   */
  signingSecretProblem?(secret: string): string | null;
  /**
   * The secret callbacks are verified with when the connector has no signing secret of its own, taken from its opened
   * credential (Twilio signs with the account's auth token); null when the credential holds none.
   */
  signingSecretFromCredential?(credential: string): string | null;
  /**
   * What the provider expects in answer to a callback (Twilio: TwiML; Slack: its `url_verification` challenge, else
   * an empty 200); absent or null: the service's JSON.
   */
  callbackReply?(events: ProviderEvent[], callback: ProviderCallback): { contentType: string; body: string } | null;
}

/** A failed answer: the provider's (or the service's) code, a message for clients, whether a retry may succeed. */
export const failed = (code: string, message: string, transient: boolean, retryAfterMs?: number): ProviderResult => ({
  status: 'failed',
  providerRef: null,
  answer: {},
  error: { code, message, transient, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
});

/** An input check's TypeError as a permanent `invalidInput` failure (nothing was sent); any other error goes on up. */
export function invalidInput(err: unknown): ProviderResult {
  if (!(err instanceof TypeError)) throw err;
  return failed('invalidInput', err.message, false);
}
