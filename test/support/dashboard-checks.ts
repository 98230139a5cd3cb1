import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { harness } from './harness.js';

/** `npm run screenshots` sets SCREENSHOTS=docs: the pages the tests pass through are saved there as PNGs. */
const SHOTS = process.env.SCREENSHOTS;
export async function shot(page: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/dashboard-${name}.png`, fullPage: true });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core run over the page as it stands (WCAG 2 A and AA rules and best practices): asserts no violation, naming
 * each rule and the elements it found. The script goes in through the DevTools protocol (page.evaluate), which the
 * dashboard's CSP (script-src 'self') does not govern, so the page under test stays as served.
 */
export async function assertAccessible(page: Page, where: string) {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) =>
      v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target).join(' | ') + ')'))`,
  )) as string[];
  assert.deepEqual(violations, [], `axe-core on ${where}`);
}

/** At 360 px wide, the document itself never scrolls sideways (tables stack, long ids wrap). */
export async function assertNoSideScroll(page: Page, where: string) {
  const { scroll, width } = (await page.evaluate(
    '({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth })',
  )) as { scroll: number; width: number };
  assert.ok(scroll <= width, `${where}: ${scroll} px of content in a ${width} px wide window`);
}

/** Signs the page in as the harness account's profile (email and password of harness.account()). */
export async function signInPage(page: Page, accountId: string) {
  await page.goto(`${harness.url}/dashboard/`);
  await page.getByLabel('Email').fill(`${accountId}@test.local`);
  await page.getByLabel('Password').fill('password-123');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
}

/** Moves to a page by its hash and waits for its heading. */
export async function visit(page: Page, hash: string, heading: string | RegExp) {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}
