import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of the service that cuts one connection in the middle of its answer: the first connection whose
 * answer carries `marker` is closed right after that chunk went through (no end of the chunked body), as a dropped
 * network connection would be. Later connections pass untouched. `requests` keeps each connection's request head, so a
 * test can see what the client sent when it came back (its `Last-Event-ID`).
 */
export async function startDroppingProxy(target: string, marker: string) {
  const upstream = new URL(target);
  const requests: string[] = [];
  let dropped = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const server = net.connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(server);
    const index = requests.push('') - 1;
    let armed = true;
    client.on('data', (chunk) => {
      if (requests[index]!.length < 4096) requests[index] += chunk.toString('latin1');
      server.write(chunk);
    });
    server.on('data', (chunk) => {
      client.write(chunk);
      if (armed && dropped === 0 && chunk.toString('utf8').includes(marker)) {
        armed = false;
        dropped++;
        client.end();
        server.destroy();
      }
    });
    const close = () => {
      client.destroy();
      server.destroy();
    };
    client.on('error', close).on('close', close);
    server.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    dropped: () => dropped,
    stop: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
