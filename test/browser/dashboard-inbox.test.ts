import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { harness } from '../support/harness.js';
import { activeMember, PASSWORD } from '../support/members.js';
import { until } from '../support/receiver.js';
import { skipWithoutChromium, launchChromium } from '../support/chromium.js';
import { assertAccessible, assertNoSideScroll, shot, signInPage, visit } from '../support/dashboard-checks.js';

const green = { build: 'passed', tests: 'passed', security: 'passed', health: 'healthy' };
const KIEZ = 'call Kiez Plumbing at +49 30 5550123 and confirm they can fix the leak tomorrow';

/**
 * The inbox in Chromium: items appear live, an approval is refused to its submitter and given by a second member
 * (an approver signed in in a browser of its own), a mission is answered with a proof file, and notifications are
 * chosen; axe-core and the 360 px check on the list, an item and the notifications page.
 */
describe('dashboard inbox in headless chromium', function () {
  this.timeout(180_000);
  const browsers: Array<Awaited<ReturnType<typeof launchChromium>>> = [];
  let owner: Page;
  let approverPage: Page;
  let a: { token: string; accountId: string };
  let approver: Awaited<ReturnType<typeof activeMember>>;
  const pageErrors: string[] = [];
  const call = async (method: string, path: string, body?: unknown) =>
    harness.call(method, path, { token: a.token, ...(body === undefined ? {} : { body }) });
  const deploy = async (version: string) => {
    const res = await call('POST', '/v1/delivery/run', {
      service: 'web',
      environment: 'prod',
      version,
      artifacts: green,
    });
    assert.equal(res.body.status, 'awaitingApproval', res.text);
    return res.body.runId as string;
  };
  const itemOf = async (runId: string) =>
    until(
      async () => ((await call('GET', '/v1/inbox')).body.items as any[]).find((i) => i.runId === runId),
      (i) => Boolean(i),
      20_000,
    );
  const newPage = async () => {
    const b = await launchChromium();
    browsers.push(b);
    const page = await b.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  };

  before(async function () {
    skipWithoutChromium(this);
    a = await harness.account();
    approver = await activeMember(a.token, 'approver');
    owner = await newPage();
    await signInPage(owner, a.accountId);
  });

  after(async () => {
    for (const b of browsers) await b.close();
  });

  afterEach(() => {
    assert.deepEqual(pageErrors.splice(0), [], 'uncaught errors in the page');
  });

  it('an item appears in the list live, without a reload, and the navigation counts it', async () => {
    await visit(owner, '#/inbox', 'Inbox');
    await owner.getByTestId('inbox-count').filter({ hasText: '0 items wait.' }).waitFor();
    await owner.evaluate('window.__sameDocument = true');
    const runId = await deploy('3.1.0');
    const row = owner.locator('tr[data-kind="approval"]');
    await row.waitFor();
    const item = await itemOf(runId);
    assert.equal(await row.getAttribute('data-item'), item.itemId);
    assert.match((await row.textContent())!, /deploy/);
    await owner.getByTestId('inbox-nav-count').filter({ hasText: '1' }).waitFor();
    assert.equal(await owner.evaluate('window.__sameDocument'), true, 'the page was not reloaded');
    await shot(owner, 'inbox');
  });

  it('an approval: assigned from the members list, refused to its submitter (409), approved by another', async () => {
    const runId = (((await call('GET', '/v1/inbox?kind=approval')).body.items as any[])[0]!.runId ?? '') as string;
    const item = await itemOf(runId);
    await owner.locator(`tr[data-item="${item.itemId}"]`).getByRole('link').click();
    await owner.getByRole('heading', { level: 1, name: item.title }).waitFor();
    assert.match((await owner.getByTestId('if-approved').textContent())!, /delivery/);
    await owner.getByLabel('Assign to').selectOption(approver.memberId);
    await owner.getByRole('button', { name: 'Assign', exact: true }).click();
    await owner
      .getByTestId('item-people')
      .filter({ hasText: `assigned to ${approver.email}` })
      .waitFor();
    await owner.getByRole('button', { name: 'Approve' }).click();
    await owner.getByTestId('answer-error').filter({ hasText: 'You submitted this run' }).waitFor();
    await shot(owner, 'inbox-item');

    approverPage = await newPage();
    await approverPage.goto(`${harness.url}/dashboard/`);
    await approverPage.getByLabel('Email').fill(approver.email);
    await approverPage.getByLabel('Password').fill(PASSWORD);
    await approverPage.getByRole('button', { name: 'Sign in' }).click();
    await approverPage.getByRole('heading', { name: 'Runs' }).waitFor();
    await visit(approverPage, `#/inbox/${item.itemId}`, item.title);
    await approverPage.getByRole('button', { name: 'Claim', exact: true }).click();
    await approverPage.getByTestId('item-people').filter({ hasText: 'claimed by you' }).waitFor();
    // The claim shows on the owner's page over the stream, and the owner's answer is refused while it holds.
    await owner
      .getByTestId('item-people')
      .filter({ hasText: `claimed by ${approver.email}` })
      .waitFor();
    await owner.getByRole('button', { name: 'Approve' }).click();
    await owner
      .getByTestId('answer-error')
      .filter({ hasText: `Claimed by ${approver.email}` })
      .waitFor();
    await approverPage.getByRole('button', { name: 'Approve' }).click();
    await approverPage.getByTestId('answer-result').getByText('queued').waitFor();
    const run = await until(
      async () => (await call('GET', `/v1/runs/${runId}`)).body.run,
      (r) => !['awaitingApproval', 'queued', 'running'].includes(r.status),
      30_000,
    );
    // Approved, the deploy goes on; with no CI connector in this account it is a dry run (never `delivered`).
    assert.equal(run.status, 'dryRun');
  });

  it('a mission answered with a proof file resolves the mission and its run; the file is listed, hashed', async () => {
    const res = await call('POST', '/v1/orchestrator/run', { request: KIEZ, consentToCall: true });
    assert.equal(res.body.status, 'awaitingProxy', res.text);
    const proxyId = res.body.results.proxy.proxyId as string;
    await visit(owner, `#/inbox/${proxyId}`, /Kiez|call/i);
    const form = owner.getByRole('form', { name: 'Proxy outcome' });
    await form.getByLabel(/^Status \(required\)/).selectOption('confirmedSuccess');
    await form.getByLabel(/^Note/).fill('They come tomorrow at 9');
    await form.getByLabel('Give call summary as').selectOption({ label: 'file' });
    const input = form.getByLabel(/Call summary file/);
    // Over the documented 5 MiB: refused in the browser, with the reason, before anything is sent.
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 0x20);
    await input.setInputFiles({ name: 'huge.txt', mimeType: 'text/plain', buffer: big });
    await form.getByRole('alert').filter({ hasText: 'at most 5 MiB' }).waitFor();
    const pdf = Buffer.from('%PDF-1.4\n% call summary: they come tomorrow at 9\n%%EOF\n');
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    await input.setInputFiles({ name: 'summary.pdf', mimeType: 'application/pdf', buffer: pdf });
    await form.getByText('ready to send').waitFor();
    await form.getByRole('button', { name: 'Proxy outcome' }).click();
    const result = owner.getByTestId('answer-result');
    await result.getByTestId('mission-status').filter({ hasText: 'resolved' }).waitFor();
    assert.match((await result.locator('tr[data-file="summary.pdf"]').textContent())!, new RegExp(sha256));
    const mission = (await call('GET', `/v1/proxy/missions/${proxyId}`)).body.mission;
    assert.equal(mission.proof.callSummary.file.sha256, sha256);
    const run = await until(
      async () => (await call('GET', `/v1/runs/${res.body.runId}`)).body.run,
      (r) => r.status === 'ready',
      30_000,
    );
    assert.equal(run.status, 'ready');
    const file = await harness.call('GET', `/v1/inbox/${proxyId}/files/${sha256}`, { token: a.token });
    assert.equal(file.status, 200);
  });

  it('notifications: a member turns a kind off on a channel', async () => {
    await visit(owner, '#/settings/notifications', 'Notifications');
    await owner.getByLabel('Approvals by chat').uncheck();
    await owner.getByRole('button', { name: 'Save' }).click();
    await owner.getByTestId('notifications-saved').filter({ hasText: 'Saved' }).waitFor();
    const saved = (await call('GET', '/v1/members/me/notifications')).body.choices;
    assert.deepEqual(saved.approval, { email: true, chat: false });
    assert.deepEqual(saved.choice, { email: true, chat: true });
  });

  it('axe-core finds no violation on the inbox, an item and notifications, at full width and at 360 px', async () => {
    const item = await itemOf(await deploy('3.2.0'));
    const pages: Array<[string, string | RegExp]> = [
      ['#/inbox', 'Inbox'],
      [`#/inbox/${item.itemId}`, item.title],
      ['#/settings/notifications', 'Notifications'],
    ];
    for (const [hash, heading] of pages) {
      await visit(owner, hash, heading);
      await assertAccessible(owner, hash);
    }
    await owner.setViewportSize({ width: 360, height: 740 });
    try {
      for (const [hash, heading] of pages) {
        await visit(owner, hash, heading);
        await assertNoSideScroll(owner, hash);
        await assertAccessible(owner, `${hash} at 360 px`);
      }
    } finally {
      await owner.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
