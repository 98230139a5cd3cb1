import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { TERMINAL_STATUSES } from '../../jobs/orchestrator/run-state.js';
import { harness } from '../support/harness.js';
import { seedCatalog } from '../support/runs.js';
import { skipWithoutChromium, launchChromium } from '../support/chromium.js';

/** `npm run screenshots` sets SCREENSHOTS=docs: the pages below are saved there as PNGs. */
const SHOTS = process.env.SCREENSHOTS;
const shot = async (page: Page, name: string) => {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/dashboard-${name}.png`, fullPage: true });
};

describe('dashboard in headless chromium', function () {
  this.timeout(120_000);
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  const jsBytes: number[] = [];

  before(async function () {
    skipWithoutChromium(this);
    browser = await launchChromium();
    context = browser.context;
    page = await context.newPage();
    page.on('response', async (res) => {
      if (res.request().resourceType() === 'script')
        jsBytes.push(Number((await res.allHeaders())['content-length'] ?? (await res.body()).length));
    });
  });

  after(async () => {
    await browser?.close();
  });

  it(
    'signs in, makes a token, sees its run appear and wait, chooses an item live, rotates the token and the ' +
      'old one is refused',
    async () => {
      const account = await harness.account();
      await seedCatalog(account.accountId);
      await page.goto(`${harness.url}/dashboard`);
      await page.getByLabel('Email').fill(`${account.accountId}@test.local`);
      await page.getByLabel('Password').fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Email or password is wrong' }).waitFor();
      await shot(page, 'sign-in');
      await page.getByLabel('Password').fill('password-123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Runs' }).waitFor();
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === 'awp_session')!;
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, 'Strict');
      assert.ok(
        jsBytes.length > 0 && jsBytes.reduce((a, b) => a + b, 0) < 100 * 1024,
        `first load JS ${jsBytes} bytes`,
      );

      await page.getByRole('link', { name: 'Tokens' }).click();
      await page.getByLabel('Name').fill('ci');
      await page.getByLabel('runs:read').check();
      await page.getByLabel('runs:write').check();
      // The run continues into pay: a run acts within its grant, so the token that submits it holds pay:write.
      await page.getByLabel('pay:write').check();
      await page.getByRole('button', { name: 'Create token' }).click();
      const secret = (await page.getByTestId('token-secret').textContent())!;
      assert.match(secret, /^awp_/);
      await shot(page, 'tokens');
      await page.getByRole('button', { name: 'Done' }).click();

      await page.getByRole('link', { name: 'Runs' }).click();
      const started = await harness.call('POST', '/v1/orchestrator/run', {
        token: secret,
        headers: { prefer: 'respond-async' },
        body: {
          request: 'shortlist espresso machines under $250 so I can choose one',
          conversationId: `browser-${Date.now()}`,
        },
      });
      assert.equal(started.status, 202, started.text);
      const runId = started.body.runId as string;
      // The list follows the account's stream of runs: the run started through the API appears, then moves to
      // NEEDS_INPUT, without a reload or a poll.
      const row = page.locator(`tr[data-run="${runId}"]`);
      await row.getByText('NEEDS_INPUT').waitFor();
      await shot(page, 'runs');

      await row.getByRole('link').click();
      await page.getByRole('heading', { name: /Waiting for you/ }).waitFor();
      await page.getByTestId('run-events').locator('li').first().waitFor(); // the SSE stream replayed the run's events
      await shot(page, 'run-waiting');
      await page.getByRole('button', { name: 'Choose' }).first().click();
      // The choice continues into pay (a buy), which waits for approval: no mandate covers it. Rejecting ends the run.
      await page.getByRole('heading', { name: 'Waiting for you: awaitingApproval (pay)' }).waitFor();
      await page.getByRole('button', { name: 'Reject' }).click();
      await page.getByRole('heading', { name: /Waiting for you/ }).waitFor({ state: 'detached' });
      await page
        .getByTestId('run-status')
        .filter({ hasNotText: /^(awaitingApproval|queued|running)$/ })
        .waitFor();
      const done = await harness.call('GET', `/v1/runs/${runId}`, { token: secret });
      assert.deepEqual(done.body.run.route, ['hunt', 'pay']);
      assert.ok(TERMINAL_STATUSES.includes(done.body.run.status), done.text);
      assert.equal(await page.getByTestId('run-status').textContent(), done.body.run.status);
      await shot(page, 'run-done');

      await page.getByRole('link', { name: 'Tokens' }).click();
      await page.locator('tr[data-token="ci"]').getByRole('button', { name: 'Rotate' }).click();
      const rotated = (await page.getByTestId('token-secret').textContent())!;
      assert.notEqual(rotated, secret);
      assert.equal((await harness.call('GET', '/v1/runs', { token: secret })).status, 401);
      assert.equal((await harness.call('GET', '/v1/runs', { token: rotated })).status, 200);

      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('heading', { name: 'Failed deliveries' }).waitFor();
      await shot(page, 'webhooks');
    },
  );

  it('signs out: the page returns to sign-in and the old cookie is refused', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'awp_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to awp' }).waitFor();
    assert.equal(
      (await harness.call('GET', '/v1/session', { headers: { cookie: `awp_session=${cookie.value}` } })).status,
      401,
    );
  });
});
