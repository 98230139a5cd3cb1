import { Value } from '@sinclair/typebox/value';
import { KIND_VALUES, type CredentialKind, type KindValue } from './schemas.js';

/**
 * The vault's pure rules: which value a kind takes, what is sealed, what a
 * reference resolves to, how an OAuth2 token answer is read. Messages name
 * fields, never values.
 */

export type Obj = Record<string, unknown>;
export type Material = string | Obj;

/** Why `value` is not a value of `kind` (a message naming fields only), or null. */
export function valueProblem(kind: CredentialKind, value: unknown): string | null {
  const schema = KIND_VALUES[kind];
  if (Value.Check(schema, value)) return null;
  const first = Value.Errors(schema, value).First();
  const at = first?.path ? `/value${first.path}` : '/value';
  const shape = typeof schema.type === 'string' && schema.type === 'object' ? 'an object' : 'a string';
  const why = first ? ` (${first.message.replace(/'[^']*'/g, 'the value')})` : '';
  return `${at}: a ${kind} credential's value is ${shape}${why}`;
}

/** What is sealed: the value, as text (objects as JSON). */
export const sealable = (value: Material): string => (typeof value === 'string' ? value : JSON.stringify(value));

export function unsealed(kind: CredentialKind, text: string): Material {
  return (KIND_VALUES[kind] as { type?: string }).type === 'object' ? (JSON.parse(text) as Obj) : text;
}

export const isOAuth = (kind: string): kind is 'oauth2ClientCredentials' | 'oauth2RefreshToken' =>
  kind === 'oauth2ClientCredentials' || kind === 'oauth2RefreshToken';

/**
 * The secret text a reference stands for where one string is wanted (a
 * header, a form field): the value itself; `user:password` for basic.
 * OAuth2 kinds resolve to an access token instead (jobs/credentials/oauth.ts).
 */
export function presented(kind: CredentialKind, material: Material): string {
  if (kind === 'basic') {
    const v = material as KindValue<'basic'>;
    return `${v.username}:${v.password}`;
  }
  return material as string;
}

/** The form body of a token request. */
export function tokenRequest(kind: 'oauth2ClientCredentials' | 'oauth2RefreshToken', material: Obj): string {
  const v = material as Record<string, string | undefined>;
  const form = new URLSearchParams();
  if (kind === 'oauth2ClientCredentials') form.set('grant_type', 'client_credentials');
  else {
    form.set('grant_type', 'refresh_token');
    form.set('refresh_token', v.refreshToken!);
  }
  form.set('client_id', v.clientId!);
  if (v.clientSecret) form.set('client_secret', v.clientSecret);
  if (v.scope) form.set('scope', v.scope);
  if (v.audience) form.set('audience', v.audience);
  return form.toString();
}

export interface TokenAnswer {
  accessToken: string;
  /** Seconds the token lives (the answer's expires_in; an hour when it says nothing). */
  expiresIn: number;
  /** A provider that rotates refresh tokens sends a new one. */
  refreshToken: string | null;
}

/** The token endpoint's answer, or null when it is not a usable one (the caller reports without echoing it). */
export function parseTokenAnswer(status: number, text: string): TokenAnswer | null {
  if (status < 200 || status >= 300) return null;
  let body: Obj;
  try {
    body = JSON.parse(text) as Obj;
  } catch {
    return null;
  }
  if (typeof body.access_token !== 'string' || body.access_token.length === 0) return null;
  const life = Number(body.expires_in);
  const expiresIn = Number.isFinite(life) && life > 0 ? life : 3600;
  return {
    accessToken: body.access_token,
    expiresIn,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
  };
}

/** How long a fetched token is kept: its life less a minute (never below a second), so it is not used as it expires. */
export const cacheSeconds = (expiresIn: number): number => Math.max(1, Math.floor(expiresIn) - 60);
