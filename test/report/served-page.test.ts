/**
 * run --serve: the report page served while the run goes. On the CRUD test double (its numbers are not
 * MongoDB's; only what the page shows against results.json is checked): in headless Chromium the page
 * shows the first step's seconds before the run ends, and at the end the whole result, equal to
 * results.json, with the link to the written index.html; the server answers only to its own Host names
 * (421 otherwise); a port taken is a usage error naming --serve before anything runs; Ctrl-C (the run's
 * abort) closes it, and nothing is left listening. The options: config keys, usage errors, the dry run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { run, RunEvent } from '../../lib/api/run';
import { killStartedClis, startCli } from '../support/cli-child';
import type { ResultDocument } from '../../lib/result';
import { SERVED_CONTENT_SECURITY_POLICY } from '../../lib/report/page/page';
import { ServedPage } from '../../lib/run/served-page';
import { artifactDir, describeWithBrowser, launchBrowser } from '../support/browser';
import { runCli, usageMessage } from '../support/cli';
import { resultDocument, resultStep } from '../support/results';
import { resolveRunPlan } from '../../lib/run/options/run-plan';
import { renderDryRun } from '../../lib/run/options/dry-run';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { getWithHost } from '../support/http-get';

interface ServedInPage {
  seconds: Array<{ clients: number; phase: string; second: number; reads: number; writes: number }>;
  result: ResultDocument | null;
  done: boolean;
  /** The running step's Chart.js line chart. */
  chart: { data: { labels: string[]; datasets: Array<{ label: string; data: number[] }> } } | null;
}
declare const window: { mongoBenchServed: ServedInPage };
declare const document: {
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
};

/** /events opened: resolves once the server's first bytes arrived (the stream is registered), with the rest to come. */
function openStream(port: number): Promise<{ rest: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/events', headers: { host: 'localhost' } },
      (res) => {
        res.setEncoding('utf8');
        let body = '';
        const rest = new Promise<string>((done) => res.on('end', () => done(body)));
        res.once('data', () => resolve({ rest }));
        res.on('data', (chunk: string) => (body += chunk));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Whether something listens on the port (a refused connection: nothing). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const portOf = (url: string) => Number(new URL(url).port);

describe('the served page server', () => {
  it('answers only requests whose Host header is its address, localhost or 127.0.0.1 (421 otherwise), with the served CSP', async () => {
    const served = await ServedPage.start({ port: 0, host: '127.0.0.1', lingerSeconds: 0 }, 't');
    const port = portOf(served.url);
    try {
      expect(served.warning).toBeUndefined();
      const evil = await getWithHost(port, '/', `attacker.example:${port}`);
      expect(evil.status).toBe(421);
      expect(evil.body).not.toContain('<html');
      expect((await getWithHost(port, '/events', 'attacker.example')).status).toBe(421);
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
        const page = await getWithHost(port, '/', host);
        expect(page.status).toBe(200);
        expect(page.body).toContain(
          `<meta http-equiv="Content-Security-Policy" content="${SERVED_CONTENT_SECURITY_POLICY}">`,
        );
      }
      expect((await getWithHost(port, '/results.json', 'localhost')).status).toBe(404);
    } finally {
      await served.close(0, new AbortController().signal);
    }
    expect(await listening(port)).toBe(false);
  });
});

describe('the served page at the end', () => {
  it('sends the result to an open stream, serves the written index.html while it lingers, and closes at the abort', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-served-end-'));
    const indexHtml = join(dir, 'index.html');
    writeFileSync(indexHtml, '<!DOCTYPE html><title>the report</title>');
    const served = await ServedPage.start({ port: 0, host: '127.0.0.1', lingerSeconds: 60 }, 't');
    const port = portOf(served.url);
    const controller = new AbortController();
    try {
      const stream = await openStream(port);
      served.finish(resultDocument('end', [resultStep({ clients: 1 })]), { indexHtml });
      expect(await stream.rest).toContain(
        'event: result\ndata: {"result":{"schema":"mongo-bench/result@1"',
      );
      const closing = served.close(60, controller.signal);
      const index = await getWithHost(port, '/index.html', `127.0.0.1:${port}`);
      expect(index).toEqual({ status: 200, body: '<!DOCTYPE html><title>the report</title>' });
      const page = await getWithHost(port, '/', 'localhost');
      expect(page.body).toContain('"final":{"indexHtml":');
      controller.abort();
      await closing;
      expect(await listening(port)).toBe(false);
    } finally {
      controller.abort();
      await served.close(0, controller.signal);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the seconds a page loaded mid-step is given', () => {
  it("the running step's last 120, in order; a new step starts afresh", async () => {
    const served = await ServedPage.start({ port: 0, host: '127.0.0.1', lingerSeconds: 0 }, 't');
    const port = portOf(served.url);
    const tick = (second: number): RunEvent => ({
      type: 'tick',
      clients: 4,
      trial: 1,
      tick: {
        phase: 'measure',
        second,
        reads: 6,
        writes: 1,
        errors: 0,
        measured: { reads: 0, writes: 0, errors: 0 },
      },
    });
    const embedded = async () => {
      const body = (await getWithHost(port, '/', 'localhost')).body;
      const json = /<script type="application\/json" id="mb-data-served">(.*?)<\/script>/.exec(
        body,
      )![1];
      return JSON.parse(json) as { seconds: Array<{ second: number; clients: number }> };
    };
    try {
      for (let second = 0; second < 130; second++) served.handle(tick(second));
      const { seconds } = await embedded();
      expect(seconds.map((s) => s.second)).toEqual(Array.from({ length: 120 }, (_, i) => i + 10));
      served.handle({
        type: 'step-start',
        clients: 8,
        trial: 1,
        trials: 1,
        seconds: 10,
        warmupSeconds: 0,
      });
      expect((await embedded()).seconds).toEqual([]);
    } finally {
      await served.close(0, new AbortController().signal);
    }
  });
});

describe('the served page of a run that measured nothing', () => {
  it('tells the open page the run ended with no result, and the page served after says so too', async () => {
    const served = await ServedPage.start({ port: 0, host: '127.0.0.1', lingerSeconds: 0 }, 't');
    const port = portOf(served.url);
    const controller = new AbortController();
    try {
      const stream = await openStream(port);
      served.finish(undefined, {});
      expect(await stream.rest).toContain('event: result\ndata: {"result":null,"reload":true}');
      const closing = served.close(0, controller.signal);
      // The page that got the end loads the final page once; the server waits for it.
      const page = await getWithHost(port, '/', 'localhost');
      expect(page.body).toContain(
        '<script type="application/json" id="mb-data-served">{"seconds":[],"final":{}}',
      );
      await closing;
      expect(await listening(port)).toBe(false);
    } finally {
      controller.abort();
      await served.close(0, controller.signal);
    }
  });
});

describe('--serve, --serve-host, --serve-linger and --junit as options', () => {
  const NO_ENV = {};
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-served-options-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a config file gives them by key; the dry run lists the address and the JUnit file', () => {
    const config = join(dir, 'run.yaml');
    writeFileSync(
      config,
      'uri: mongodb://127.0.0.1:27017\nserve: 8123\nserveHost: 10.0.0.5\nserveLinger: 30\njunit: ci/junit.xml\n',
    );
    const plan = resolveRunPlan({ config }, { env: NO_ENV });
    expect(plan.serve).toEqual({ port: 8123, host: '10.0.0.5', lingerSeconds: 30 });
    expect(plan.junit).toBe(resolve('ci/junit.xml'));
    expect(plan.writePlan.entries).toContainEqual({
      kind: 'file',
      path: resolve('ci/junit.xml'),
      source: 'run',
    });
    const text = renderDryRun(plan);
    expect(text).toContain(`  write ${resolve('ci/junit.xml')} (run)`);
    expect(text).toContain(
      'Served page: http://10.0.0.5:8123/ while the run goes, and 30 s after it (--serve-linger) (warning: the served page listens on 10.0.0.5:8123, which other machines may reach',
    );
    expect(resolveRunPlan({ uri: 'mongodb://h', serve: 0 }, { env: NO_ENV }).serve).toEqual({
      port: 0,
      host: '127.0.0.1',
      lingerSeconds: 0,
    });
  });

  it('bad values are usage errors naming the option', () => {
    const plan = (flags: Record<string, unknown>) => () =>
      resolveRunPlan({ uri: 'mongodb://h', ...flags }, { env: NO_ENV });
    expect(usageMessage(plan({ serveLinger: 5 }))).toBe('option --serve-linger: only with --serve');
    expect(usageMessage(plan({ serveHost: '0.0.0.0' }))).toBe(
      'option --serve-host: only with --serve',
    );
    expect(usageMessage(plan({ serve: 70000 }))).toContain(
      'option --serve: must be a port from 0 to 65535',
    );
    expect(usageMessage(plan({ serve: 1, serveLinger: -1 }))).toContain(
      'option --serve-linger: must be 0 or more seconds',
    );
    expect(usageMessage(plan({ junit: '' }))).toContain('option --junit: must not be empty');
  });
});

describeNeeding('crud', 'run --serve on the CRUD test server', () => {
  let dir: string;
  const base = () => ({
    uri: crudUri(),
    docs: 100,
    docSize: 128,
    warmup: 0,
    serverStats: false,
  });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-served-'));
  });
  afterAll(() => {
    killStartedClis();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a port taken is a usage error naming --serve, before anything runs or is written', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const out = join(dir, 'taken');
      const cli = await runCli([
        'run',
        '--uri',
        crudUri(),
        '--ns',
        `${uniqueDbName('served_taken')}.docs`,
        '--out',
        out,
        '--serve',
        String(port),
      ]);
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain(`option --serve: port ${port} on 127.0.0.1 is taken`);
      expect(existsSync(out)).toBe(false);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('Ctrl-C (SIGINT to the CLI) mid-step closes the served page: exit 130, nothing is left listening', async () => {
    const cli = startCli([
      'run',
      '--uri',
      crudUri(),
      '--ns',
      `${uniqueDbName('served_sigint')}.docs`,
      '--clients',
      '1',
      '--seconds',
      '60',
      '--warmup',
      '0',
      '--docs',
      '100',
      '--doc-size',
      '128',
      '--no-server-stats',
      '--out',
      join(dir, 'sigint'),
      '--serve',
      '0',
      '--serve-linger',
      '60',
    ]);
    try {
      await cli.waitFor(/\[serve\] the served page: http:\/\/127\.0\.0\.1:\d+\//, 30_000);
      const port = portOf(/http:\/\/127\.0\.0\.1:\d+\//.exec(cli.output())![0]);
      await cli.waitFor(/\[sweep\]/, 30_000);
      expect((await getWithHost(port, '/', 'localhost')).status).toBe(200);
      const stream = await openStream(port);
      cli.child.kill('SIGINT');
      expect(await cli.exited).toBe(130);
      expect(await listening(port)).toBe(false);
      // The open page was told the end, and not to reload: the server was closing at once.
      expect(await stream.rest).toMatch(/event: result\ndata: \{.*"reload":false\}/);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  describeWithBrowser('in headless Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("shows the first step's seconds before the run ends, then the whole result, equal to results.json, and the link to index.html", async () => {
      const out = join(dir, 'page');
      const controller = new AbortController();
      let ended = false;
      let served: (url: string) => void = () => undefined;
      const address = new Promise<string>((resolve) => (served = resolve));
      const running = run(
        {
          ...base(),
          ns: `${uniqueDbName('served_page')}.docs`,
          clients: [1],
          seconds: 4,
          out,
          serve: 0,
        },
        {
          signal: controller.signal,
          onEvent: (e: RunEvent) => {
            if (e.type === 'serving') served(e.url);
          },
        },
      ).finally(() => (ended = true));
      try {
        const url = await address;
        const page = await browser.newPage();
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        page.on('pageerror', (e) => problems.push(e.message));
        await page.goto(url);
        await page.waitForSelector('#mb-served-seconds tbody tr', { timeout: 60_000 });
        await page.screenshot({ path: join(artifactDir('served-page'), 'served-running.png') });

        // The first step's measured seconds, as they arrive, while the run goes on.
        await page.waitForFunction(
          () =>
            window.mongoBenchServed.seconds.some((s) => s.clients === 1 && s.phase === 'measure'),
          null,
          { timeout: 60_000 },
        );
        expect(ended).toBe(false);
        const firstCells = await page.evaluate(() =>
          Array.from(document.querySelectorAll('#mb-served-seconds tbody tr td:first-child')).map(
            (td) => td.textContent,
          ),
        );
        expect(firstCells).toContain('1');
        // The same seconds drawn: one point per second, reads/s and writes/s as the table lists them.
        const drawn = await page.evaluate(() => {
          const { chart, seconds } = window.mongoBenchServed;
          return {
            labels: chart?.data.labels.length,
            reads: chart?.data.datasets[0].data,
            writes: chart?.data.datasets[1].data,
            expectedReads: seconds.map((s) => s.reads),
            expectedWrites: seconds.map((s) => s.writes),
          };
        });
        expect(drawn.labels).toBe(drawn.expectedReads.length);
        expect(drawn.reads).toEqual(drawn.expectedReads);
        expect(drawn.writes).toEqual(drawn.expectedWrites);

        // The end: the whole result, equal to the results.json written.
        await page.waitForSelector('html[data-served="done"]', { timeout: 90_000 });
        const shown = await page.evaluate(() => window.mongoBenchServed.result);
        const written = JSON.parse(
          readFileSync(join(out, 'results.json'), 'utf8'),
        ) as ResultDocument;
        expect(shown).toEqual(written);
        const rows = await page.evaluate(() =>
          Array.from(document.querySelectorAll('#mb-served-result tbody tr')).map((tr) =>
            (tr.textContent ?? '').trim(),
          ),
        );
        expect(rows).toHaveLength(written.steps.length);
        const cells = await page.evaluate(() =>
          Array.from(document.querySelectorAll('#mb-served-result tbody td')).map(
            (td) => td.textContent,
          ),
        );
        written.steps.forEach((step, i) => {
          expect(cells.slice(i * 8, i * 8 + 4)).toEqual([
            String(step.clients),
            step.opsPerSec.total.toFixed(1),
            step.opsPerSec.reads.toFixed(1),
            step.opsPerSec.writes.toFixed(1),
          ]);
        });
        // The link to the written index.html, and its path beside it.
        const link = await page.evaluate(() =>
          Array.from(document.querySelectorAll('#mb-served-index')).map((p) => p.textContent),
        );
        expect(link).toEqual([
          `The report: index.html (written to ${join(out, 'index.html')}; this server may have closed, the file stays)`,
        ]);
        // The final page's report is the finished run's (the page loaded it once at the end).
        const warnings = await page.evaluate(() =>
          Array.from(document.querySelectorAll('p.warning')).map((p) => p.textContent ?? ''),
        );
        expect(warnings.filter((w) => w.startsWith('INCOMPLETE'))).toEqual([]);
        expect(problems).toEqual([]);
        await page.screenshot({ path: join(artifactDir('served-page'), 'served-end.png') });

        // Without --serve-linger the server closes with the run: its own exit code, nothing listening,
        // and the page keeps the result.
        const outcome = await running;
        expect(outcome.exitCode).toBe(0);
        expect(await listening(portOf(url))).toBe(false);
        expect(await page.evaluate(() => window.mongoBenchServed.result !== null)).toBe(true);
        await page.close();
      } finally {
        controller.abort('SIGINT');
        await running.catch(() => undefined);
      }
    });
  });
});
