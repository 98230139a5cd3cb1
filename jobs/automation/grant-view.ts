import { Type } from '@sinclair/typebox';
import { ScopeName } from '../../shared/schemas/auth.js';

/** The fields a schedule or a signal rule shows of the grant its runs act within. */
export const GrantFields = {
  createdBy: Type.Union([Type.String(), Type.Null()], {
    description: 'The member whose grant its runs act within; null for one written before grants were recorded',
  }),
  grantScopes: Type.Union([Type.Array(ScopeName), Type.Null()], {
    description:
      "The scopes its runs act within, capped by the creator's current role at each firing; " +
      'null: written before grants were recorded, its runs hold runs:write only',
  }),
};

export function grantView(row: { created_by: string | null; grant_scopes: string[] | null }) {
  return { createdBy: row.created_by, grantScopes: row.grant_scopes };
}
