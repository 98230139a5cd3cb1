import { Type, type Static } from '@sinclair/typebox';
import { Page, PageQuery, StringEnum, Timestamp } from '../../shared/schemas/common.js';

export const AUDIT_OUTCOMES = ['ok', 'denied'] as const;

export const AuditEntryView = Type.Object(
  {
    id: Type.String(),
    at: Timestamp,
    memberId: Type.Union([Type.String(), Type.Null()], { description: 'The member who acted' }),
    tokenId: Type.Union([Type.String(), Type.Null()], { description: 'The token or dashboard session used' }),
    action: Type.String({ description: '`<resource>.<verb>`, e.g. credential.rotated, approval.granted' }),
    resourceType: Type.String(),
    resourceId: Type.Union([Type.String(), Type.Null()]),
    outcome: StringEnum(AUDIT_OUTCOMES),
    details: Type.Record(Type.String(), Type.Unknown(), { description: 'Names, versions, reasons; never a secret' }),
  },
  { $id: 'AuditEntry' },
);
export type AuditEntryView = Static<typeof AuditEntryView>;

const Name = Type.String({ minLength: 1, maxLength: 200 });
export const AuditLogQuery = Type.Composite([
  PageQuery,
  Type.Object({
    memberId: Type.Optional(Name),
    action: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[A-Za-z0-9_.:-]+\\*?$',
        description: 'An exact action, or a family ending in * (credential.*)',
      }),
    ),
    resourceType: Type.Optional(Name),
    resourceId: Type.Optional(Name),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this time' })),
  }),
]);
export type AuditLogQuery = Static<typeof AuditLogQuery>;

export const AuditLogPage = Page('entries', AuditEntryView, 'AuditLogPage');
