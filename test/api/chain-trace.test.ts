import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startExtraApp } from '../support/extra-app.js';
import { harness } from '../support/harness.js';

/**
 * A loopback server answering like the real provider: `answer(method or path, params)` gives the JSON body, or
 * undefined for 404.
 */
async function fakeProvider(answer: (what: string, params: any[]) => unknown) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const rpc = raw ? JSON.parse(raw) : null;
      const what = rpc ? rpc.method : req.url!;
      seen.push(what);
      const result = answer(what, rpc?.params ?? []);
      if (result === undefined && !rpc)
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Transaction not found');
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(rpc ? { jsonrpc: '2.0', id: rpc.id, result: result ?? null } : result));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const pad = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const USDT = '0xdac17f958d2ee523a2206206994597c13d831ec7';
const [VICTIM, SCAMMER, MULE, EXCHANGE, NEXT] = [
  '0x1111111111111111111111111111111111111111',
  '0x2222222222222222222222222222222222222222',
  '0x4444444444444444444444444444444444444444',
  '0x5555555555555555555555555555555555555555',
  '0x6666666666666666666666666666666666666666',
];
const TX = `0x${'a'.repeat(64)}`;
const DAY_AGO = Math.floor(Date.now() / 1000) - 86_400;
const log = (tx: string, block: number, from: string, to: string, amount: bigint) => ({
  address: USDT,
  topics: [TRANSFER, pad(from), pad(to)],
  data: pad(hex(amount)),
  blockNumber: hex(block),
  transactionHash: tx,
  logIndex: '0x0',
  removed: false,
});
/** symbol() → the ABI encoding of "USDT". */
const USDT_HEX = Buffer.from('USDT').toString('hex');
const SYMBOL = `0x${'20'.padStart(64, '0')}${'4'.padStart(64, '0')}${USDT_HEX.padEnd(64, '0')}`;

function evm(method: string, params: any[]): unknown {
  if (method === 'eth_getTransactionByHash')
    return params[0] === TX
      ? { hash: TX, from: VICTIM, to: USDT, value: '0x0', blockNumber: hex(100), input: '0xa9059cbb' }
      : null;
  if (method === 'eth_getTransactionReceipt')
    return { transactionHash: TX, status: '0x1', logs: [log(TX, 100, VICTIM, SCAMMER, 5_000_000_000n)] };
  if (method === 'eth_getBlockByNumber') return { number: params[0], timestamp: hex(DAY_AGO) };
  if (method === 'eth_call') return params[0].data === '0x313ce567' ? pad('0x6') : SYMBOL;
  if (method === 'eth_getLogs') {
    const from = `0x${params[0].topics[1].slice(-40)}`;
    if (from === SCAMMER)
      return [
        log(`0x${'b'.repeat(64)}`, 101, SCAMMER, MULE, 3_000_000_000n),
        log(`0x${'c'.repeat(64)}`, 102, SCAMMER, EXCHANGE, 2_000_000_000n),
      ];
    if (from === MULE) return [log(`0x${'d'.repeat(64)}`, 103, MULE, NEXT, 2_500_000_000n)];
    return [];
  }
  return null;
}

const btcTx = (txid: string, from: string, outs: Array<[string, number]>) => ({
  txid,
  vin: [{ txid: 'f'.repeat(64), vout: 0, prevout: { scriptpubkey_address: from, value: 1 } }],
  vout: outs.map(([a, v]) => ({ scriptpubkey_address: a, value: v })),
  status: { confirmed: true, block_time: DAY_AGO },
});
const [T1, T2] = ['1'.repeat(64), '2'.repeat(64)];
function esplora(path: string): unknown {
  if (path === `/tx/${T1}`)
    return btcTx(T1, 'bc1qvictim', [
      ['bc1qscam', 100_000],
      ['bc1qvictim', 5_000],
    ]);
  if (path === `/tx/${T1}/outspend/0`) return { spent: true, txid: T2, vin: 0 };
  if (path === `/tx/${T2}`)
    return btcTx(T2, 'bc1qscam', [
      ['bc1qmixer', 60_000],
      ['bc1qother', 39_000],
    ]);
  if (path.endsWith('/outspend/0') || path.endsWith('/outspend/1')) return { spent: false };
  if (path === '/address/bc1qscam/txs')
    return [
      btcTx(T2, 'bc1qscam', [
        ['bc1qmixer', 60_000],
        ['bc1qother', 39_000],
      ]),
    ];
  return undefined;
}

describe('POST /v1/tools/chainTrace and its labels', () => {
  let a: { token: string };
  let b: { token: string };
  let evmFake: Awaited<ReturnType<typeof fakeProvider>>;
  let btcFake: Awaited<ReturnType<typeof fakeProvider>>;
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  const call = (
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    token: string | null = a.token,
    base = app.url,
  ) => harness.call(method, path, { token: token ?? undefined, body }, base);
  before(async () => {
    a = await harness.account();
    b = await harness.account();
    evmFake = await fakeProvider(evm);
    btcFake = await fakeProvider((path) => esplora(path));
    app = await startExtraApp({ CHAIN_EVM_RPC_URL: evmFake.url, CHAIN_BTC_ESPLORA_URL: btcFake.url });
  });
  after(async () => {
    await app.stop();
    await evmFake.stop();
    await btcFake.stop();
  });

  it('with no provider configured: 422 saying so, never invented hops', async () => {
    for (const chain of ['ethereum', 'bitcoin']) {
      const res = await call(
        'POST',
        '/v1/tools/chainTrace',
        { chain, txHash: chain === 'bitcoin' ? T1 : TX },
        a.token,
        harness.url,
      );
      assert.equal(res.status, 422, res.text);
      assert.match(
        res.body.message,
        chain === 'bitcoin'
          ? /no Bitcoin Esplora provider.*CHAIN_BTC_ESPLORA_URL/
          : /no EVM JSON-RPC provider.*CHAIN_EVM_RPC_URL/,
      );
    }
  });

  it(
    'ethereum: ERC-20 hops through Transfer logs to depth 2, an exchange label matched, a freeze to request ' +
      'citing its hop',
    async () => {
      const label = await call('POST', '/v1/tools/chainTrace/labels', {
        chain: 'ethereum',
        address: EXCHANGE.toUpperCase().replace('0X', '0x'),
        kind: 'exchange',
        name: 'Binance deposit',
      });
      assert.equal(label.status, 201, label.text);
      assert.deepEqual([label.body.label.family, label.body.label.address], ['evm', EXCHANGE]);
      const res = await call('POST', '/v1/tools/chainTrace', { chain: 'ethereum', txHash: TX });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.hops.map((h: any) => [
          h.hopId,
          h.depth,
          h.from,
          h.to,
          h.amount.value,
          h.amount.asset,
          h.amount.decimals,
        ]),
        [
          ['h1', 1, VICTIM, SCAMMER, '5000', 'USDT', 6],
          ['h2', 2, SCAMMER, MULE, '3000', 'USDT', 6],
          ['h3', 2, SCAMMER, EXCHANGE, '2000', 'USDT', 6],
        ],
      );
      assert.equal(res.body.hops[0].timestamp, new Date(DAY_AGO * 1000).toISOString());
      assert.deepEqual(
        res.body.labelMatches.map((m: any) => [m.address, m.label.kind, m.hops]),
        [[EXCHANGE, 'exchange', ['h3']]],
      );
      const freeze = res.body.recoveryAssessment.actions.find((x: any) => x.action === 'requestFreeze');
      assert.deepEqual([freeze.where, freeze.citesHops], ['Binance deposit', ['h3']]);
      assert.equal(res.body.recoveryAssessment.urgency, 'critical');
      assert.ok(
        res.body.limits.some((l: string) => /depth 2 reached/.test(l)),
        "the mule's onward transfer lies beyond depth 2",
      );
      assert.ok(evmFake.seen.includes('eth_getTransactionReceipt') && evmFake.seen.includes('eth_getLogs'));

      const deeper = await call('POST', '/v1/tools/chainTrace', { chain: 'evm', txHash: TX, depth: 3 });
      assert.deepEqual(
        deeper.body.hops.map((h: any) => h.to),
        [SCAMMER, MULE, EXCHANGE, NEXT],
      );
      const one = await call('POST', '/v1/tools/chainTrace', { chain: 'evm', txHash: TX, depth: 1 });
      assert.deepEqual(
        one.body.hops.map((h: any) => h.hopId),
        ['h1'],
      );
    },
  );

  it(
    'bitcoin: outputs (change skipped) and the spending ' + 'transaction through Esplora; from an address too',
    async () => {
      await call('POST', '/v1/tools/chainTrace/labels', {
        chain: 'bitcoin',
        address: 'bc1qmixer',
        kind: 'mixer',
        name: 'Mixer X',
      });
      const res = await call('POST', '/v1/tools/chainTrace', { chain: 'bitcoin', txHash: T1 });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.hops.map((h: any) => [h.hopId, h.depth, h.from, h.to, h.amount.value, h.amount.asset]),
        [
          ['h1', 1, 'bc1qvictim', 'bc1qscam', '0.001', 'BTC'],
          ['h2', 2, 'bc1qscam', 'bc1qmixer', '0.0006', 'BTC'],
          ['h3', 2, 'bc1qscam', 'bc1qother', '0.00039', 'BTC'],
        ],
      );
      assert.deepEqual(
        res.body.labelMatches.map((m: any) => [m.address, m.label.kind]),
        [['bc1qmixer', 'mixer']],
      );
      assert.ok(
        res.body.recoveryAssessment.actions.some(
          (x: any) => x.action === 'reportToAuthorities' && x.citesHops.includes('h2'),
        ),
      );
      const fromAddress = await call('POST', '/v1/tools/chainTrace', {
        chain: 'bitcoin',
        address: 'bc1qscam',
        depth: 1,
      });
      assert.deepEqual(
        fromAddress.body.hops.map((h: any) => h.to),
        ['bc1qmixer', 'bc1qother'],
      );
      assert.equal(
        (await call('POST', '/v1/tools/chainTrace', { chain: 'bitcoin', txHash: '9'.repeat(64) })).status,
        404,
        'a transaction the provider does not know',
      );
    },
  );

  it("400 for bad input, 401 without a token, 404 for an unknown or another account's task", async () => {
    assert.equal((await call('POST', '/v1/tools/chainTrace', { txHash: TX })).status, 400);
    assert.equal((await call('POST', '/v1/tools/chainTrace', { chain: 'solana', txHash: TX })).status, 400);
    assert.equal((await call('POST', '/v1/tools/chainTrace', { chain: 'evm', txHash: TX, depth: 6 })).status, 400);
    assert.equal(
      (await call('POST', '/v1/tools/chainTrace', { chain: 'evm', txHash: TX, address: VICTIM })).status,
      400,
    );
    assert.equal((await call('POST', '/v1/tools/chainTrace', { chain: 'evm' })).status, 400);
    assert.equal((await call('POST', '/v1/tools/chainTrace', { chain: 'evm', txHash: '0x12' })).status, 400);
    assert.equal((await call('POST', '/v1/tools/chainTrace', { chain: 'evm', txHash: TX }, null)).status, 401);
    assert.equal(
      (await call('POST', '/v1/tools/chainTrace', { chain: 'evm', txHash: TX, taskId: 'task_nope' })).status,
      404,
    );
    const theirs = (
      await harness.call('POST', '/v1/tasks', { token: b.token, body: { domain: 'resolve', inData: {} } })
    ).body.task.taskId;
    assert.equal(
      (await call('POST', '/v1/tools/chainTrace', { chain: 'evm', txHash: TX, taskId: theirs })).status,
      404,
    );
  });

  it("labels: list, 409 on a duplicate, delete; 400, 401, and another account's label is 404", async () => {
    const made = await call('POST', '/v1/tools/chainTrace/labels', {
      chain: 'evm',
      address: NEXT,
      kind: 'knownScam',
      name: 'Reported wallet',
      note: 'IC3 report 123',
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(
      (
        await call('POST', '/v1/tools/chainTrace/labels', {
          chain: 'ethereum',
          address: NEXT,
          kind: 'exchange',
          name: 'dup',
        })
      ).status,
      409,
    );
    assert.equal(
      (await call('POST', '/v1/tools/chainTrace/labels', { chain: 'evm', address: NEXT, kind: 'friendly', name: 'x' }))
        .status,
      400,
    );
    assert.equal((await call('GET', '/v1/tools/chainTrace/labels', undefined, null)).status, 401);
    const list = await call('GET', '/v1/tools/chainTrace/labels');
    assert.ok(list.body.labels.some((l: any) => l.labelId === made.body.label.labelId && l.note === 'IC3 report 123'));
    assert.equal(
      (await call('GET', '/v1/tools/chainTrace/labels', undefined, b.token)).body.labels.length,
      0,
      'labels are per account',
    );
    assert.equal(
      (await call('DELETE', `/v1/tools/chainTrace/labels/${made.body.label.labelId}`, undefined, b.token)).status,
      404,
    );
    assert.equal((await call('DELETE', `/v1/tools/chainTrace/labels/${made.body.label.labelId}`)).status, 200);
    assert.equal((await call('DELETE', `/v1/tools/chainTrace/labels/${made.body.label.labelId}`)).status, 404);
  });
});
