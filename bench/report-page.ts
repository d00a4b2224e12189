/**
 * The report page's size and how long headless Chromium takes to draw it, for a 128-client, 10-step
 * run with server stats (a made-up three-member replica set sampled every second), built from the
 * fixture's figures: the page of such a run should stay under 2 MB and be drawn in under 1 s.
 * Prints figures; it asserts nothing. Needs Chromium (see test/support/browser.ts).
 * Run: npm run bench:report-page [-- secondsPerStep loads]  (defaults 60 and 5)
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { ResultDocument, StepResult, parseResult } from '../lib/result';
import { renderIndexHtml } from '../lib/report/index-html';
import { pngCharts } from '../lib/report/chart-registry';
import { writeReport } from '../lib/report/write-report';
import { launchBrowser } from '../test/support/browser';
import { REPLICA_SET, withServerSection } from '../test/support/server-results';

const CLIENTS = [1, 2, 4, 8, 16, 24, 32, 64, 96, 128];
const secondsPerStep = Number(process.argv[2] ?? 60);
const loads = Number(process.argv[3] ?? 5);

/** A step of `clients` with `seconds` per-second samples, scaled from the fixture's last step, with the load generator's load. */
function step(template: StepResult, clients: number, index: number): StepResult {
  const scale = Math.min(1, 0.2 + clients / 40);
  const perSecond = Array.from({ length: secondsPerStep }, (_, t) => ({
    t,
    reads: Math.round(
      template.opsPerSec.reads * scale * (0.9 + 0.2 * Math.abs(Math.sin(t + index))),
    ),
    writes: Math.round(
      template.opsPerSec.writes * scale * (0.9 + 0.2 * Math.abs(Math.cos(t + index))),
    ),
    errors: 0,
  }));
  const reads = perSecond.reduce((n, p) => n + p.reads, 0);
  const writes = perSecond.reduce((n, p) => n + p.writes, 0);
  return {
    ...template,
    clients,
    seconds: secondsPerStep,
    perSecond,
    ops: { reads, writes, errors: 0 },
    opsPerSec: {
      total: (reads + writes) / secondsPerStep,
      reads: reads / secondsPerStep,
      writes: writes / secondsPerStep,
    },
    client: {
      workers: 2,
      eventLoopUtilization: [
        Math.min(0.97, 0.1 + index * 0.09),
        Math.min(0.95, 0.08 + index * 0.09),
      ],
      cpuPercent: 20 + index * 15,
      cores: 2,
    },
  };
}

function bigResult(): ResultDocument {
  const file = join(__dirname, '..', 'test', 'fixtures', 'result-complete.json');
  const fixture = parseResult(readFileSync(file, 'utf8'), file);
  const template = fixture.steps[fixture.steps.length - 1];
  const run = { ...fixture, steps: CLIENTS.map((c, i) => step(template, c, i)) };
  return withServerSection(run, {
    label: `${CLIENTS.length} steps to ${CLIENTS[CLIENTS.length - 1]} clients`,
    topology: 'replica set rs0 (3 members)',
    processes: REPLICA_SET,
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const result = bigResult();
  const dir = mkdtempSync(join(tmpdir(), 'mb-bench-page-'));
  const browser = await launchBrowser();
  try {
    const charts = pngCharts([result]);
    let started = performance.now();
    const html = renderIndexHtml([result], charts);
    const renderMs = performance.now() - started;
    started = performance.now();
    await writeReport([result], dir);
    const reportMs = performance.now() - started;
    const page = join(dir, 'index.html');
    const bytes = statSync(page).size;
    const resultBytes = Buffer.byteLength(JSON.stringify(result));
    const perSecondPoints = result.steps.reduce((n, s) => n + s.perSecond.length, 0);
    const serverPoints = Object.values(result.server!.series).reduce((n, s) => n + s.length, 0);
    console.log(
      `run: ${result.steps.length} steps (${CLIENTS.join(', ')} clients), ${secondsPerStep} s each: ${perSecondPoints} client seconds, ${serverPoints} server readings from ${result.server!.processes.length} processes`,
    );
    console.log(
      `index.html: ${(bytes / 1024 / 1024).toFixed(2)} MB (${bytes} bytes; the result document alone ${(resultBytes / 1024).toFixed(0)} KiB; Chart.js + plugin inlined ~245 KiB)${bytes < 2 * 1024 * 1024 ? '' : '  OVER the 2 MB budget'}`,
    );
    console.log(
      `rendering the page's HTML in Node: ${renderMs.toFixed(0)} ms (${html.length} characters); the whole report with its ${charts.length} PNGs: ${reportMs.toFixed(0)} ms`,
    );
    const ready: number[] = [];
    const drawn: number[] = [];
    for (let i = 0; i < loads; i++) {
      const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
      const tab = await context.newPage();
      await tab.goto(pathToFileURL(page).href);
      await tab.waitForSelector('html[data-page="ready"][data-charts="drawn"]', {
        state: 'attached',
      });
      // Measured by the page itself from the start of navigation (performance.timeOrigin).
      const t = (await tab.evaluate(
        '({ ready: window.mongoBenchPage.readyAt, drawn: window.mongoBenchPage.drawnAt, charts: window.mongoBenchPage.charts.length })',
      )) as { ready: number; drawn: number; charts: number };
      ready.push(t.ready);
      drawn.push(t.drawn);
      if (i === 0) console.log(`charts drawn live: ${t.charts}`);
      await context.close();
    }
    const list = (xs: number[]) =>
      `${xs.map((x) => x.toFixed(0)).join(', ')} ms (median ${median(xs).toFixed(0)} ms)`;
    console.log(
      `headless Chromium ${browser.version()} (viewport 1300x900), ${loads} loads from file://, times since navigation began:`,
    );
    console.log(
      `  first screen drawn (page usable): ${list(ready)}${median(ready) < 1000 ? '' : '  OVER the 1 s budget'}`,
    );
    console.log(`  every chart drawn:                ${list(drawn)}`);
    console.log(
      `  (load average here: ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} on ${cpus().length} cores: a busy machine inflates these)`,
    );
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
