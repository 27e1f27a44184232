// Debian's Chromium for the browser suites, driven by playwright-core: headless, no background
// traffic, and made-up host names mapped to loopback by the suite's host rules.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the suites write their screenshots. */
export const SHOTS = path.resolve('test-results/screenshots');

/** Fails at once when Chromium is missing (never skip silently: scripts/test.ts installs it), and makes the screenshots folder. */
export function requireChromium() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  fs.mkdirSync(SHOTS, { recursive: true });
}

/** Chromium in a fresh profile with these --host-resolver-rules (and viewport, if given), and its first page. */
export async function launchChromium(hostRules: string, viewport?: { width: number; height: number }): Promise<{ browser: BrowserContext; page: Page }> {
  const browser = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(os.tmpdir(), 'mia-chromium-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: [...FLAGS, `--host-resolver-rules=${hostRules}`],
    ...(viewport ? { viewport } : {}),
  });
  return { browser, page: browser.pages()[0] ?? (await browser.newPage()) };
}
