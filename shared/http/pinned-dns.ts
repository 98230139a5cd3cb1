import dns from 'node:dns';
import net from 'node:net';
import { AppError } from '../errors.js';
import { classifyAddress, normalizeHost, refusedHost } from './address-ranges.js';

/**
 * Resolve once, check, connect to what was checked. A name is looked up a
 * single time per connection (per browser run for chromium); every address
 * of the answer is checked against the special-purpose ranges, and the
 * socket connects only to an address from that checked answer. Nothing
 * resolves the name a second time, so a host whose DNS answers a public
 * address first and 127.0.0.1 or 169.254.169.254 next (DNS rebinding) never
 * gets the second answer used.
 */

export class EgressRefused extends AppError {
  constructor(message: string) {
    super('invalidPayload', message);
  }
}

/**
 * The one reason a refused target gets at connect time, stored in the
 * delivery ledger as is. A blocked address, a local name and a name that does
 * not resolve at all read the same, so a caller cannot use their endpoint's
 * error to learn which internal names exist or where they point.
 */
export const REFUSED_TARGET = 'endpoint host did not resolve to an allowed address';

export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

/** A name's addresses, all of them (getaddrinfo order). */
export type Resolver = (hostname: string) => Promise<PinnedAddress[]>;

/**
 * Where names are resolved and which addresses are refused beyond the
 * special-purpose ranges. Both default to the real thing (the system
 * resolver, no extra refusals); tests pass a resolver they control and a
 * deny list that holds even when private egress is allowed.
 */
export interface EgressPin {
  resolve?: Resolver;
  /** Refused on top of the ranges, whether or not private egress is allowed. */
  refuse?: (address: string) => boolean;
}

const systemResolver: Resolver = async (hostname) => {
  const list = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Whether `address` (an IP literal) may be connected to under this policy. */
export function addressAllowed(address: string, allowPrivate: boolean, pin: EgressPin = {}): boolean {
  if (pin.refuse?.(address)) return false;
  return allowPrivate || classifyAddress(address).allowed;
}

/**
 * The checked addresses to connect to for `host` (a name or an IP literal):
 * the answer of one lookup with every refused address removed. Rejects with
 * EgressRefused(REFUSED_TARGET) for a local name, a refused literal, a name
 * that does not resolve or one with no allowed address left.
 */
export async function resolveChecked(
  host: string,
  allowPrivate: boolean,
  pin: EgressPin = {},
): Promise<PinnedAddress[]> {
  const h = normalizeHost(host).replace(/%.*$/, '');
  if (!allowPrivate && refusedHost(h)) throw new EgressRefused(REFUSED_TARGET);
  const literal = net.isIP(h);
  let answer: PinnedAddress[];
  if (literal) answer = [{ address: h, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      answer = await (pin.resolve ?? systemResolver)(h);
    } catch (err) {
      // A name that does not resolve reads like a refused one (see REFUSED_TARGET), unless nothing is guarded.
      if (allowPrivate && !pin.refuse) throw err;
      throw new EgressRefused(REFUSED_TARGET);
    }
  }
  const allowed = answer.filter((a) => net.isIP(a.address) && addressAllowed(a.address, allowPrivate, pin));
  if (allowed.length === 0) throw new EgressRefused(REFUSED_TARGET);
  return allowed;
}

type LookupCallback = (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls/undici `connect` that resolves through
 * resolveChecked: the socket connects to the address this lookup checked,
 * and to nothing else. Honours `all` (Node's happy-eyeballs asks for every
 * address) and `family`.
 */
export function pinnedLookup(allowPrivate: boolean, pin: EgressPin = {}) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolveChecked(hostname, allowPrivate, pin).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const wanted = family ? addresses.filter((a) => a.family === family) : addresses;
        if (wanted.length === 0) return callback(new EgressRefused(REFUSED_TARGET), '', 0);
        if (options.all) return callback(null, wanted);
        callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (err: Error) => callback(err, '', 0),
    );
  };
}
