/** Placeholder until the inbox routes land (issue 32, branch inbox): the page says where waiting work is today. */
export default function InboxPage() {
  return (
    <>
      <h1>Inbox</h1>
      <p>
        Runs waiting for a person are listed under <a href="#/runs">Runs</a> (status NEEDS_INPUT, awaitingProxy or
        awaitingApproval) and proxy missions under <a href="#/missions">Missions</a>.
      </p>
    </>
  );
}
