import { useEffect, useState } from 'preact/hooks';
import { actionRunner, api, when } from './api';
import { useResource } from './live';
import { ErrorLine } from './ui';

const KINDS = [
  ['choice', 'Choices'],
  ['approval', 'Approvals'],
  ['mission', 'Missions'],
] as const;
const CHANNELS = [
  ['email', 'Email'],
  ['chat', 'Chat'],
] as const;
type Choices = Record<string, { email: boolean; chat: boolean }>;

/**
 * What the signed-in member is told of (GET/PUT /v1/members/me/notifications): each kind of inbox item on each
 * channel, for a new item, its escalation and its expiry alike.
 */
export default function NotificationsPage() {
  const { data, error, setError, reload } = useResource<any>(() => api('GET', '/v1/members/me/notifications'), []);
  const [choices, setChoices] = useState<Choices | null>(null);
  const [saved, setSaved] = useState('');
  useEffect(() => {
    if (data) setChoices(structuredClone(data.choices));
  }, [data]);
  const act = actionRunner(setError, reload);
  const save = (e: Event) => {
    e.preventDefault();
    setSaved('');
    act(async () => {
      const r = await api('PUT', '/v1/members/me/notifications', choices);
      setSaved(`Saved ${when(r.updatedAt)}.`);
    });
  };
  const flip = (kind: string, channel: 'email' | 'chat') => (e: Event) =>
    setChoices({
      ...choices!,
      [kind]: { ...choices![kind]!, [channel]: (e.currentTarget as HTMLInputElement).checked },
    });
  return (
    <>
      <p>
        <a href="#/inbox">← Inbox</a>
      </p>
      <h1>Notifications</h1>
      <p>
        You are told when an item appears in the inbox for you, when it nears its expiry and when it expired unanswered:
        by email, and by chat where the account has a chat connector (Slack: a direct message).
      </p>
      <ErrorLine error={error} />
      {choices && (
        <form onSubmit={save}>
          <table class="grid">
            <caption>Channels for each kind of item</caption>
            <thead>
              <tr>
                <th scope="col">Kind</th>
                {CHANNELS.map(([, label]) => (
                  <th scope="col">{label}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {KINDS.map(([kind, label]) => (
                <tr data-kind={kind}>
                  <th scope="row">{label}</th>
                  {CHANNELS.map(([channel, cl]) => (
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`${label} by ${cl.toLowerCase()}`}
                        checked={choices[kind]?.[channel] ?? true}
                        onChange={flip(kind, channel)}
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          <button type="submit">Save</button>{' '}
          <span role="status" data-testid="notifications-saved">
            {saved}
          </span>
        </form>
      )}
    </>
  );
}
