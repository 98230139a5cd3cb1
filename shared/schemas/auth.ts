import { Type, type Static } from '@sinclair/typebox';
import { SCOPES } from '../scopes.js';
import { Ok, StringEnum, Timestamp } from './common.js';

/** Token scopes (shared/scopes.ts, a file with no imports, so the dashboard reads the same list). */
export { SCOPES };
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_SCOPES: Scope[] = SCOPES.filter((s) => s !== 'admin');

/**
 * A member's role bounds every token and session of that member: a token
 * carries at most its member's role's scopes, checked on every request, so a
 * role lowered today narrows the member's existing tokens at once. `admin`
 * (the operator's power over all accounts) is outside the roles: only the
 * operator CLI mints it.
 */
export const ROLES = ['owner', 'admin', 'approver', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const RoleName = StringEnum(ROLES);

const READ_SCOPES = SCOPES.filter((s) => s.endsWith(':read') && s !== 'audit:read');
/** Scopes that only people who answer for the account hold. */
const GOVERNING_SCOPES: Scope[] = ['approvals:write', 'members:manage', 'audit:read'];
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: DEFAULT_SCOPES,
  admin: DEFAULT_SCOPES,
  approver: [...READ_SCOPES, 'audit:read', 'approvals:write', 'tokens:manage'],
  developer: DEFAULT_SCOPES.filter((s) => !GOVERNING_SCOPES.includes(s)),
  viewer: [...READ_SCOPES, 'tokens:manage'],
};

/** What a token of a member with `role` may do: the token's scopes within the role (and `admin` only as minted). */
export function effectiveScopes(tokenScopes: readonly string[], role: Role): string[] {
  const allowed = ROLE_SCOPES[role] as readonly string[];
  return tokenScopes.filter((s) => s === 'admin' || allowed.includes(s));
}

export const ScopeName = StringEnum(SCOPES);

export const PLANS = ['builder', 'team'] as const;
export type Plan = (typeof PLANS)[number];
/** What happened to the activation mail (shared/mail.ts sendMail's answer). */
export const MAIL_DELIVERIES = ['smtp', 'stored', 'failed'] as const;
export type MailDelivery = (typeof MAIL_DELIVERIES)[number];
export const TOKEN_STATUSES = ['active', 'revoked'] as const;

/** How a client reaches the service: the REST API, MCP (POST /mcp) or A2A (JSON-RPC at POST /a2a). */
export const TRANSPORTS = ['http', 'mcp', 'a2a'] as const;
export type Transport = (typeof TRANSPORTS)[number];
export const TransportName = StringEnum(TRANSPORTS);

/** The authenticated caller, derived from the bearer token. */
export interface Principal {
  accountId: string;
  tokenId: string;
  /** The member the token or session belongs to; absent only for the service's own internal callers. */
  memberId?: string;
  role?: Role;
  scopes: string[];
  plan: Plan;
  activated: boolean;
  /** Transports the token may be used over; absent means every one. */
  transports?: Transport[];
}

export const ProfileCreate = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: 8, maxLength: 1024 }),
  },
  { $id: 'ProfileCreate' },
);

export const ProfileCreated = Ok(
  {
    accountId: Type.String(),
    token: Type.String({ description: 'Starter token; shown once' }),
    tokenId: Type.String(),
    tokenStatus: StringEnum(['limited', 'unlimited']),
    unverifiedRequestLimit: Type.Integer(),
    activation: Type.Object({ required: Type.Boolean(), sentTo: Type.String(), delivery: StringEnum(MAIL_DELIVERIES) }),
  },
  'ProfileCreated',
);

export const ProfileActivate = Type.Object(
  { activationToken: Type.String({ minLength: 10, maxLength: 200 }) },
  { $id: 'ProfileActivate' },
);
export const ProfileActivated = Ok(
  { status: Type.Literal('activated'), tokenStatus: Type.Literal('unlimited') },
  'ProfileActivated',
);

export const TokenView = Type.Object(
  {
    tokenId: Type.String(),
    memberId: Type.String({ description: "The member the token belongs to: it carries at most its role's scopes" }),
    name: Type.String(),
    prefix: Type.String({ description: 'First characters of the token, for recognising it' }),
    scopes: Type.Array(Type.String()),
    transports: Type.Array(TransportName, { description: 'Transports the token works over' }),
    status: StringEnum(TOKEN_STATUSES),
    createdAt: Timestamp,
    lastUsedAt: Type.Union([Timestamp, Type.Null()]),
    revokedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'Token' },
);
export type TokenView = Static<typeof TokenView>;

export const TokenCreate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Optional(Type.Array(ScopeName, { minItems: 1, uniqueItems: true })),
    transports: Type.Optional(
      Type.Array(TransportName, {
        minItems: 1,
        uniqueItems: true,
        description:
          'Narrows the token to these transports (a separate MCP or A2A token); defaults to those of the calling token',
      }),
    ),
  },
  { $id: 'TokenCreate' },
);
export const TokenIssued = Ok(
  { token: Type.String({ description: 'The secret; shown once' }), tokenInfo: TokenView },
  'TokenIssued',
);
