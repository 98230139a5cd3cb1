import { createHash } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Deps } from '../../../shared/deps.js';
import { movePortalAction, storeScreenshot, type PortalActionRow, type PortalSessionRow } from './repository.js';
import type { EgressPin } from '../../../shared/http/pinned-dns.js';
import { startPinningProxy, type PinningProxy } from '../../../shared/http/pinning-proxy.js';
import type { PortalStep } from './schemas.js';
import { redactSecretsDeep } from '../../../shared/secrets.js';
import { resolveReference } from '../../credentials/index.js';
import { CREDENTIAL_FIELD, inScope, stepUrl } from './logic.js';

/**
 * What the portal-actions worker runs for POST /v1/tools/portalBrowser and
 * …/actions/{id}/run (jobs/bridge/portal/run.ts): a portal action's steps in
 * headless chromium (playwright-core), one fresh context per run. Fails
 * closed: nothing runs unless the session's preflight (run again just
 * before, by the worker) is ready; every request is checked against the
 * egress rules and every main-frame navigation against the session's scope,
 * and the first one out of bounds is aborted and stops the run as `blocked`. Credential values
 * are typed, never recorded: a fill from a credential is recorded as
 * `[credential:name]`, its field masked in every later screenshot, and the
 * values are redacted from extracted text and errors.
 */

/** How the portal browser launches chromium; tests launch it the same way. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Blocked {
  reason: string;
  message: string;
  step: number | null;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function extractTable(locator: Locator): Promise<string[][]> {
  return locator.evaluate((el) =>
    [...el.querySelectorAll('tr')].map((tr) =>
      [...tr.querySelectorAll('th,td')].map((c) => (c.textContent ?? '').trim()),
    ),
  );
}

/**
 * Drives a claimed (`running`) action's steps and settles it, at its attempt: `succeeded`, `failed` or `blocked`.
 * `pin` reaches the pinning proxy only: tests pass a resolver they control (a rebinding one) and a deny list; the
 * worker passes none, so production resolves with the system resolver and no Deps field exists for it.
 */
export async function executePortalAction(
  deps: Deps,
  action: PortalActionRow,
  session: PortalSessionRow,
  pin: EgressPin = {},
): Promise<PortalActionRow | null> {
  const values: Partial<Record<string, string>> = {};
  try {
    for (const [name, field] of Object.entries(CREDENTIAL_FIELD)) {
      const ref = session.credentials[field];
      if (ref)
        values[name] = await resolveReference(
          deps,
          { accountId: session.account_id, allowEnv: false, via: 'portal.action' },
          ref,
        );
    }
  } catch (err) {
    // The preflight just passed; a credential removed or disabled since fails the run with the vault's own (value-free)
    // error.
    const error = (err as Error).message;
    return movePortalAction(deps.db, action.id, ['running'], 'failed', { error, finished: true }, action.attempts);
  }
  const secrets = Object.values(values).filter((v): v is string => Boolean(v));
  const artefacts: unknown[] = [];
  const extracted: Record<string, unknown> = {};
  let blocked: Blocked | null = null;
  let current = -1;
  let browser: Browser | null = null;
  let proxy: PinningProxy | null = null;
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    void browser?.close().catch(() => undefined);
  }, deps.config.PORTAL_ACTION_TIMEOUT_MS);
  let error: string | null = null;
  try {
    // playwright-core (about 64 MB) is loaded on the first portal run, never by a process that runs none.
    const { chromium } = await import('playwright-core');
    // Chromium resolves no name itself: the pinning proxy resolves and checks each host once and connects to that
    // address.
    proxy = await startPinningProxy(deps.config.AWP_ALLOW_PRIVATE_EGRESS, pin);
    browser = await chromium.launch({
      executablePath: deps.config.BROWSER_EXECUTABLE,
      headless: true,
      args: [...CHROMIUM_FLAGS, ...proxy.chromiumArgs],
      timeout: deps.config.PORTAL_STEP_TIMEOUT_MS,
    });
    const context = await browser.newContext({ acceptDownloads: false, serviceWorkers: 'block' });
    const page = await context.newPage();
    await context.route('**/*', async (route) => {
      const request = route.request();
      const url = new URL(request.url());
      if (url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return route.abort('blockedbyclient');
      if (!deps.config.AWP_ALLOW_PRIVATE_EGRESS && (await proxy!.refused(url.hostname))) {
        if (request.isNavigationRequest())
          blocked ??= {
            reason: 'egress',
            message: `${url.origin} is a private, loopback or special-purpose address`,
            step: current,
          };
        return route.abort('blockedbyclient');
      }
      if (request.isNavigationRequest() && request.frame() === page.mainFrame() && !inScope(url.href, session.scope)) {
        blocked ??= {
          reason: 'outOfScope',
          message: `navigation to ${url.origin}${url.pathname} is outside the session's target scope`,
          step: current,
        };
        return route.abort('blockedbyclient');
      }
      return route.continue();
    });
    const masked: string[] = [];
    const steps = action.steps as PortalStep[];
    for (let i = 0; i < steps.length && !blocked; i++) {
      current = i;
      const step = steps[i]!;
      const started = Date.now();
      page.setDefaultTimeout(
        Math.min(step.timeoutMs ?? deps.config.PORTAL_STEP_TIMEOUT_MS, deps.config.PORTAL_STEP_TIMEOUT_MS),
      );
      const record: Record<string, unknown> = {};
      try {
        record.extracted = await runStep(page, step, {
          origin: session.target_origin,
          inputs: action.inputs,
          values,
          masked,
          record,
        });
      } catch (err) {
        if (!blocked) throw err;
      }
      if (blocked) break;
      if (step.op === 'extractText' || step.op === 'extractTable') extracted[step.as] = record.extracted;
      const png = await page.screenshot({ type: 'png', mask: masked.map((s) => page.locator(s)) });
      const hash = sha256(png);
      await storeScreenshot(deps.db, hash, png);
      artefacts.push({
        index: i,
        op: step.op,
        url: page.url(),
        screenshot: { sha256: hash, bytes: png.length },
        extracted: record.extracted ?? null,
        ...(record.typed ? { typed: record.typed } : {}),
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
      });
    }
  } catch (err) {
    error = blocked
      ? null
      : timedOut
        ? `step ${current}: the action's time limit (PORTAL_ACTION_TIMEOUT_MS) passed`
        : `step ${current}: ${(err as Error).message.split('\n')[0]}`;
  } finally {
    clearTimeout(deadline);
    await (browser as Browser | null)?.close().catch(() => undefined);
    await (proxy as PinningProxy | null)?.close();
  }
  const status = blocked ? 'blocked' : error ? 'failed' : 'succeeded';
  const clean = redactSecretsDeep({ artefacts, extracted, blocked, error }, secrets);
  return movePortalAction(deps.db, action.id, ['running'], status, { ...clean, finished: true }, action.attempts);
}

async function runStep(
  page: Page,
  step: PortalStep,
  ctx: {
    origin: string;
    inputs: Record<string, string>;
    values: Partial<Record<string, string>>;
    masked: string[];
    record: Record<string, unknown>;
  },
): Promise<unknown> {
  switch (step.op) {
    case 'navigate':
      await page.goto(stepUrl(step.url, ctx.origin, ctx.inputs)!, { waitUntil: 'load' });
      return null;
    case 'fill': {
      if (step.credential) {
        ctx.masked.push(step.selector);
        ctx.record.typed = `[credential:${step.credential}]`;
        await page
          .locator(step.selector)
          .first()
          .fill(ctx.values[step.credential] ?? '');
      } else {
        ctx.record.typed = ctx.inputs[step.input!] ?? '';
        await page
          .locator(step.selector)
          .first()
          .fill(ctx.inputs[step.input!] ?? '');
      }
      return null;
    }
    case 'click':
      await page.locator(step.selector).first().click();
      await page.waitForLoadState('load');
      return null;
    case 'waitFor':
      await page.locator(step.selector).first().waitFor({ state: 'visible' });
      return null;
    case 'extractText':
      return (await page.locator(step.selector).first().innerText()).trim();
    case 'extractTable':
      return extractTable(page.locator(step.selector).first());
    case 'screenshot':
      return null;
  }
}
