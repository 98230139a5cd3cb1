import { useState } from 'preact/hooks';
import { api, asyncHandler } from './api';

type Choice = { itemId: string; title?: string; total?: number; price?: number; currency?: string; vendor?: string };

/** The offered choices: from the waitpoint itself or the waiting domain's result. */
function choicesOf(run: any): Choice[] {
  const wp = run.waitpoint;
  const fromResult = run.result?.results?.[wp.domain]?.choices;
  const list = wp.payload?.choices ?? fromResult ?? [];
  return Array.isArray(list) ? list.filter((c: Choice) => c && typeof c.itemId === 'string') : [];
}

/** Actions on a waiting run: choose an item, approve or reject, or report a proxy mission's outcome. */
export function Waitpoint({ run, onAnswered }: { run: any; onAnswered: () => void }) {
  const [error, setError] = useState('');
  const [outcome, setOutcome] = useState('{"outcome": "done"}');
  const answer = asyncHandler(async (body: unknown) => {
    setError('');
    try {
      await api('POST', `/v1/runs/${run.runId}/resume`, body);
      onAnswered();
    } catch (e) {
      setError((e as Error).message);
    }
  });
  const wp = run.waitpoint;
  const choices = choicesOf(run);
  const isApproval = /approv/i.test(wp.kind) || /approv/i.test(run.status);
  const isProxy = wp.domain === 'proxy';
  return (
    <section class="card" aria-labelledby="wp-title">
      <h2 id="wp-title">
        Waiting for you: {wp.kind} ({wp.domain})
      </h2>
      {choices.length > 0 && (
        <ul class="choices">
          {choices.map((c) => (
            <li>
              {c.title ?? c.itemId} {c.vendor && `· ${c.vendor}`} {c.total ?? c.price} {c.currency}{' '}
              <button type="button" onClick={() => answer({ itemId: c.itemId })}>
                Choose
              </button>
            </li>
          ))}
        </ul>
      )}
      {isApproval && (
        <p>
          <button type="button" onClick={() => answer({ approved: true })}>
            Approve
          </button>{' '}
          <button type="button" onClick={() => answer({ approved: false })}>
            Reject
          </button>
        </p>
      )}
      {isProxy && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            try {
              answer({ action: 'proxyOutcome', data: JSON.parse(outcome) });
            } catch {
              setError('The outcome must be a JSON object');
            }
          }}
        >
          <label>
            Proxy outcome (JSON)
            <textarea
              value={outcome}
              onInput={(e) => setOutcome((e.currentTarget as HTMLTextAreaElement).value)}
              rows={3}
            />
          </label>
          <button type="submit">Submit outcome</button>
        </form>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
