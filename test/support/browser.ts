/**
 * The headless browser for tests of the report page: the system's Chromium (Debian's `chromium`
 * package, installed by .ci/run), driven by playwright-core, which downloads no browser of its own.
 * MONGO_BENCH_CHROMIUM names another binary. Without one, suites declared with describeWithBrowser
 * are skipped with the reason in their title (the summary reporter prints it), as servers.ts does.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium } from 'playwright-core';

const CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

/** The browser binary, or why there is none. */
export function findChromium(): { path?: string; reason?: string } {
  const named = process.env.MONGO_BENCH_CHROMIUM;
  if (named)
    return existsSync(named)
      ? { path: named }
      : { reason: `MONGO_BENCH_CHROMIUM=${named} does not exist` };
  const path = CANDIDATES.find((p) => existsSync(p));
  return path
    ? { path }
    : {
        reason: `no Chromium found (${CANDIDATES.join(', ')}); install Debian's chromium package (apt-get install -y chromium) or set MONGO_BENCH_CHROMIUM`,
      };
}

export function describeWithBrowser(title: string, fn: () => void): void {
  const { reason } = findChromium();
  if (reason) describe.skip(`${title} [skipped: chromium: ${reason}]`, fn);
  else describe(title, fn);
}

export async function launchBrowser(): Promise<Browser> {
  const { path, reason } = findChromium();
  if (!path) throw new Error(reason);
  return chromium.launch({ executablePath: path, headless: true });
}

/** Where tests leave screenshots for a person to look at (reports/ is not committed). */
export function artifactDir(name: string): string {
  const dir = join(
    process.env.MONGO_BENCH_TEST_ARTIFACTS ??
      join(__dirname, '..', '..', 'reports', 'test-artifacts'),
    name,
  );
  mkdirSync(dir, { recursive: true });
  return dir;
}
