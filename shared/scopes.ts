/* A file with no imports: the dashboard (dashboard/src/tokens.tsx) offers exactly these scopes. */

/**
 * Token scopes, by resource family. A new token gets every scope except
 * `admin` unless the request narrows it; `admin` is minted only by the
 * operator CLI (`npm run token:admin`).
 */
export const SCOPES = [
  'runs:read',
  'runs:write',
  'tasks:read',
  'tasks:write',
  'cases:read',
  'cases:write',
  'bridge:read',
  'bridge:write',
  'proxy:read',
  'proxy:write',
  'pay:read',
  'pay:write',
  'events:read',
  'events:write',
  'agents:read',
  'agents:write',
  'channels:read',
  'channels:write',
  'signals:read',
  'signals:write',
  'schedules:read',
  'schedules:write',
  'audit:read',
  'tools:use',
  'delivery:write',
  'approvals:write',
  'tokens:manage',
  'members:manage',
  'admin',
] as const;
