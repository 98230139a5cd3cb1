import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';
import { grant, newTask } from '../support/pay.js';
import { skipWithoutChromium, launchChromium } from '../support/chromium.js';
import { assertAccessible, assertNoSideScroll, shot, signInPage, visit } from '../support/dashboard-checks.js';

/** Each page of the dashboard doing its main task in Chromium, then axe-core and the 360 px check on every page. */
describe('dashboard pages in headless chromium', function () {
  this.timeout(180_000);
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let a: { token: string; accountId: string };
  const ids: Record<string, string> = {};
  const pageErrors: string[] = [];
  const call = async (method: string, path: string, body?: unknown, status = method === 'GET' ? 200 : 201) => {
    const res = await harness.call(method, path, { token: a.token, body });
    assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    return res.body;
  };

  before(async function () {
    skipWithoutChromium(this);
    a = await harness.account();
    await seedCatalog(a.accountId);
    const c = await call('POST', '/v1/cases', { title: 'Warranty claim for the grinder', priority: 'high' });
    ids.case = c.case.caseId;
    const hour = 3_600_000;
    await call('POST', `/v1/cases/${ids.case}/deadlines`, {
      title: 'Reply to the vendor',
      dueAt: new Date(Date.now() - 2 * hour).toISOString(),
    });
    await call('POST', `/v1/cases/${ids.case}/deadlines`, {
      title: 'File the claim',
      dueAt: new Date(Date.now() + 48 * hour).toISOString(),
    });
    await call('POST', `/v1/cases/${ids.case}/stakeholders`, {
      name: 'Pot Shop',
      role: 'vendor',
      contact: { email: 'support@potshop.example' },
    });
    const taskId = await newTask(a.token);
    ids.mandate = (await grant(a.token, taskId)).mandateId;
    const settled = await call('POST', '/v1/pay/settle', {
      mandateId: ids.mandate,
      taskId,
      vendorId: 'PotShop',
      amount: 30,
    });
    ids.receipt = settled.receipt.receiptId;
    const run = await call(
      'POST',
      '/v1/orchestrator/run',
      {
        request: 'find the cheapest espresso machine under $250 and check it for hidden fees',
        domainRoute: ['hunt', 'resolve'],
      },
      200,
    );
    ids.run = run.runId;
    ids.pack = (await call('POST', '/v1/audit/proofPacks', { runId: ids.run })).pack.packId;
    const mission = await call('POST', '/v1/proxy/missions', {
      taskId,
      kind: 'review',
      reason: 'humanReviewerNeeded',
      task: 'Check the listing photos against the model number',
      proofReq: ['modelNumber'],
    });
    ids.mission = mission.proxyId;
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await signInPage(page, a.accountId);
  });

  after(async () => {
    await browser?.close();
  });

  afterEach(() => {
    assert.deepEqual(pageErrors.splice(0), [], 'uncaught errors in the page');
  });

  it('the cases list is live: a case opened elsewhere appears without a reload (the events stream)', async () => {
    await visit(page, `#/cases`, 'Cases');
    await page.getByRole('link', { name: 'Warranty claim for the grinder' }).waitFor();
    // Opening a case records no outbox event; its first update does (case.updated), and the list reloads on it.
    const made = await call('POST', '/v1/cases', { title: 'Dented kettle, opened through the API', priority: 'low' });
    await call('POST', `/v1/cases/${made.case.caseId}/update`, { priority: 'high' }, 200);
    await page.getByRole('link', { name: 'Dented kettle, opened through the API' }).waitFor({ timeout: 15_000 });
  });

  it('a case shows its overdue deadline, marked in words, and the one still due is not', async () => {
    await visit(page, `#/cases`, 'Cases');
    await page.getByRole('link', { name: 'Warranty claim for the grinder' }).click();
    await page.getByRole('heading', { level: 1, name: 'Warranty claim for the grinder' }).waitFor();
    assert.equal(await page.getByTestId('overdue-count').textContent(), '1 overdue.');
    const late = page.locator('tr[data-deadline="Reply to the vendor"]');
    assert.match((await late.textContent())!, /Overdue/);
    assert.doesNotMatch((await page.locator('tr[data-deadline="File the claim"]').textContent())!, /Overdue/);
    // Times carry the zone they are shown in.
    assert.match((await late.locator('td').nth(1).textContent())!, /UTC|GMT|[A-Z]{3,4}/);
    await shot(page, 'case');
  });

  it('refunds part of a settled receipt from its page; the mandate shows what remains', async () => {
    await visit(page, '#/pay', 'Pay');
    const row = page.locator(`tr[data-mandate="${ids.mandate}"]`);
    assert.match((await row.textContent())!, /\$970\.00/);
    await shot(page, 'pay');
    await row.getByRole('link').click();
    await page.getByTestId('mandate-remaining').waitFor();
    await page.locator(`tr[data-receipt="${ids.receipt}"]`).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /Receipt/ }).waitFor();
    await page.getByLabel(/Amount in USD/).fill('10');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await page.getByTestId('receipt-refunded').filter({ hasText: '$10.00' }).waitFor();
    const refunds = page.locator('tr[data-refund]');
    assert.equal(await refunds.count(), 1);
    assert.match((await refunds.textContent())!, /succeeded/);
    const receipt = (await call('GET', `/v1/pay/receipts/${ids.receipt}`)).receipt;
    assert.deepEqual(receipt.refunded, { amount: 10, currency: 'USD' });
    await shot(page, 'receipt');
  });

  it('creates a schedule, pauses and resumes it, and shows its next fire times', async () => {
    await visit(page, '#/schedules', 'Schedules');
    await page.getByLabel('Name').fill('weekday espresso check');
    await page.getByLabel(/Cron expression/).fill('0 9 * * 1-5');
    await page.getByLabel(/Time zone/).fill('Europe/Paris');
    await page.getByLabel(/Request the run/).fill('find espresso machines under $250');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    const row = page.locator('tr[data-schedule="weekday espresso check"]');
    await row.getByText('active').waitFor();
    const id = (await call('GET', '/v1/schedules')).schedules[0].scheduleId;
    await row.getByRole('button', { name: 'Pause weekday espresso check' }).click();
    await row.getByText('paused').waitFor();
    assert.equal((await call('GET', `/v1/schedules/${id}`)).schedule.status, 'paused');
    await row.getByRole('button', { name: 'Resume weekday espresso check' }).click();
    await row.getByText('active').waitFor();
    assert.equal((await call('GET', `/v1/schedules/${id}`)).schedule.status, 'active');
    await row.getByRole('link').click();
    await page.getByTestId('next-fires').locator('li').nth(4).waitFor();
    await shot(page, 'schedule');
  });

  it('invites a member and changes its role, within the signed-in rank', async () => {
    await visit(page, '#/members', 'Members');
    const email = `dev-${Date.now()}@example.com`;
    await page.getByLabel('Name').fill('Dana Developer');
    await page.getByLabel('Email').fill(email);
    await page.locator('select[name="role"]').selectOption('approver');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const row = page.locator(`tr[data-member="${email}"]`);
    await row.getByText('invited').waitFor();
    await row.getByLabel(`Role of ${email}`).selectOption('developer');
    await page.waitForFunction(
      async ([token, address]) => {
        const r = await fetch('/v1/members', { headers: { authorization: `Bearer ${token}` } }).then((x) => x.json());
        return (r as any).members.find((m: any) => m.email === address)?.role === 'developer';
      },
      [a.token, email],
    );
    assert.equal(await row.getByLabel(`Role of ${email}`).inputValue(), 'developer');
    await shot(page, 'members');
  });

  it('verifies a proof pack in the browser against the JWKS, and finds a changed section', async () => {
    await visit(page, `#/proof-packs/${ids.pack}`, /Proof pack/);
    await page.getByRole('button', { name: 'Verify in this browser' }).click();
    const verdict = page.getByTestId('pack-verdict');
    await verdict.getByText('Verified in this browser').waitFor();
    assert.match((await verdict.textContent())!, /6 of 6 sections intact, the signature verifies/);
    await shot(page, 'proof-pack');
    // The same page over a pack whose decision log was changed in transit: the browser's check says which.
    await page.route(`**/v1/audit/proofPacks/${ids.pack}`, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      body.pack.sections.find((s: any) => s.kind === 'decisionLog').status = 'failed';
      await route.fulfill({ response: res, json: body });
    });
    await page.reload();
    await page.getByRole('button', { name: 'Verify in this browser' }).click();
    await verdict.getByText('Not verified').waitFor();
    assert.match((await page.locator('tr[data-section="decisionLog"]').textContent())!, /CHANGED/);
    assert.match((await page.locator('tr[data-section="evidenceMap"]').textContent())!, /intact/);
    await page.unroute(`**/v1/audit/proofPacks/${ids.pack}`);
  });

  it('takes a mission and reports its outcome with the required proof', async () => {
    await visit(page, `#/missions/${ids.mission}`, /Check the listing/);
    await page.getByRole('button', { name: 'Take it' }).click();
    await page.getByTestId('mission-status').filter({ hasText: 'inProgress' }).waitFor();
    await page.getByLabel('Outcome').selectOption('confirmedSuccess');
    await page.getByLabel(/Proof: modelNumber/).fill('EC685M');
    await page.getByRole('button', { name: 'Submit outcome' }).click();
    await page.getByTestId('mission-status').filter({ hasText: 'resolved' }).waitFor();
    const m = (await call('GET', `/v1/proxy/missions/${ids.mission}`)).mission;
    assert.deepEqual(m.proof, { modelNumber: 'EC685M' });
    assert.equal(m.proofArtefacts[0].item, 'modelNumber');
  });

  it('stores a credential write-only: its name, kind and version show, its value never', async () => {
    await visit(page, '#/credentials', 'Credentials');
    await page.getByLabel('Name').fill('shop-api');
    await page.locator('select[name="kind"]').selectOption('apiKey');
    await page.getByLabel(/Value/).fill('sk-secret-value-1234');
    await page.getByRole('button', { name: 'Store credential' }).click();
    const row = page.locator('tr[data-credential="shop-api"]');
    await row.getByText('1 of 1').waitFor();
    await row.getByRole('button', { name: 'Rotate shop-api' }).click();
    await page.getByLabel('New value').fill('sk-secret-value-5678');
    await page.getByRole('button', { name: 'Rotate', exact: true }).click();
    await row.getByText('2 of 2').waitFor();
    assert.doesNotMatch((await page.content())!, /sk-secret-value/);
  });

  it('creates a signal rule and pauses it', async () => {
    await visit(page, '#/signal-rules', 'Signal rules');
    await page.getByLabel('Name').fill('price drop');
    await page.getByLabel('Signal type').fill('price.drop');
    await page.getByLabel(/Condition/).fill('{"<": [{"var": "value.price"}, 200]}');
    await page.getByLabel(/Request the run/).fill('buy the grinder when it drops');
    await page.getByRole('button', { name: 'Create rule' }).click();
    const row = page.locator('tr[data-rule="price drop"]');
    await row.getByRole('button', { name: 'Pause price drop' }).click();
    await row.getByText('paused').waitFor();
  });

  /** Every page, by its hash and its heading. */
  const pages = (): Array<[string, string | RegExp]> => [
    ['#/runs', 'Runs'],
    [`#/runs/${ids.run}`, /^Run /],
    ['#/inbox', 'Inbox'],
    ['#/cases', 'Cases'],
    [`#/cases/${ids.case}`, 'Warranty claim for the grinder'],
    ['#/missions', 'Proxy missions'],
    [`#/missions/${ids.mission}`, /Check the listing/],
    ['#/pay', 'Pay'],
    [`#/pay/mandates/${ids.mandate}`, /Mandate/],
    [`#/pay/receipts/${ids.receipt}`, /Receipt/],
    ['#/proof-packs', 'Proof packs'],
    [`#/proof-packs/${ids.pack}`, /Proof pack /],
    ['#/schedules', 'Schedules'],
    ['#/signal-rules', 'Signal rules'],
    ['#/members', 'Members'],
    ['#/credentials', 'Credentials'],
    ['#/tokens', 'API tokens'],
    ['#/webhooks', 'Webhooks'],
    ['#/usage', /Usage/],
  ];

  it('axe-core finds no violation on any page', async () => {
    for (const [hash, heading] of pages()) {
      await visit(page, hash, heading);
      await assertAccessible(page, hash);
    }
  });

  it('every page reads at 360 px wide without scrolling sideways, and passes axe-core there', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      for (const [hash, heading] of pages()) {
        await visit(page, hash, heading);
        await assertNoSideScroll(page, hash);
        if (hash === `#/cases/${ids.case}`) await shot(page, 'case-360');
      }
      await visit(page, `#/pay/receipts/${ids.receipt}`, /Receipt/);
      await assertAccessible(page, 'a receipt at 360 px');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('keyboard: the skip link is the first stop and lands in the content; focus is visible', async () => {
    await visit(page, '#/cases', 'Cases');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Cases' }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Skip to content');
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
    assert.notEqual(outline, 'none');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate('document.activeElement?.id'), 'main');
    await page.keyboard.press('Tab');
    // The next stop is inside the page's content, not back in the navigation.
    assert.equal(await page.evaluate("!!document.activeElement?.closest('main')"), true);
  });

  it('the sign-in page passes axe-core', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to awp' }).waitFor();
    await assertAccessible(page, 'sign-in');
  });
});
