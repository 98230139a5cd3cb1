import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM_FLAGS as FLAGS } from '../../jobs/bridge/portal/browser.js';

export const CHROMIUM = '/usr/bin/chromium';

const onPath = () => spawnSync('which', ['chromium']).status === 0;

/**
 * Debian's chromium, installed when missing (as root, `apt-get install -y
 * chromium`). Returns why it cannot be had, so the browser tests skip saying
 * so instead of failing on a machine that cannot install it.
 */
export function ensureChromium(): string | null {
  if (onPath()) return null;
  if (process.getuid?.() !== 0)
    return 'chromium is not installed and this is not root: run `apt-get install -y chromium`';
  try {
    execFileSync('apt-get', ['install', '-y', 'chromium'], {
      stdio: 'ignore',
      timeout: 600_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (err) {
    return `apt-get install -y chromium failed: ${(err as Error).message.split('\n')[0]}`;
  }
  return onPath() ? null : 'apt-get install -y chromium finished but chromium is not on PATH';
}

/** Skips the suite (from its `before`) when chromium cannot be had, saying why. */
export function skipWithoutChromium(suite: Mocha.Context): void {
  const missing = ensureChromium();
  if (!missing) return;
  console.log(`  browser tests skipped: ${missing}`);
  suite.skip();
}

/** Headless chromium with a new, empty profile directory; `close` ends it and removes the directory. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'awp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}
