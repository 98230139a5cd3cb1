import { useState } from 'preact/hooks';
import { api, asyncHandler, when } from './api';
import { useResource } from './live';
import type { Account } from './main';
import { INBOX_STREAM, nameOf, refusal, useMembers } from './inbox-common';
import { AnswerResult, ApprovalDetails, ChoiceDetails, MissionDetails } from './inbox-parts';
import { AnswerForms } from './schema-form';
import { BackLink, ErrorLine } from './ui';

/**
 * One inbox item: what it waits for, who has it, and its answer forms, generated from its answerSchema. The page
 * follows the inbox stream, so an assignment, a claim or an answer given elsewhere shows without a reload. Once
 * answered the item is gone from the inbox (404); the page then shows the answer's result instead.
 */
export default function InboxItemPage({ params: [itemId], account }: { params: string[]; account: Account }) {
  const members = useMembers();
  const me = account.member?.memberId;
  const [result, setResult] = useState<any>(null);
  const [message, setMessage] = useState('');
  const [assignTo, setAssignTo] = useState('');
  const {
    data: item,
    error,
    reload,
  } = useResource<any>(
    () => api('GET', `/v1/inbox/${itemId}`).then((r) => r.item),
    [itemId],
    result ? null : INBOX_STREAM,
  );
  const act = asyncHandler(async (fn: () => Promise<unknown>) => {
    setMessage('');
    try {
      await fn();
      await reload();
    } catch (e) {
      setMessage(refusal(e, members, me));
    }
  });
  const send = asyncHandler(async (body: unknown) => {
    setMessage('');
    try {
      setResult(await api('POST', `/v1/inbox/${itemId}/answer`, body));
    } catch (e) {
      setMessage(refusal(e, members, me));
    }
  });
  if (result)
    return (
      <>
        <BackLink href="#/inbox" label="Inbox" />
        <h1>{item?.title ?? itemId}</h1>
        <AnswerResult result={result} />
      </>
    );
  if (!item)
    return (
      <>
        <BackLink href="#/inbox" label="Inbox" />
        <h1>Inbox item</h1>
        {error ? <ErrorLine error={/not found|no longer/i.test(error) ? refusal404() : error} /> : <p>Loading…</p>}
      </>
    );
  const describe = (action: string | undefined) =>
    (item.actions as any[]).find((a) => (a.action ?? undefined) === action)?.description ?? '';
  const labelOf = (field: string, value: string) => {
    if (field !== 'itemId' || !item.choice) return value;
    const c = (item.choice.candidates as any[]).find((x) => x.itemId === value);
    return c ? `${c.title ?? value}${c.vendor ? ` · ${c.vendor}` : ''}` : value;
  };
  const claimedByOther = item.claimedBy && item.claimedBy !== me;
  return (
    <>
      <BackLink href="#/inbox" label="Inbox" />
      <h1>{item.title}</h1>
      <p>
        {item.kind}
        {item.gate ? ` (${item.gate})` : ''} · {item.domain} · waiting since {when(item.createdAt)} · expires{' '}
        {when(item.expiresAt)}
        {item.runId && (
          <>
            {' '}
            · run <a href={`#/runs/${item.runId}`}>{item.runId}</a>
          </>
        )}
      </p>
      <p>{item.summary}</p>
      <section class="card" aria-labelledby="who-title">
        <h2 id="who-title">Who has it</h2>
        <p data-testid="item-people">
          Submitted by {nameOf(members, item.submittedBy, me)} · assigned to {nameOf(members, item.assignee, me)} ·{' '}
          {item.claimedBy
            ? `claimed by ${nameOf(members, item.claimedBy, me)} until ${when(item.claimExpiresAt)}`
            : 'nobody is working on it'}
        </p>
        <div class="filters">
          <label>
            Assign to{' '}
            <select value={assignTo} onChange={(e) => setAssignTo((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">choose a member</option>
              {me && <option value={me}>me</option>}
              {members
                .filter((m) => m.memberId !== me)
                .map((m) => (
                  <option value={m.memberId}>
                    {m.email} ({m.role})
                  </option>
                ))}
            </select>
          </label>
          <button
            type="button"
            disabled={!assignTo}
            onClick={() => act(() => api('POST', `/v1/inbox/${itemId}/assign`, { memberId: assignTo }))}
          >
            Assign
          </button>
          {item.assignee && (
            <button
              type="button"
              onClick={() => act(() => api('POST', `/v1/inbox/${itemId}/assign`, { memberId: null }))}
            >
              Unassign
            </button>
          )}
          {item.claimedBy !== me && (
            <button type="button" onClick={() => act(() => api('POST', `/v1/inbox/${itemId}/claim`))}>
              Claim
            </button>
          )}
          {item.claimedBy && (
            <button type="button" onClick={() => act(() => api('POST', `/v1/inbox/${itemId}/release`))}>
              Release
            </button>
          )}
        </div>
      </section>
      {item.choice && <ChoiceDetails choice={item.choice} />}
      {item.approval && <ApprovalDetails approval={item.approval} />}
      {item.mission && <MissionDetails mission={item.mission} />}
      <section aria-labelledby="answer-title">
        <h2 id="answer-title">Answer</h2>
        {claimedByOther && (
          <p class="notice">
            {nameOf(members, item.claimedBy, me)} is working on this item: an answer is refused while the claim holds.
          </p>
        )}
        <p role="alert" class="error line" data-testid="answer-error">
          {message}
        </p>
        <AnswerForms schema={item.answerSchema} describe={describe} labelOf={labelOf} send={send} />
      </section>
    </>
  );
}

const refusal404 = () =>
  'This item is not waiting: it was answered, expired or canceled, or it is not in this account.';
