import { useState } from 'preact/hooks';
import { actionRunner, api, when } from './api';
import { useResource } from './live';
import type { Account } from './main';
import { ErrorLine, formValues, Status, Table } from './ui';

const ROLES = ['owner', 'admin', 'approver', 'developer', 'viewer'] as const;
type Role = (typeof ROLES)[number];
type Member = { memberId: string; email: string; name: string; role: Role; status: string; activatedAt: string | null };

/**
 * The roles the signed-in member may give and govern, as the service decides (jobs/accounts/logic.ts): an owner
 * every role, an admin the roles below admin, anyone else none. The account's own sign-in (no member) acts as owner.
 */
export function grantable(actor: Role | null): Role[] {
  if (actor === 'owner') return [...ROLES];
  if (actor === 'admin') return ['approver', 'developer', 'viewer'];
  return [];
}

export default function MembersPage({ account }: { account: Account }) {
  const actor = (account.member?.role ?? 'owner') as Role;
  const roles = grantable(actor);
  const { data, error, setError, reload } = useResource<Member[]>(
    () => api('GET', '/v1/members').then((r) => r.members),
    [],
  );
  const [sent, setSent] = useState('');
  const act = actionRunner(setError, reload);
  const invite = (e: Event) => {
    const v = formValues(e);
    const form = e.currentTarget as HTMLFormElement;
    act(async () => {
      const r = await api('POST', '/v1/members/invite', { email: v.email, name: v.name, role: v.role });
      setSent(
        `Invitation for ${r.member.email} (${r.invitation.delivery}), valid until ${when(r.invitation.expiresAt)}.`,
      );
      form.reset();
    });
  };
  const governs = (m: Member) => roles.includes(m.role) && m.email !== account.member?.email;
  const setRole = (m: Member, role: string) => act(() => api('POST', `/v1/members/${m.memberId}/role`, { role }));
  const toggle = (m: Member) =>
    act(() => api('POST', `/v1/members/${m.memberId}/${m.status === 'disabled' ? 'enable' : 'disable'}`, {}));
  const withdraw = (m: Member) => act(() => api('DELETE', `/v1/members/${m.memberId}`));
  return (
    <>
      <h1>Members</h1>
      <p>
        You act as <strong>{actor}</strong>
        {roles.length
          ? `: you may give the roles ${roles.join(', ')}.`
          : ': only an owner or an admin manages members.'}
      </p>
      <ErrorLine error={error} />
      <Table
        caption="Members of the account"
        rows={data ?? []}
        attrs={(m) => ({ 'data-member': m.email })}
        cols={[
          ['Name', (m) => m.name],
          ['Email', (m) => m.email],
          [
            'Role',
            (m) =>
              governs(m) ? (
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  onChange={(e) => setRole(m, (e.currentTarget as HTMLSelectElement).value)}
                >
                  {roles.map((r) => (
                    <option>{r}</option>
                  ))}
                </select>
              ) : (
                m.role
              ),
          ],
          ['Status', (m) => <Status value={m.status} />],
          ['Joined', (m) => when(m.activatedAt)],
          [
            '',
            (m) =>
              !governs(m) ? null : m.status === 'invited' ? (
                <button type="button" onClick={() => withdraw(m)} aria-label={`Withdraw invitation of ${m.email}`}>
                  Withdraw
                </button>
              ) : (
                <button
                  type="button"
                  onClick={() => toggle(m)}
                  aria-label={`${m.status === 'disabled' ? 'Enable' : 'Disable'} ${m.email}`}
                >
                  {m.status === 'disabled' ? 'Enable' : 'Disable'}
                </button>
              ),
          ],
        ]}
        empty={data && 'No members yet.'}
      />
      {roles.length > 0 && (
        <form class="card" onSubmit={invite}>
          <h2>Invite a person</h2>
          <label>
            Name
            <input name="name" required maxLength={100} />
          </label>
          <label>
            Email
            <input name="email" type="email" required />
          </label>
          <label>
            Role
            <select name="role">
              {roles.map((r) => (
                <option selected={r === 'viewer'}>{r}</option>
              ))}
            </select>
          </label>
          <button type="submit">Send invitation</button>
          <p role="status">{sent}</p>
        </form>
      )}
    </>
  );
}
