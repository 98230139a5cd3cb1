import type { Deps } from '../../shared/deps.js';
import { AppError, notFound, policyViolation } from '../../shared/errors.js';
import type { Principal } from '../../shared/schemas/auth.js';
import { getConnector, paymentMethodOwner } from '../bridge/index.js';
import { providerContext } from './provider-call.js';
import type { ProviderBackingCreate } from './provider-schemas.js';
import type { ProviderBacking } from './repository.js';

/**
 * A mandate's Stripe backing, checked before the mandate is written: the connector is the caller's (or a platform
 * one) of kind stripe with pay.charge (404 / 422 otherwise), its secret key opens, and Stripe says the PaymentMethod
 * is attached to that Customer (422 `paymentMethodNotCustomers`, or Stripe's own refusal; 503 while Stripe is down).
 * The client saved the PaymentMethod with a SetupIntent (`usage: off_session`) through Stripe.js beforehand.
 */
export async function checkedBacking(
  deps: Deps,
  principal: Principal,
  ask: ProviderBackingCreate,
): Promise<ProviderBacking> {
  const connector = await getConnector(deps.db, principal.accountId, ask.connectorId);
  if (!connector) throw notFound(`Connector ${ask.connectorId}`);
  if (connector.kind !== 'stripe' || !connector.caps.includes('pay.charge'))
    throw policyViolation(`Connector ${ask.connectorId} is not a Stripe connector with pay.charge`, {
      reason: 'notAPaymentConnector',
      kind: connector.kind,
    });
  const got = await providerContext(deps, principal.accountId, connector.id, `check:${ask.paymentMethod}`);
  if ('error' in got) throw policyViolation(got.error.message, { reason: got.error.code });
  const owner = await paymentMethodOwner(got.ctx, ask.paymentMethod);
  if ('error' in owner) {
    if (owner.error.transient) throw new AppError('unavailable', `Stripe could not be asked: ${owner.error.message}`);
    throw policyViolation(`Stripe refused the payment method: ${owner.error.message}`, { reason: owner.error.code });
  }
  if (owner.customer !== ask.customer)
    throw policyViolation(`Payment method ${ask.paymentMethod} is not attached to customer ${ask.customer}`, {
      reason: 'paymentMethodNotCustomers',
    });
  return {
    provider: 'stripe',
    connectorPk: connector.id,
    connectorId: connector.connector_id,
    customer: ask.customer,
    paymentMethod: ask.paymentMethod,
  };
}
