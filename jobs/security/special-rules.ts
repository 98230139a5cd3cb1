import { isPlaceholder, isReferenceValue } from './logic.js';
import { jwtState } from './own-rules.js';
import type { ProviderRule } from './rule-table.js';

/**
 * The gitleaks rules that are not one pattern: a keystore known by its file
 * name, credentials in a curl command that may span continued lines, the
 * data of a Kubernetes Secret manifest, and a JSON Web Token that was
 * base64-encoded once more. Each finds ranges; the engine (provider-keys.ts)
 * judges them like the table's matches.
 */

export interface Found {
  start: number;
  end: number;
  suppress?: 'placeholder' | 'reference' | undefined;
  variant?: 'test' | 'expired';
}

export interface SpecialRule extends ProviderRule {
  scan(content: string): Found[];
}

/** A curl command: the line it starts on and up to five lines continued with a trailing backslash. */
function curlCommands(content: string): Array<{ text: string; at: number }> {
  const commands = [];
  let end = 0;
  for (const m of content.matchAll(/\bcurl\b/g)) {
    if (m.index < end) continue; // within the command before: windows never overlap, so the scan stays linear
    end = m.index;
    for (let lines = 0; lines < 6; lines++) {
      const eol = content.indexOf('\n', end);
      if (eol === -1) {
        end = content.length;
        break;
      }
      end = eol + 1;
      if (!/\\\r?\n$/.test(content.slice(Math.max(m.index, eol - 2), eol + 1))) break;
    }
    end = Math.min(end, m.index + 4000);
    commands.push({ text: content.slice(m.index, end), at: m.index });
  }
  return commands;
}

// -H "Authorization: [Basic|Bearer|Token ]VALUE" or -H 'X-Api-Key: VALUE' (any X-…-Key or -Token header).
const CURL_HEADER = new RegExp(
  String.raw`(?:^|\s)(?:-H|--header)(?:=|[ \t]{0,5})(["'])` +
    String.raw`(?:Authorization:[ \t]{0,5}(?:(?:Basic|Bearer|(?:Api-)?Token)[ \t]{1,5})?` +
    String.raw`|(?:X-(?:[a-z]{1,30}-)?)?(?:Api-?)?(?:Key|Token):[ \t]{0,5})` +
    String.raw`([\w=~@.+/-]{8,1000})\1`,
  'gid',
);
const CURL_USER = /(?:^|\s)(?:-u|--user)(?:=|[ \t]{1,5})(["']?)([^\s:"']{0,200}):([^\s"']{0,200})\1(?=\s|$)/dg;

function curlFinds(pattern: RegExp, pick: (m: RegExpMatchArray) => [number, number] | null) {
  return (content: string): Found[] =>
    curlCommands(content).flatMap(({ text, at }) =>
      [...text.matchAll(pattern)].flatMap((m) => {
        const range = pick(m);
        if (!range) return [];
        const value = text.slice(range[0], range[1]);
        const suppress = isReferenceValue(value) ? 'reference' : isPlaceholder(value) ? 'placeholder' : undefined;
        return [{ start: at + range[0], end: at + range[1], suppress }];
      }),
    );
}

/** `user:password`: the password; `token:` (as Stripe's and others' docs write it): the user part. */
function curlUserSecret(m: RegExpMatchArray): [number, number] | null {
  const [user, password] = [m.indices![2]!, m.indices![3]!];
  const length = password[1] - password[0];
  if (length >= 3) return password;
  return length === 0 && user[1] - user[0] >= 3 ? user : null;
}

const SECRET_KIND = /^[ \t]*kind:[ \t]*["']?Secret["']?[ \t]*(?:#.*)?$/m;
const DATA_BLOCK = /^([ \t]*)(data|stringData):[ \t]*(?:#.*)?$/gm;
const ENTRY = /^([ \t]+)([\w.-]{1,253}):[ \t]*(["']?)([^\s"'#]{1,100000})\3[ \t]*(?:#.*)?$/;

/** The values under `data:` (base64, at least 10 characters) and `stringData:` of each Secret document of a file. */
function kubernetesSecretValues(content: string): Found[] {
  const found: Found[] = [];
  const cuts = [...content.matchAll(/^---[^\n]*$/gm)].flatMap((m) => [m.index, m.index + m[0].length]);
  const bounds = [0, ...cuts, content.length];
  for (let d = 0; d < bounds.length; d += 2) {
    const from = bounds[d]!;
    const doc = content.slice(from, bounds[d + 1]);
    if (!SECRET_KIND.test(doc)) continue;
    for (const block of doc.matchAll(DATA_BLOCK)) {
      const base64 = block[2] === 'data';
      for (let at = block.index + block[0].length + 1; at < doc.length;) {
        const eol = doc.indexOf('\n', at) === -1 ? doc.length : doc.indexOf('\n', at);
        const m = ENTRY.exec(doc.slice(at, eol).replace(/\r$/, ''));
        if (!m || m[1]!.length <= block[1]!.length) break;
        const value = m[4]!;
        if (!base64 || /^[a-z0-9+/]{10,}={0,3}$/i.test(value)) {
          const plain = base64 ? Buffer.from(value, 'base64').toString('utf8') : value;
          const suppress = isReferenceValue(plain) ? 'reference' : isPlaceholder(plain) ? 'placeholder' : undefined;
          const start = from + at + m[0].lastIndexOf(value);
          if (plain.length >= 8 || suppress) found.push({ start, end: start + value.length, suppress });
        }
        at = eol + 1;
      }
    }
  }
  return found;
}

// It starts where a base64 run starts, and the run is taken whole (the lookahead-backreference cannot backtrack).
const JWT_BASE64 = /(?<![\w+/=])ZXlK(?=([A-Za-z0-9+/]{40,12000}))\1={0,2}(?![\w+/=])/g;

export const SPECIAL_RULES: SpecialRule[] = [
  {
    id: 'pkcs12-file',
    kind: 'privateKey',
    label: 'PKCS#12 keystore',
    keywords: [],
    path: /(?:^|\/)[^/]+\.p(?:12|fx)$/i,
    scan: (content) => (content.length > 0 ? [{ start: 0, end: content.length }] : []),
  },
  {
    id: 'curl-auth-header',
    kind: 'apiToken',
    label: 'credential in a curl header',
    keywords: ['curl'],
    entropy: 2.75,
    scan: curlFinds(CURL_HEADER, (m) => m.indices![2]!),
  },
  {
    id: 'curl-auth-user',
    kind: 'basicAuthCredentials',
    label: 'password in a curl command (-u)',
    keywords: ['curl'],
    entropy: 2,
    scan: curlFinds(CURL_USER, curlUserSecret),
  },
  {
    id: 'kubernetes-secret-yaml',
    kind: 'kubernetesSecret',
    label: 'value in a Kubernetes Secret manifest',
    keywords: ['secret'],
    path: /\.ya?ml$/i,
    scan: kubernetesSecretValues,
  },
  {
    id: 'jwt-base64',
    kind: 'jwt',
    label: 'base64-encoded JSON Web Token',
    keywords: ['zxlk'],
    scan: (content) =>
      [...content.matchAll(JWT_BASE64)].flatMap((m) => {
        const state = jwtState(Buffer.from(m[0], 'base64').toString('utf8').trim());
        if (!state) return [];
        return [{ start: m.index, end: m.index + m[0].length, ...(state === 'expired' ? { variant: state } : {}) }];
      }),
  },
];
