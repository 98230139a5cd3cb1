import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerSession } from 'smtp-server';

/** A message as the server took it: the envelope, who authenticated, and the raw message (headers and body). */
export interface ReceivedMail {
  from: string;
  to: string[];
  user: string | null;
  raw: string;
}

/** How the server answers a recipient or a message: an SMTP reply code and its text (450, 451, 550, 552…). */
export interface SmtpRefusal {
  code: number;
  message: string;
}

/**
 * A real SMTP server in process (the `smtp-server` package, RFC 5321 with AUTH PLAIN/LOGIN), for the email adapter:
 * nodemailer speaks real SMTP to it and the test reads what arrived. `users` are the accounts AUTH accepts (none:
 * no AUTH needed); `recipients` refuses an address with a reply code; `nextData` refuses the next messages' DATA.
 */
export async function startSmtpServer(opts: { users?: Record<string, string> } = {}) {
  const received: ReceivedMail[] = [];
  const recipients = new Map<string, SmtpRefusal>();
  const nextData: SmtpRefusal[] = [];
  const users = opts.users ?? {};
  const refuse = (r: SmtpRefusal) => Object.assign(new Error(r.message), { responseCode: r.code });
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: Object.keys(users).length === 0,
    logger: false,
    onAuth(auth: SMTPServerAuthentication, _session: SMTPServerSession, done) {
      if (auth.username && users[auth.username] === auth.password) return done(null, { user: auth.username });
      done(refuse({ code: 535, message: '5.7.8 Authentication credentials invalid' }));
    },
    onRcptTo(address, _session, done) {
      const refusal = recipients.get(address.address.toLowerCase());
      done(refusal ? refuse(refusal) : undefined);
    },
    onData(stream, session, done) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (raw += d));
      stream.on('end', () => {
        const refusal = nextData.shift();
        if (refusal) return done(refuse(refusal));
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : null,
          raw,
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Refuses RCPT TO for `address` with this reply (550: no such mailbox; 450: try later). */
    refuseRecipient: (address: string, refusal: SmtpRefusal) => recipients.set(address.toLowerCase(), refusal),
    /** Refuses the DATA of the next messages, in order. */
    refuseNextData: (...refusals: SmtpRefusal[]) => nextData.push(...refusals),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type SmtpTestServer = Awaited<ReturnType<typeof startSmtpServer>>;

/** The header `name` of a raw message (unfolded), or undefined. */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
