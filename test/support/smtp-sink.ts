import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A minimal SMTP receiver (enough of RFC 5321 for nodemailer without TLS):
 * the real transport speaks real SMTP to it, and the test reads what arrived.
 */
export async function startSmtpSink(): Promise<{ url: string; messages: string[]; stop(): Promise<void> }> {
  const messages: string[] = [];
  const server = net.createServer((sock) => {
    let buffer = '';
    let inData = false;
    let data = '';
    sock.write('220 sink ESMTP\r\n');
    sock.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      let idx: number;
      while ((idx = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            messages.push(data);
            data = '';
            sock.write('250 queued\r\n');
          } else {
            data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          }
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') sock.write('250 sink\r\n');
        else if (verb === 'DATA') {
          inData = true;
          sock.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') sock.end('221 bye\r\n');
        else sock.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    stop: () => new Promise((r) => server.close(() => r())),
  };
}
