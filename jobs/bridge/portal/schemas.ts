import { Type, type Static } from '@sinclair/typebox';
import { Page, PageQuery, StringEnum, Timestamp } from '../../../shared/schemas/common.js';

/** How a portal asks for a second factor; only `none` and `totp` can be met without a person. */
export const MFA_METHODS = ['none', 'totp', 'sms', 'email', 'push'] as const;
export const PORTAL_CREDENTIALS = ['username', 'password', 'totp'] as const;
/** Preflight answers `ready`, or the first failed check in this order (every failed check is in `errors`). */
export const PORTAL_PREFLIGHT_STATUSES = ['ready', 'credentialsMissing', 'mfaUnavailable', 'outOfScope'] as const;
export const PORTAL_PREFLIGHT_CHECKS = ['credential', 'mfa', 'scope'] as const;
export const PORTAL_ACTION_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'blocked'] as const;

const Ref = Type.String({
  minLength: 5,
  maxLength: 300,
  description: "cred:NAME[@version] of this account's credential vault; never a value",
});
const Origin = Type.String({
  pattern: '^https?://[^/?#\\s]+$',
  maxLength: 300,
  description: 'scheme://host[:port], no path',
});
const Selector = Type.String({ minLength: 1, maxLength: 500, description: 'A CSS selector (Playwright syntax)' });
const Name = Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' });

export const PortalScope = Type.Object(
  {
    origins: Type.Array(Origin, { minItems: 1, maxItems: 20, description: 'Origins a navigation may reach' }),
    paths: Type.Optional(
      Type.Array(Type.String({ pattern: '^/', maxLength: 300 }), {
        minItems: 1,
        maxItems: 50,
        description: 'Path globs (minimatch) a navigation may reach; default every path',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PortalSessionCreate = Type.Object(
  {
    connectorId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    targetOrigin: Type.Optional(Origin),
    credentials: Type.Object(
      { usernameRef: Type.Optional(Ref), passwordRef: Type.Optional(Ref), totpSeedRef: Type.Optional(Ref) },
      { additionalProperties: false },
    ),
    scope: Type.Optional(PortalScope),
    mfaMethod: Type.Optional(StringEnum(MFA_METHODS, { default: 'none' })),
  },
  { $id: 'PortalSessionCreate', additionalProperties: false },
);
export type PortalSessionCreate = Static<typeof PortalSessionCreate>;

export const PortalPreflightError = Type.Object({
  check: StringEnum(PORTAL_PREFLIGHT_CHECKS),
  message: Type.String(),
  ref: Type.Optional(Type.String()),
  variable: Type.Optional(Type.String()),
});
export const PortalPreflight = Type.Object({
  status: StringEnum(PORTAL_PREFLIGHT_STATUSES),
  errors: Type.Array(PortalPreflightError),
  at: Timestamp,
});

export const PortalSessionView = Type.Object({
  portalSessionId: Type.String(),
  connectorId: Type.Union([Type.String(), Type.Null()]),
  targetOrigin: Type.String(),
  credentials: Type.Object({
    usernameRef: Type.Optional(Type.String()),
    passwordRef: Type.Optional(Type.String()),
    totpSeedRef: Type.Optional(Type.String()),
  }),
  scope: Type.Object({ origins: Type.Array(Type.String()), paths: Type.Array(Type.String()) }),
  mfaMethod: StringEnum(MFA_METHODS),
  preflight: Type.Union([PortalPreflight, Type.Null()], { description: 'The last preflight' }),
  createdAt: Timestamp,
});
export const PortalSessionReply = Type.Object(
  { ok: Type.Literal(true), session: PortalSessionView },
  { $id: 'PortalSessionReply' },
);
export const PortalSessionPage = Page('sessions', PortalSessionView, 'PortalSessionPage');
export const PortalPreflightReply = Type.Composite(
  [Type.Object({ ok: Type.Literal(true), portalSessionId: Type.String() }), PortalPreflight],
  { $id: 'PortalPreflightReply' },
);

const step = <const O extends string, T extends Record<string, any>>(op: O, fields: T) =>
  Type.Object(
    { op: Type.Literal(op), ...fields, timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })) },
    { additionalProperties: false },
  );
/** One declarative step: what the browser does, never script. */
export const PortalStep = Type.Union([
  step('navigate', {
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: "Absolute, or a path against the session's target origin; {{input}} placeholders allowed",
    }),
  }),
  step('fill', {
    selector: Selector,
    credential: Type.Optional(StringEnum(PORTAL_CREDENTIALS)),
    input: Type.Optional(Name),
  }),
  step('click', { selector: Selector }),
  step('waitFor', { selector: Selector }),
  step('extractText', { selector: Selector, as: Name }),
  step('extractTable', { selector: Selector, as: Name }),
  step('screenshot', { label: Type.Optional(Type.String({ maxLength: 100 })) }),
]);
export type PortalStep = Static<typeof PortalStep>;
export const PortalSteps = Type.Array(PortalStep, { minItems: 1, maxItems: 50 });

const Inputs = Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }), Type.String({ maxLength: 2000 }), {
  maxProperties: 50,
});

export const PortalTemplateView = Type.Object({
  templateId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  inputs: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), required: Type.Boolean() })),
  steps: PortalSteps,
  expectedOutcome: Type.String(),
});
export const PortalTemplateReply = Type.Object(
  { ok: Type.Literal(true), template: PortalTemplateView },
  { $id: 'PortalTemplateReply' },
);
export const PortalTemplateList = Type.Object(
  { ok: Type.Literal(true), templates: Type.Array(PortalTemplateView) },
  { $id: 'PortalTemplateList' },
);

export const PortalPlaybookView = Type.Object({
  playbookId: Type.String(),
  title: Type.String(),
  description: Type.String(),
  situation: Type.String(),
  actions: Type.Array(Type.Object({ templateId: Type.String(), why: Type.String() })),
});
export const PortalPlaybookReply = Type.Object(
  { ok: Type.Literal(true), playbook: PortalPlaybookView },
  { $id: 'PortalPlaybookReply' },
);
export const PortalPlaybookList = Type.Object(
  { ok: Type.Literal(true), playbooks: Type.Array(PortalPlaybookView) },
  { $id: 'PortalPlaybookList' },
);
export const PlaybookInstantiate = Type.Object(
  { portalSessionId: Type.String({ minLength: 1, maxLength: 200 }), inputs: Type.Optional(Inputs) },
  { $id: 'PlaybookInstantiate', additionalProperties: false },
);

export const PortalActionCreate = Type.Object(
  {
    portalSessionId: Type.String({ minLength: 1, maxLength: 200 }),
    templateId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    steps: Type.Optional(PortalSteps),
    inputs: Type.Optional(Inputs),
  },
  { $id: 'PortalActionCreate', additionalProperties: false, description: 'Exactly one of templateId and steps' },
);
export type PortalActionCreate = Static<typeof PortalActionCreate>;

export const PortalArtefact = Type.Object({
  index: Type.Integer(),
  op: Type.String(),
  url: Type.Union([Type.String(), Type.Null()]),
  screenshot: Type.Union([
    Type.Object({ sha256: Type.String({ description: 'SHA-256 of the PNG as stored' }), bytes: Type.Integer() }),
    Type.Null(),
  ]),
  extracted: Type.Union([Type.Unknown(), Type.Null()]),
  typed: Type.Optional(
    Type.String({
      description: "What was typed: the input's value, or [credential:username] for a credential (masked)",
    }),
  ),
  startedAt: Timestamp,
  durationMs: Type.Integer(),
});
export const PortalBlocked = Type.Object({
  reason: Type.String(),
  message: Type.String(),
  step: Type.Union([Type.Integer(), Type.Null()]),
  errors: Type.Optional(Type.Array(PortalPreflightError)),
});

export const PortalActionView = Type.Object({
  portalActionId: Type.String(),
  portalSessionId: Type.String(),
  templateId: Type.Union([Type.String(), Type.Null()]),
  playbookId: Type.Union([Type.String(), Type.Null()]),
  status: StringEnum(PORTAL_ACTION_STATUSES),
  steps: PortalSteps,
  inputs: Type.Record(Type.String(), Type.String()),
  artefacts: Type.Array(PortalArtefact),
  extracted: Type.Record(Type.String(), Type.Unknown()),
  blocked: Type.Union([PortalBlocked, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  attempts: Type.Integer({
    minimum: 0,
    description: 'Runs asked for (…/run); 0 while nobody asked to run it',
  }),
  createdAt: Timestamp,
  updatedAt: Type.String({ format: 'date-time', description: 'When it came to its status' }),
  finishedAt: Type.Union([Timestamp, Type.Null()]),
});
export const PortalActionReply = Type.Object(
  { ok: Type.Literal(true), action: PortalActionView },
  { $id: 'PortalActionReply' },
);
export const PortalActionPage = Page('actions', PortalActionView, 'PortalActionPage');
export const PortalActionListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(StringEnum(PORTAL_ACTION_STATUSES)),
    portalSessionId: Type.Optional(Type.String({ maxLength: 200 })),
  }),
]);
export const PlaybookInstantiateReply = Type.Object(
  { ok: Type.Literal(true), playbookId: Type.String(), actions: Type.Array(PortalActionView) },
  { $id: 'PlaybookInstantiateReply' },
);

export const PortalBrowserRequest = Type.Object(
  { portalActionId: Type.String({ minLength: 1, maxLength: 200 }) },
  { $id: 'PortalBrowserRequest', additionalProperties: false },
);
