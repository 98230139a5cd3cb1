import { randomBytes } from 'node:crypto';
import { providerConnector } from './bridge.js';
import { harness } from './harness.js';

/** What the Twilio tests share: test credentials (the fake's), the account's Twilio number. */
export const TWILIO_SID = `AC${randomBytes(16).toString('hex')}`;
export const TWILIO_TOKEN = randomBytes(16).toString('hex');
export const TWILIO_NUMBER = '+15005550006';

export interface TwilioAccount {
  token: string;
  accountId: string;
  connectorId: string;
  /** Where Twilio sends this connector's callbacks (and the number's inbound SMS webhook is set to). */
  callbackUrl: string;
}

/** An account with the Twilio credential in its vault and a twilio connector at the fake, sending from our number. */
export async function twilioAccount(fakeUrl: string, connectorId = 'twilio'): Promise<TwilioAccount> {
  const a = await harness.account();
  await providerConnector(
    a.token,
    { name: 'twilio', kind: 'basic', value: { username: TWILIO_SID, password: TWILIO_TOKEN } },
    {
      connectorId,
      kind: 'twilio',
      caps: ['msg.sms', 'msg.voice'],
      endpoint: `${fakeUrl}?From=${encodeURIComponent(TWILIO_NUMBER)}`,
    },
  );
  const base = (harness.config.PUBLIC_BASE_URL ?? `http://localhost:${harness.config.PORT}`).replace(/\/+$/, '');
  return { ...a, connectorId, callbackUrl: `${base}/v1/channels/callbacks/${a.accountId}/${connectorId}` };
}
