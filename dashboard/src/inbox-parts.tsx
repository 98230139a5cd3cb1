import { money, when } from './api';
import { Table } from './ui';

/**
 * What an item shows before it is answered: a choice's candidates with their evidence, an approval's consequences
 * (what happens, the plan, the amount or budget, the diff), a mission's task, proof items and files. The answer form
 * itself comes from the item's answerSchema (schema-form.tsx), not from here.
 */
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

function priceOf(c: any): string {
  const amount = c.total ?? c.price ?? c.amount;
  if (typeof amount === 'number') return money({ amount, currency: c.currency ?? 'USD' });
  if (amount && typeof amount === 'object') return money(amount);
  return '—';
}

/** A candidate's evidence as the step offered it: its sources (links) and reasons, in words. */
function Evidence({ c }: { c: any }) {
  const ev = c.evidence ?? {};
  const sources = [...(Array.isArray(ev.sources) ? ev.sources : []), ...(Array.isArray(c.sources) ? c.sources : [])];
  const reasons = [...(Array.isArray(ev.reasons) ? ev.reasons : []), ...(Array.isArray(c.reasons) ? c.reasons : [])];
  if (!sources.length && !reasons.length) return <span class="muted">none given</span>;
  return (
    <ul class="evidence">
      {reasons.map((r) => (
        <li>{str(r)}</li>
      ))}
      {sources.map((s: any) => {
        const url = typeof s === 'string' ? s : (s?.url ?? s?.finalUrl);
        const label = typeof s === 'string' ? s : (s?.title ?? url ?? str(s));
        return <li>{typeof url === 'string' && /^https?:/.test(url) ? <a href={url}>{label}</a> : label}</li>;
      })}
    </ul>
  );
}

export function ChoiceDetails({ choice }: { choice: any }) {
  return (
    <section aria-labelledby="choice-title">
      <h2 id="choice-title">{choice.question ?? 'Choose one of the candidates'}</h2>
      {choice.intent && <p>Intent: {choice.intent}</p>}
      <Table
        caption="Candidates with their evidence"
        rows={choice.candidates as any[]}
        attrs={(c) => ({ 'data-candidate': c.itemId })}
        cols={[
          ['Candidate', (c) => c.title ?? c.itemId],
          ['Vendor', (c) => c.vendor ?? c.vendorId ?? '—'],
          ['Price', priceOf],
          ['Evidence', (c) => <Evidence c={c} />],
        ]}
      />
    </section>
  );
}

export function ApprovalDetails({ approval }: { approval: any }) {
  const plan = approval.plan;
  return (
    <section aria-labelledby="approval-title" data-testid="if-approved">
      <h2 id="approval-title">If you approve ({approval.gate})</h2>
      {approval.question && <p>{approval.question}</p>}
      <ul>
        {(approval.ifApproved as string[]).map((line) => (
          <li>{line}</li>
        ))}
      </ul>
      <dl class="facts">
        <dt>Plan</dt>
        <dd>
          {plan.route.join(' → ')}; waiting at {plan.waitingStep.domain} (step {plan.waitingStep.index + 1}); then{' '}
          {plan.remaining.length ? plan.remaining.join(' → ') : 'nothing more'}
        </dd>
        {approval.amount && (
          <>
            <dt>Amount</dt>
            <dd data-testid="approval-amount">
              {money(approval.amount)}
              {approval.amount.vendorId ? ` to ${approval.amount.vendorId}` : ''}
              {approval.amount.title ? ` for ${approval.amount.title}` : ''}
            </dd>
          </>
        )}
        {approval.budget && (
          <>
            <dt>Budget</dt>
            <dd>{approval.budget.amount !== undefined ? money(approval.budget) : str(approval.budget)}</dd>
          </>
        )}
      </dl>
      {approval.diff && (
        <>
          <h3>The change it applies</h3>
          <pre class="diff" tabIndex={0} aria-label="Diff">
            {approval.diff}
          </pre>
        </>
      )}
      <details>
        <summary>Everything the waitpoint records</summary>
        <pre tabIndex={0} aria-label="Waitpoint details">
          {JSON.stringify(approval.details, null, 2)}
        </pre>
      </details>
    </section>
  );
}

export function FilesTable({ files }: { files: any[] }) {
  return (
    <Table
      caption="Proof files with their hashes"
      rows={files}
      attrs={(f) => ({ 'data-file': f.name })}
      cols={[
        ['File', (f) => <a href={f.href}>{f.name}</a>],
        ['Proof item', (f) => f.proofItem],
        ['Type', (f) => f.contentType],
        ['Bytes', (f) => Number(f.size).toLocaleString()],
        ['SHA-256', (f) => <code class="hash">{f.sha256}</code>],
      ]}
    />
  );
}

export function MissionDetails({ mission }: { mission: any }) {
  return (
    <section aria-labelledby="mission-title">
      <h2 id="mission-title">The mission: {mission.task}</h2>
      <p>
        {mission.kind} · {mission.reason} · {mission.status} ·{' '}
        <a href={`#/missions/${mission.proxyId}`}>mission page</a>
      </p>
      <Table
        caption="Proof items the mission asks for"
        rows={mission.proofItems as any[]}
        cols={[
          ['Proof item', (p) => p.item],
          ['Required', (p) => (p.required ? 'yes, for a success' : 'no')],
          ['Provided', (p) => (p.provided ? 'yes' : 'not yet')],
        ]}
        empty="The mission asks for no proof."
      />
      {mission.files.length > 0 && <FilesTable files={mission.files} />}
      <details>
        <summary>Context</summary>
        <pre tabIndex={0} aria-label="Mission context">
          {JSON.stringify(mission.context, null, 2)}
        </pre>
      </details>
    </section>
  );
}

/** The answer as the service took it: where the run and the mission went, and the files with their hashes. */
export function AnswerResult({ result }: { result: any }) {
  return (
    <section class="card" aria-labelledby="answered-title" data-testid="answer-result">
      <h2 id="answered-title">Answered</h2>
      <p>
        {result.runId && (
          <>
            Run <a href={`#/runs/${result.runId}`}>{result.runId}</a>: <strong>{result.runStatus}</strong>
            {result.runStatus === 'queued' ? ' (it resumed)' : ''}.{' '}
          </>
        )}
        {result.missionStatus && (
          <>
            Mission: <strong data-testid="mission-status">{result.missionStatus}</strong>.
          </>
        )}
      </p>
      {result.files.length > 0 && <FilesTable files={result.files} />}
      <p class="muted">Answered {when(new Date().toISOString())}.</p>
    </section>
  );
}
