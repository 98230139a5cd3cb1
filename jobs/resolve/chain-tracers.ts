import { invalidPayload, notFound } from '../../shared/errors.js';
import { esplora, rpc, type ProviderTarget } from './chain-providers.js';

/**
 * How funds move on each chain family, read from its provider: the hops of
 * the starting transaction (or address), and the hops that spend what a hop
 * delivered. EVM: the native transfer and every ERC-20 Transfer log of the
 * transaction; onwards, Transfer logs of the same token from the receiving
 * address (native ether leaves no log, so it is not followed on). Bitcoin:
 * each output of the transaction (change back to an input address is not
 * a hop); onwards, the transaction that spent that output.
 */

export interface RawHop {
  txHash: string;
  from: string;
  to: string;
  raw: bigint;
  asset: string;
  decimals: number;
  contract: string | null;
  timestamp: string | null;
  /** EVM: block of the hop, where its receiver's onward transfers are searched from. Bitcoin: the output index. */
  block?: number;
  vout?: number;
}

export interface Tracer {
  start(input: { txHash?: string; address?: string }): Promise<RawHop[]>;
  next(hop: RawHop): Promise<RawHop[]>;
  limits: Set<string>;
}

const PER_ADDRESS = 10;
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const hexInt = (h: unknown) => (typeof h === 'string' && /^0x[0-9a-f]*$/i.test(h) ? BigInt(h === '0x' ? 0 : h) : 0n);
const topicAddress = (topic: string) => `0x${topic.slice(-40)}`.toLowerCase();
const iso = (seconds: bigint | number | null | undefined) =>
  seconds ? new Date(Number(seconds) * 1000).toISOString() : null;

/** ABI-decoded string return value (symbol()); null when it is not one. */
function abiString(hex: string): string | null {
  const data = hex.slice(2);
  if (data.length < 128) return null;
  const length = Number(BigInt(`0x${data.slice(64, 128)}`));
  const text = Buffer.from(data.slice(128, 128 + length * 2), 'hex').toString('utf8');
  return /^[\x20-\x7e]{1,20}$/.test(text) ? text : null;
}

export function evmTracer(t: ProviderTarget): Tracer {
  const limits = new Set<string>();
  const blockTimes = new Map<string, string | null>();
  const tokens = new Map<string, { symbol: string; decimals: number }>();
  const timeOf = async (blockHex: string) => {
    if (!blockTimes.has(blockHex))
      blockTimes.set(blockHex, iso(hexInt((await rpc(t, 'eth_getBlockByNumber', [blockHex, false]))?.timestamp)));
    return blockTimes.get(blockHex)!;
  };
  const token = async (contract: string) => {
    if (!tokens.has(contract)) {
      const decimals = await rpc(t, 'eth_call', [{ to: contract, data: '0x313ce567' }, 'latest']).then(
        (r) => Number(hexInt(r)),
        () => 0,
      );
      const symbol = await rpc(t, 'eth_call', [{ to: contract, data: '0x95d89b41' }, 'latest']).then(
        (r) => (typeof r === 'string' ? abiString(r) : null),
        () => null,
      );
      if (decimals === 0)
        limits.add(`token ${contract} did not answer decimals(); its amounts are shown in its smallest unit`);
      tokens.set(contract, { symbol: symbol ?? contract, decimals: decimals <= 36 ? decimals : 0 });
    }
    return tokens.get(contract)!;
  };
  const fromLogs = async (logs: any[]): Promise<RawHop[]> => {
    const hops: RawHop[] = [];
    for (const log of logs) {
      // ERC-721 Transfer has 4 topics
      if (!Array.isArray(log?.topics) || log.topics[0] !== TRANSFER || log.topics.length !== 3) continue;
      const contract = String(log.address).toLowerCase();
      const meta = await token(contract);
      hops.push({
        txHash: String(log.transactionHash ?? ''),
        from: topicAddress(log.topics[1]),
        to: topicAddress(log.topics[2]),
        raw: hexInt(log.data),
        asset: meta.symbol,
        decimals: meta.decimals,
        contract,
        timestamp: await timeOf(log.blockNumber),
        block: Number(hexInt(log.blockNumber)),
      });
    }
    return hops;
  };
  return {
    limits,
    async start({ txHash, address }) {
      if (address)
        return this.next({
          txHash: '',
          from: '',
          to: address.toLowerCase(),
          raw: 0n,
          asset: '',
          decimals: 0,
          contract: null,
          timestamp: null,
          block: 0,
        });
      if (!/^0x[0-9a-f]{64}$/i.test(txHash!))
        throw invalidPayload('txHash on an EVM chain is 0x and 64 hex digits', [
          { path: '/txHash', message: 'must be 0x + 64 hex', keyword: 'pattern' },
        ]);
      const tx = await rpc(t, 'eth_getTransactionByHash', [txHash]);
      if (!tx) throw notFound(`Transaction ${txHash} on the configured EVM chain`);
      if (!tx.blockNumber) limits.add(`${txHash} is still pending; only its native transfer is shown`);
      const hops: RawHop[] = [];
      const value = hexInt(tx.value);
      if (value > 0n && tx.to)
        hops.push({
          txHash: tx.hash,
          from: String(tx.from).toLowerCase(),
          to: String(tx.to).toLowerCase(),
          raw: value,
          asset: 'ETH',
          decimals: 18,
          contract: null,
          timestamp: tx.blockNumber ? await timeOf(tx.blockNumber) : null,
          block: Number(hexInt(tx.blockNumber)),
        });
      if (tx.blockNumber)
        hops.push(...(await fromLogs((await rpc(t, 'eth_getTransactionReceipt', [txHash]))?.logs ?? [])));
      return hops;
    },
    async next(hop) {
      if (hop.txHash && hop.contract === null) {
        limits.add(
          "native ether is not followed past its first hop: JSON-RPC has no index of an address's outgoing " +
            'transactions (ERC-20 transfers are followed through their logs)',
        );
        return [];
      }
      const filter = {
        fromBlock: `0x${(hop.block ?? 0).toString(16)}`,
        toBlock: 'latest',
        topics: [TRANSFER, `0x${hop.to.slice(2).padStart(64, '0')}`],
        ...(hop.contract ? { address: hop.contract } : {}),
      };
      const logs = (await rpc(t, 'eth_getLogs', [filter])) as any[];
      if (Array.isArray(logs) && logs.length > PER_ADDRESS)
        limits.add(`${hop.to} made ${logs.length} transfers; the first ${PER_ADDRESS} are followed`);
      return fromLogs(Array.isArray(logs) ? logs.slice(0, PER_ADDRESS) : []);
    },
  };
}

export function bitcoinTracer(t: ProviderTarget): Tracer {
  const limits = new Set<string>();
  const outputsOf = (tx: any): RawHop[] => {
    const inputs = [
      ...new Set((tx.vin ?? []).map((v: any) => v?.prevout?.scriptpubkey_address).filter(Boolean)),
    ] as string[];
    if (inputs.length > 1)
      limits.add(`${tx.txid} spends from ${inputs.length} addresses; its hops name the first as sender`);
    return (tx.vout ?? []).flatMap((o: any, vout: number) =>
      o?.scriptpubkey_address && !inputs.includes(o.scriptpubkey_address)
        ? [
            {
              txHash: tx.txid,
              from: inputs[0] ?? 'coinbase',
              to: o.scriptpubkey_address,
              raw: BigInt(o.value ?? 0),
              asset: 'BTC',
              decimals: 8,
              contract: null,
              timestamp: iso(tx.status?.block_time),
              vout,
            },
          ]
        : [],
    );
  };
  return {
    limits,
    async start({ txHash, address }) {
      if (address) {
        const txs = (await esplora(t, `/address/${encodeURIComponent(address)}/txs`)) as any[] | null;
        if (!txs) throw notFound(`Address ${address} on bitcoin`);
        return txs
          .filter((tx) => (tx.vin ?? []).some((v: any) => v?.prevout?.scriptpubkey_address === address))
          .slice(0, PER_ADDRESS)
          .flatMap(outputsOf);
      }
      if (!/^[0-9a-f]{64}$/i.test(txHash!))
        throw invalidPayload('txHash on bitcoin is 64 hex digits', [
          { path: '/txHash', message: 'must be 64 hex', keyword: 'pattern' },
        ]);
      const tx = await esplora(t, `/tx/${txHash}`);
      if (!tx) throw notFound(`Transaction ${txHash} on bitcoin`);
      return outputsOf(tx);
    },
    async next(hop) {
      const spend = await esplora(t, `/tx/${hop.txHash}/outspend/${hop.vout}`);
      if (!spend?.spent || !spend.txid) return [];
      const tx = await esplora(t, `/tx/${spend.txid}`);
      return tx ? outputsOf(tx) : [];
    },
  };
}
