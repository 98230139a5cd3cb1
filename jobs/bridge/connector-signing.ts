// The connector's callback signing: which secret its kind verifies callbacks with, and the unsigned development mode.
import type { Deps } from '../../shared/deps.js';
import type { ConnectorRow } from './connectors-repository.js';
import type { FieldProblem } from './logic.js';
import { adapterFor } from './providers/index.js';

/**
 * `callbackSigning: unsigned` is the development setting: refused in production (NODE_ENV=production), and beside a
 * signing secret, whose signatures would be checked anyway.
 */
export function callbackSigningProblem(
  deps: Pick<Deps, 'config'>,
  signing: ConnectorRow['callback_signing'],
  hasSecret: boolean,
): FieldProblem | null {
  if (signing !== 'unsigned') return null;
  if (deps.config.NODE_ENV === 'production')
    return {
      path: '/callbackSigning',
      problem: 'unsignedInProduction',
      message:
        'callbackSigning unsigned is a development setting and is refused in production (NODE_ENV=production): ' +
        'give the connector a signingSecret (whsec_…) and have the provider sign its callbacks',
    };
  if (hasSecret)
    return {
      path: '/callbackSigning',
      problem: 'unsignedWithSecret',
      message:
        'callbackSigning unsigned is for a connector without a signingSecret: with one, callbacks are verified; ' +
        'drop one of the two',
    };
  return null;
}

/** Standard Webhooks' secret: `whsec_` and base64 of at least 16 bytes (the generic connectors' and Stripe's). */
const WHSEC = /^whsec_[A-Za-z0-9+/]{22,}={0,2}$/;

/**
 * The signing secret contract of the connector's kind (issue 31): a provider adapter says what it signs with (Twilio:
 * the auth token); every other kind takes a Standard Webhooks `whsec_…`.
 */
export function signingSecretProblem(kind: string, secret: string | null | undefined): FieldProblem | null {
  if (secret == null) return null;
  const adapter = adapterFor(kind);
  const message = adapter?.signingSecretProblem
    ? adapter.signingSecretProblem(secret)
    : WHSEC.test(secret)
      ? null
      : `a ${kind} connector's signingSecret is a Standard Webhooks secret: whsec_ and base64 of at least 16 bytes`;
  return message ? { path: '/signingSecret', problem: 'malformedSigningSecret', message } : null;
}
