import type { Account } from './main';

export default function UsagePage({ account }: { account: Account }) {
  const u = account.usage;
  const pct = u.limit ? Math.min(100, Math.round((u.workflowRequests / u.limit) * 100)) : null;
  return (
    <>
      <h1>Usage, {u.period}</h1>
      <p>
        Plan: <strong>{account.plan}</strong>
      </p>
      <p>
        Workflow requests this month: <strong>{u.workflowRequests}</strong>
        {u.limit === null ? ' (unlimited)' : ` of ${u.limit}`}
      </p>
      {pct !== null && (
        <progress max={100} value={pct} aria-label="Share of the monthly quota used">
          {pct}%
        </progress>
      )}
      {!account.activated && (
        <p>
          Before activation: {u.unverifiedUsed} of {u.unverifiedLimit} workflow requests used.
        </p>
      )}
    </>
  );
}
