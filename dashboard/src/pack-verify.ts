import canonicalize from 'canonicalize';

/**
 * A proof pack checked in the browser, from the pack and the service's JWK Set alone (the same check as
 * POST /v1/audit/proofPacks/verify, with nothing of the service trusted but its published key): every section's
 * SHA-256 over its RFC 8785 canonical JSON, every evidence item and source snapshot, the root hash over the header
 * and the section hashes, and the Ed25519 signature over the root hash with WebCrypto. A browser without Ed25519 in
 * WebCrypto still gets the hashes checked; the signature is then reported `unsupported` and the page offers the
 * service's own check instead. A page outside a secure context (plain HTTP to another host) has no WebCrypto at all:
 * `verifyPack` throws, and the page says so.
 */

export type SignatureCheck = 'valid' | 'invalid' | 'unknownKey' | 'unsupported';
export interface PackCheck {
  sections: Array<{ kind: string; ok: boolean; items: number; badItems: number }>;
  rootHash: { computed: string; sealed: string; ok: boolean };
  signature: SignatureCheck;
  kid: string;
  /** Whole pack intact and signed by a published key. */
  valid: boolean;
}

type Obj = Record<string, any>;
const enc = new TextEncoder();

async function sha256(value: unknown): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', enc.encode(canonicalize(value) ?? ''));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function fromBase64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(
    s
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(s.length / 4) * 4, '='),
  );
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function checkSignature(seal: Obj, jwks: { keys: Obj[] }): Promise<SignatureCheck> {
  const jwk = jwks.keys.find((k) => k.kid === seal.kid);
  if (!jwk) return 'unknownKey';
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey('jwk', { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, { name: 'Ed25519' }, false, [
      'verify',
    ]);
  } catch (e) {
    // An engine without Ed25519 refuses the algorithm by name; anything else is a key that is not one.
    return (e as Error).name === 'NotSupportedError' ? 'unsupported' : 'invalid';
  }
  try {
    const ok = await crypto.subtle.verify(
      { name: 'Ed25519' },
      key,
      fromBase64url(String(seal.signature)),
      enc.encode(String(seal.rootHash)),
    );
    return ok ? 'valid' : 'invalid';
  } catch {
    return 'invalid';
  }
}

export async function verifyPack(pack: Obj, jwks: { keys: Obj[] }): Promise<PackCheck> {
  const seal: Obj = pack.seal ?? {};
  const listed: Obj[] = Array.isArray(seal.sectionHashes) ? seal.sectionHashes : [];
  const sections = await Promise.all(
    (pack.sections as Obj[]).map(async (section, i) => {
      const nested: Obj[] =
        section.kind === 'evidenceMap' ? section.items : section.kind === 'sourceSnapshots' ? section.snapshots : [];
      let badItems = 0;
      for (const item of nested ?? []) {
        const { sha256: claimed, ...content } = item;
        const expected = await sha256(section.kind === 'sourceSnapshots' ? content.record : content);
        if (claimed !== expected) badItems++;
      }
      const entry = listed[i];
      const ok = !!entry && entry.kind === section.kind && entry.sha256 === (await sha256(section)) && badItems === 0;
      return { kind: String(section.kind), ok, items: nested?.length ?? 0, badItems };
    }),
  );
  const header = {
    packId: pack.packId,
    status: pack.status,
    cite: pack.cite,
    runId: pack.runId,
    sealedAt: pack.sealedAt,
  };
  const computed = await sha256({ header, sectionHashes: listed.map((e) => ({ kind: e.kind, sha256: e.sha256 })) });
  const rootHash = { computed, sealed: String(seal.rootHash ?? ''), ok: computed === seal.rootHash };
  const signature = await checkSignature(seal, jwks);
  const intact = sections.length === listed.length && sections.every((s) => s.ok) && rootHash.ok;
  return { sections, rootHash, signature, kid: String(seal.kid ?? ''), valid: intact && signature === 'valid' };
}
