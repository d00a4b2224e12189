/**
 * Fault events on every run (`--event 'AT:ACTION[:k=v,...]'`, a config file's `events`): checked before
 * anything connects (bad input exits 2 naming the option or the file's key), listed by --dry-run as
 * entries of the write plan, fired at `at` seconds into each step's measured window and recorded on the
 * step with what was done. Network faults go through a real Toxiproxy (v2.5.0, built from the Go module
 * proxy by .ci/go-tools) in front of the CRUD test double: a proxy down for 2 s is one outage of about
 * 2 s; every fault is undone at its end and when the run is interrupted, and a killed run's toxics are
 * removed by the next run. freeze and stepDown are checked on the recording server (the commands sent;
 * its answers are the protocol's, not MongoDB's figures). The CRUD server's figures are a test double's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchmarkOptions } from '../../lib/api';
import { loadResult } from '../../lib/report';
import { parseEventText } from '../../lib/run/scenarios/event-spec';
import { runCli, usageMessage } from '../support/cli';
import { startCli } from '../support/cli-child';
import { startToxiproxy, type Toxiproxy } from '../support/go-servers';
import { startRecordingServer, type RecordingServer } from '../support/recording-server';
import { crudUri, describeNeeding, uniqueDbName } from '../support/servers';

const URI = 'mongodb://127.0.0.1:1/';

/** The driver's heartbeat in the Toxiproxy runs' URI: the longest it may take to find the server back (see the bound below). */
const HEARTBEAT_MS = 1000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mb-fault-events-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--event and events: checked before anything connects', () => {
  const refused = async (...args: string[]) => {
    const run = await runCli(['run', '--uri', URI, '--out', join(dir, 'refused'), ...args]);
    expect(run.code).toBe(2);
    return run.stderr;
  };

  it("reads AT:ACTION[:k=v,...]: a toxic's type, stream and toxicity are its own, its other keys attributes", () => {
    expect(parseEventText('5:toxic:proxy=mongo,type=latency,latency=300,for=10s', 'x')).toEqual({
      at: 5,
      action: 'toxic',
      proxy: 'mongo',
      for: '10s',
      toxic: { type: 'latency', attributes: { latency: 300 } },
    });
    expect(parseEventText('2s:createIndex:keys={"k":1,"x":-1}', 'x')).toEqual({
      at: '2s',
      action: 'createIndex',
      keys: { k: 1, x: -1 },
    });
    const [proxyDown, toxic] = benchmarkOptions({
      uri: URI,
      toxiproxy: 'http://127.0.0.1:8474',
      events: [
        '3:proxyDown:proxy=mongo,for=2s',
        { at: '1s', action: 'toxic', proxy: 'mongo', toxic: { type: 'timeout' } },
      ],
    }).events!;
    expect(proxyDown).toEqual({ action: 'proxyDown', at: 3, proxy: 'mongo', for: 2 });
    expect(toxic).toEqual({
      action: 'toxic',
      at: 1,
      proxy: 'mongo',
      toxic: { type: 'timeout', stream: 'downstream', toxicity: 1, attributes: {} },
    });
  });

  it('bad input exits 2, naming the option and the event', async () => {
    expect(await refused('--event', '3:nap')).toMatch(
      /option --event\[0\]\.action: must be one of createIndex, .*proxyDown, toxic.*got "nap"/,
    );
    expect(await refused('--event', 'soon')).toMatch(/option --event\[0\]: expected AT:ACTION/);
    expect(await refused('--event', '3:proxyDown:for=2s', '--toxiproxy', 'http://h:1')).toMatch(
      /option --event\[0\]\.proxy: required: the name of the Toxiproxy proxy/,
    );
    expect(
      await refused('--event', '1:toxic:proxy=m,type=latency,speed=3', '--toxiproxy', 'http://h:1'),
    ).toMatch(
      /option --event\[0\]\.toxic\.attributes: unknown attribute "speed" for a latency toxic/,
    );
    expect(await refused('--event', '3:proxyDown:proxy=mongo')).toMatch(
      /option --event: a network fault .* give its API's URL with --toxiproxy/,
    );
    expect(await refused('--event', '12:stepDown', '--seconds', '10')).toMatch(
      /option --event\[0\]: at: 12 s is not inside the step's measured window \(0 to 10 s/,
    );
    expect(await refused('--event', '2:freeze')).toMatch(/option --event\[0\]\.seconds: required/);
    expect(await refused('--event', '2:stepDown:seconds=5')).toMatch(
      /option --event\[0\]\.seconds: the server refuses a step-down shorter than/,
    );
    expect(await refused('--toxiproxy', '127.0.0.1:8474')).toMatch(
      /option --toxiproxy: expected an http:\/\/ URL/,
    );
  });

  it('time-based events are refused with --ops steps, naming both', async () => {
    expect(await refused('--ops', '100', '--event', '2:stepDown')).toMatch(
      /option --ops: cannot be combined with --event/,
    );
  });

  it("a config file's events: errors name the file and the key", async () => {
    const file = join(dir, 'events.json');
    writeFileSync(
      file,
      JSON.stringify({ uri: URI, events: [{ at: '2s', action: 'freeze', seconds: 0 }] }),
    );
    const stderr = await refused('--config', file);
    expect(stderr).toMatch(/events\.json.*events\[0\]\.seconds: a whole number of seconds >= 1/);
    expect(
      usageMessage(() =>
        benchmarkOptions({ uri: URI, events: [{ at: 1, action: 'stepDown', seconds: 10, x: 1 }] }),
      ),
    ).toMatch(/^option events\[0\]: unknown key "x" for stepDown \(it takes seconds\)/);
  });

  it('--dry-run lists every fault as an entry of the write plan, its undo said', async () => {
    const run = await runCli([
      'run',
      '--uri',
      URI,
      '--dry-run',
      '--toxiproxy',
      'http://127.0.0.1:8474',
      '--event',
      '3:proxyDown:proxy=mongo,for=2s',
      '--event',
      '4:toxic:proxy=mongo,type=latency,latency=300',
      '--event',
      '5:freeze:seconds=20,host=127.0.0.1:27018',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /network-fault on Toxiproxy proxy mongo at http:\/\/127\.0\.0\.1:8474 \[a configured event\]: the run's proxyDown at 3 s .*\(restored at the end: the proxy enabled again after 2 s/,
    );
    expect(run.stdout).toMatch(
      /network-fault on Toxiproxy proxy mongo .*a latency toxic \{"latency":300\}.*\(restored at the end: the toxic removed at the step's/,
    );
    expect(run.stdout).toMatch(
      /freeze on 127\.0\.0\.1:27018 \[a configured event\]: .*replSetFreeze 20 s/,
    );
  });
});

describe('freeze and stepDown: the commands sent (recording server)', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startRecordingServer({
      handlers: { replSetStepDown: () => ({ ok: 1 }), replSetFreeze: () => ({ ok: 1 }) },
    });
  });
  afterAll(() => server.stop());

  it('fires each at its second of the window, records the command, and unfreezes at the step end', async () => {
    const out = join(dir, 'recording');
    const run = await runCli([
      'run',
      '--uri',
      server.uri,
      '--no-load',
      '--clients',
      '1',
      '--seconds',
      '2',
      '--warmup',
      '0',
      '--workers',
      '1',
      '--no-server-stats',
      '--test-double',
      '--out',
      out,
      '--event',
      '1:stepDown:seconds=10',
      '--event',
      '1:freeze:seconds=30',
    ]);
    expect(run.stderr).toMatch(/\[faults\] stepDown at 1\.\d+ s to .*trial 1: done/);
    const sent = server.userCommands().filter((c) => c.name.startsWith('replSet'));
    expect(sent.map((c) => c.body)).toEqual(
      expect.arrayContaining([
        { replSetStepDown: 10 },
        { replSetFreeze: 30 },
        // The step ended before the 30 s: the member is unfrozen.
        { replSetFreeze: 0 },
      ]),
    );
    const [step] = (await loadResult(join(out, 'results.json'))).steps;
    const byAction = Object.fromEntries(step.events!.map((e) => [e.action, e]));
    expect(byAction.stepDown).toMatchObject({
      ok: true,
      trial: 1,
      at: 1,
      command: { replSetStepDown: 10 },
    });
    expect(byAction.stepDown.startedAt).toBeGreaterThanOrEqual(1);
    expect(byAction.freeze).toMatchObject({
      ok: true,
      command: { replSetFreeze: 30 },
      undo: { ok: true },
    });
    expect(byAction.freeze.endedAt).toBeGreaterThanOrEqual(1);
  }, 30_000);
});

describeNeeding(
  ['crud', 'toxiproxy'],
  'network faults through Toxiproxy (CRUD test double behind it)',
  () => {
    let toxiproxy: Toxiproxy;
    let listen: string;
    beforeAll(async () => {
      toxiproxy = await startToxiproxy();
      listen = await toxiproxy.addProxy('mongo', new URL(crudUri()).host);
      await toxiproxy.addProxy('spare', new URL(crudUri()).host);
    }, 30_000);
    afterAll(() => toxiproxy?.stop());

    const proxies = async () =>
      (await (
        await fetch(`${toxiproxy.apiUrl}/proxies`, { signal: AbortSignal.timeout(5000) })
      ).json()) as Record<string, { enabled: boolean; toxics: { name: string }[] }>;
    const expectClean = async () => {
      const all = await proxies();
      expect(all.mongo.enabled).toBe(true);
      expect(all.spare.enabled).toBe(true);
      expect(Object.values(all).flatMap((p) => p.toxics.map((t) => t.name))).not.toContainEqual(
        expect.stringMatching(/^mongo-bench-/),
      );
    };
    const runArgs = (name: string, seconds: number) => [
      'run',
      '--uri',
      `mongodb://${listen}/?directConnection=true&heartbeatFrequencyMS=${HEARTBEAT_MS}`,
      '--toxiproxy',
      toxiproxy.apiUrl,
      '--ns',
      `${uniqueDbName(name)}.docs`,
      '--clients',
      '2',
      '--seconds',
      String(seconds),
      '--warmup',
      '0',
      '--docs',
      '50',
      '--doc-size',
      '64',
      '--workers',
      '1',
      '--no-server-stats',
      '--test-double',
      '--server-selection-timeout',
      '5000',
      '--out',
      join(dir, name),
    ];

    it('a 2 s proxyDown at 3 s of a 9 s step: one outage of about 2 s, network errors, the proxy enabled again', async () => {
      const run = await runCli([
        ...runArgs('down', 9),
        '--event',
        '3:proxyDown:proxy=mongo,for=2s',
      ]);
      expect(run.code).toBe(0);
      const [step] = (await loadResult(join(dir, 'down', 'results.json'))).steps;
      const [event] = step.events!;
      expect(event).toMatchObject({
        action: 'proxyDown',
        proxy: 'mongo',
        for: 2,
        ok: true,
        trial: 1,
      });
      expect(event.undo).toMatchObject({ ok: true, what: 'proxy mongo enabled again' });
      expect(event.startedAt).toBeGreaterThanOrEqual(3);
      expect(event.endedAt! - event.startedAt!).toBeGreaterThanOrEqual(2);
      expect(event.endedAt! - event.startedAt!).toBeLessThan(2.5);
      const outages = step.availability!.outages;
      const longest = outages.reduce((a, b) => (b.seconds > a.seconds ? b : a));
      // At least the 2 s the proxy was down, less an answer handled late (0.25 s). At most those 2 s plus
      // the driver finding the server again, and 1 s for a loaded machine. Mostly the driver finds it at
      // once (2.03 to 2.27 s over 14 runs by hand at the default heartbeat), but now and then its monitor
      // waits a whole heartbeatFrequencyMS before its next check (10.05 s in 1 of 7 runs of this file at
      // the default 10 s): the URI sets 1 s.
      expect(longest.seconds).toBeGreaterThanOrEqual(1.75);
      expect(longest.seconds).toBeLessThan(2 + HEARTBEAT_MS / 1000 + 1);
      expect(longest.end).toBeDefined();
      // A lost server: every kind out at once, what the application saw counted as network errors.
      expect(longest.kind).toBe('all');
      expect(longest.errorsByClass?.network ?? 0).toBeGreaterThan(0);
      expect(step.ops.errors).toBeGreaterThan(0);
      expect(run.stderr).toMatch(
        /\[faults\] proxyDown mongo at 3\.\d+ s to 5\.\d+ s, trial 1: done; proxy mongo enabled again/,
      );
      await expectClean();
    }, 40_000);

    it("a run without faults reports none; a killed run's toxic is removed and a disabled proxy said at the start", async () => {
      await fetch(`${toxiproxy.apiUrl}/proxies/mongo/toxics`, {
        method: 'POST',
        body: JSON.stringify({
          name: 'mongo-bench-old-1',
          type: 'latency',
          attributes: { latency: 1 },
        }),
      });
      await fetch(`${toxiproxy.apiUrl}/proxies/spare`, {
        method: 'POST',
        body: JSON.stringify({ enabled: false }),
      });
      const run = await runCli(runArgs('none', 2));
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        "[faults] removed toxic mongo-bench-old-1 (latency) from proxy mongo: a killed run's, left behind",
      );
      expect(run.stderr).toMatch(/\[faults\] warning: proxy spare is disabled at the run's start/);
      const [step] = (await loadResult(join(dir, 'none', 'results.json'))).steps;
      expect(step.availability!.outages).toEqual([]);
      expect(step.events).toBeUndefined();
      await fetch(`${toxiproxy.apiUrl}/proxies/spare`, {
        method: 'POST',
        body: JSON.stringify({ enabled: true }),
      });
      await expectClean();
    }, 30_000);

    it('an interrupted run (SIGINT) undoes its faults: the proxy enabled again, its toxics removed', async () => {
      // The faults are on the proxy the run connects through, as a user's would be: the clients wait for a
      // server that is gone when the interrupt comes, and the undo must still run. An op sent before the
      // proxy went down may never be answered (Toxiproxy can leave a link half open under a bandwidth
      // toxic): the run waits for it up to --op-timeout (30 s by default, seen here: 15 s), so 5 s here.
      const cli = startCli([
        ...runArgs('interrupted', 20),
        '--op-timeout',
        '5000',
        '--event',
        '1:toxic:proxy=mongo,type=latency,latency=100',
        '--event',
        '1:toxic:proxy=mongo,type=bandwidth,rate=100',
        '--event',
        '2:proxyDown:proxy=mongo',
      ]);
      await cli.waitFor(/\[sweep\] step 1\/1/, 20_000);
      // Once the proxy is down and the toxics in force (2 s into the window).
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await proxies()).mongo.enabled)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const during = await proxies();
      expect(during.mongo.enabled).toBe(false);
      expect(during.mongo.toxics.map((t) => t.name)).toEqual([
        expect.stringMatching(/^mongo-bench-\d{8}T\d{6}-[0-9a-f]{6}-\d$/),
        expect.stringMatching(/^mongo-bench-\d{8}T\d{6}-[0-9a-f]{6}-\d$/),
      ]);
      cli.child.kill('SIGINT');
      const finished = await cli.finished;
      expect(finished.code).toBe(130);
      expect(cli.output()).toMatch(
        /\[faults\] proxyDown mongo at 2\.\d+ s to \d+\.\d+ s, trial 1: done; proxy mongo enabled again/,
      );
      await expectClean();
    }, 40_000);
  },
);
