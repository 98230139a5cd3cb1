import { Type, type Static } from '@sinclair/typebox';
import { Ok, Page, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';
import { MATCH_OUTCOMES, GrantFields, RunTarget } from '../automation/index.js';
import { CONDITION_OPERATORS } from './logic.js';

const Name = (description: string, max = 200) => Type.String({ minLength: 1, maxLength: max, description });

export const SignalIngest = Type.Object(
  {
    type: Name('What kind of signal (`price.changed`, `deploy.finished`); rules match on it', 100),
    subject: Name(
      "What the signal is about (a SKU, a service, a URL); rules' conditions and dedup windows read it",
      300,
    ),
    value: Type.Optional(
      Type.Unknown({ description: "Any JSON value; a rule's condition reads it as `value` (`value.price`)" }),
    ),
    source: Name('Who observed it (a monitor, a webhook bridge)', 100),
    sourceId: Name(
      "The source's own id for this observation: a second signal with the same source and sourceId is a duplicate",
    ),
    observedAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the source observed it; defaults to when it is received' }),
    ),
  },
  { $id: 'SignalIngest' },
);
export type SignalIngest = Static<typeof SignalIngest>;

export const SignalView = Type.Object(
  {
    signalId: Type.String(),
    type: Type.String(),
    subject: Type.String(),
    value: Type.Unknown(),
    source: Type.String(),
    sourceId: Type.String(),
    observedAt: Timestamp,
    receivedAt: Timestamp,
  },
  { $id: 'Signal' },
);

export const MatchView = Type.Object(
  {
    matchId: Type.String(),
    ruleId: Type.Union([Type.String(), Type.Null()], { description: 'null once the rule was deleted' }),
    subject: Type.String(),
    outcome: StringEnum(MATCH_OUTCOMES, {
      description:
        "started: a run started; deduplicated / rateLimited: the rule's window or limit held it back; " +
        "refused: the account's quota, its hold full or a domain queue too deep (reason says which); " +
        'failed: the run could not start; pending: not decided yet',
    }),
    runId: Type.Union([Type.String(), Type.Null()]),
    reason: Type.Union([Type.String(), Type.Null()]),
    at: Timestamp,
  },
  { $id: 'SignalMatch' },
);

export const SignalAnswer = Ok(
  {
    signal: SignalView,
    duplicate: Type.Boolean({
      description:
        'true: this source and sourceId were seen before; the first signal is answered and nothing new matched',
    }),
    matches: Type.Array(MatchView),
  },
  'SignalAnswer',
);
export const SignalPage = Page('signals', SignalView, 'SignalPage');
export const SignalListQuery = Type.Composite([
  PageQuery,
  Type.Object({
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    observedFrom: Type.Optional(
      Type.String({ format: 'date-time', description: 'Signals observed at or after this time' }),
    ),
    observedTo: Type.Optional(Type.String({ format: 'date-time', description: 'Signals observed before this time' })),
  }),
]);

export const RULE_STATUSES = ['active', 'paused'] as const;
const Condition = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      `JSON Logic over { subject, value }, with only these operators: ${CONDITION_OPERATORS.join(', ')}; ` +
      `\`var\` paths start with subject or value. Anything else is refused with 400 naming the operator. ` +
      `Absent: every signal of the type matches.`,
  },
);
const ruleFields = {
  name: Name('A label for people'),
  signalType: Name('The signal type the rule matches', 100),
  condition: Type.Optional(Type.Union([Condition, Type.Null()])),
  target: RunTarget,
  status: Type.Optional(StringEnum(RULE_STATUSES, { description: 'paused: matches nothing' })),
  dedupWindowSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 30 * 86400,
      description:
        'A match for a subject within this many seconds of the last one that counted starts nothing ' +
        '(deduplicated); 0: off',
    }),
  ),
  maxRunsPerHour: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 10_000 }), Type.Null()], {
      description:
        'At most this many runs started by the rule in any hour; more matches are recorded as rateLimited; ' +
        'null: no limit',
    }),
  ),
};
export const SignalRuleCreate = Type.Object(ruleFields, { $id: 'SignalRuleCreate' });
export type SignalRuleCreate = Static<typeof SignalRuleCreate>;
export const SignalRuleUpdate = Type.Partial(Type.Object(ruleFields), { $id: 'SignalRuleUpdate', minProperties: 1 });
export type SignalRuleUpdate = Static<typeof SignalRuleUpdate>;

export const SignalRuleView = Type.Object(
  {
    ruleId: Type.String(),
    name: Type.String(),
    signalType: Type.String(),
    condition: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
    target: RunTarget,
    status: StringEnum(RULE_STATUSES),
    dedupWindowSeconds: Type.Integer(),
    maxRunsPerHour: Type.Union([Type.Integer(), Type.Null()]),
    ...GrantFields,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'SignalRule' },
);
export const SignalRuleAnswer = Ok({ rule: SignalRuleView }, 'SignalRuleAnswer');
export const SignalRulePage = Page('rules', SignalRuleView, 'SignalRulePage');
export const SignalDetail = Ok(
  {
    signal: SignalView,
    matches: Type.Array(MatchView, { description: 'The rules it matched, each with the run it started' }),
  },
  'SignalDetail',
);
