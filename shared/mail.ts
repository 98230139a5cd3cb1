import nodemailer from 'nodemailer';
import type { Deps } from './deps.js';
import { newId } from './ids.js';

export interface Mail {
  accountId: string;
  to: string;
  subject: string;
  text: string;
}

/**
 * Records a mail in `outbound_mails` and, when `SMTP_URL` is set, sends it.
 * Without SMTP the row stays `stored` and a log line says so (without the
 * body, which can hold an activation token).
 */
export async function sendMail(deps: Pick<Deps, 'db' | 'config' | 'log'>, mail: Mail): Promise<'smtp' | 'stored' | 'failed'> {
  const id = newId('mail');
  await deps.db('outbound_mails').insert({ id, account_id: mail.accountId, to_address: mail.to, subject: mail.subject, text_body: mail.text, status: 'queued' });
  if (!deps.config.SMTP_URL) {
    await deps.db('outbound_mails').where({ id }).update({ status: 'stored' });
    deps.log.info({ mailId: id, to: mail.to, subject: mail.subject }, 'mail queued (no SMTP_URL: kept in outbound_mails)');
    return 'stored';
  }
  try {
    const transport = nodemailer.createTransport(deps.config.SMTP_URL);
    await transport.sendMail({ from: deps.config.MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text });
    await deps.db('outbound_mails').where({ id }).update({ status: 'sent' });
    return 'smtp';
  } catch (err) {
    // The account exists either way; the stored row lets an operator resend.
    await deps.db('outbound_mails').where({ id }).update({ status: 'failed', error: (err as Error).message.slice(0, 500) });
    deps.log.warn({ mailId: id, err: (err as Error).message }, 'activation mail could not be sent');
    return 'failed';
  }
}
