/**
 * A scenario's stepDown event as the server takes it (src/mongo/db/repl/repl_set_commands.cpp,
 * CmdReplSetStepDown::run): a period shorter than secondaryCatchUpPeriodSecs (10 s by default, and
 * none is sent) is refused at config time, naming the field; through a mongos (which has no
 * replSetStepDown) the event is not sent and the error names the shards' replica sets; on a replica
 * set the command's ok: 1 is what marks it done. Servers: recording servers posing as a mongos and
 * as a primary (their answers are the protocol's, not MongoDB's figures).
 */
import { benchmarkOptions } from '../../lib/api';
import { runBackgroundEvent } from '../../lib/run/scenarios/background-events';
import { usageMessage } from '../support/cli';
import { startRecordingServer, type RecordingServer } from '../support/recording-server';
import { testClients } from '../support/clients';

const writer = { name: 'w', ops: [{ op: 'insert', doc: { a: 1 } }], rate: 10, duration: '30s' };

describe('stepDown at config time', () => {
  const message = (event: Record<string, unknown>) =>
    usageMessage(() =>
      benchmarkOptions({
        uri: 'mongodb://127.0.0.1:1',
        scenarios: [{ ...writer, events: [{ at: '1s', action: 'stepDown', ...event }] }],
      }),
    );

  it('a period under 10 s is refused, naming the field and the server rule (it was accepted and did nothing)', () => {
    expect(message({ seconds: 5 })).toMatch(
      /^option scenarios\[0\]\.events\[0\]\.seconds: the server refuses a step-down shorter than its secondaryCatchUpPeriodSecs \(10 s by default: BadValue "stepdown period must be longer than secondaryCatchUpPeriodSecs"\).*give 10 or more, got 5/,
    );
    expect(message({ seconds: '9s' })).toMatch(/events\[0\]\.seconds: .*got "9s"/);
  });

  it('10 s and the default (60 s) are taken', () => {
    for (const event of [{ seconds: 10 }, {}]) {
      const [scenario] = benchmarkOptions({
        uri: 'mongodb://127.0.0.1:1',
        scenarios: [{ ...writer, events: [{ at: '1s', action: 'stepDown', ...event }] }],
      }).scenarios!;
      expect(scenario.events[0]).toMatchObject({
        action: 'stepDown',
        seconds: 'seconds' in event ? 10 : 60,
      });
    }
  });
});

describe('stepDown at run time', () => {
  let mongos: RecordingServer;
  let primary: RecordingServer;
  const clients = testClients();
  beforeAll(async () => {
    mongos = await startRecordingServer({
      helloFields: { msg: 'isdbgrid' },
      handlers: {
        listShards: () => ({
          shards: [
            { _id: 'shard0', host: 'shard0/127.0.0.1:27018,127.0.0.1:27019' },
            { _id: 'shard1', host: 'shard1/127.0.0.1:27028' },
          ],
        }),
        replSetStepDown: () => ({
          ok: 0,
          code: 59,
          codeName: 'CommandNotFound',
          errmsg: "no such command: 'replSetStepDown'",
        }),
      },
    });
    primary = await startRecordingServer({ handlers: { replSetStepDown: () => ({ ok: 1 }) } });
  });
  afterAll(async () => {
    await clients.closeAll();
    await Promise.all([mongos.stop(), primary.stop()]);
  });

  it('through a mongos it is not sent, and the error names the shard replica sets to use', async () => {
    const client = await clients.connect(mongos.uri);
    const done = await runBackgroundEvent(
      client,
      { action: 'stepDown', at: 0, seconds: 60 },
      { t0: performance.now(), atSecond: 3600 },
    );
    expect(done.ok).toBe(false);
    expect(done.error).toMatch(/^not sent: this is a mongos, which has no replSetStepDown/);
    expect(done.error).toContain('mongodb://127.0.0.1:27018,127.0.0.1:27019/?replicaSet=shard0');
    expect(done.error).toContain('mongodb://127.0.0.1:27028/?replicaSet=shard1');
    expect(done.startedAt).toBeUndefined();
    expect(mongos.userCommands().map((c) => c.name)).not.toContain('replSetStepDown');
  });

  it("on a replica set's primary the command's ok: 1 marks it done", async () => {
    const client = await clients.connect(primary.uri);
    const done = await runBackgroundEvent(
      client,
      { action: 'stepDown', at: 0, seconds: 30 },
      { t0: performance.now(), atSecond: 0 },
    );
    expect(done).toMatchObject({ ok: true, command: { replSetStepDown: 30 } });
    expect(primary.userCommands().find((c) => c.name === 'replSetStepDown')?.body).toEqual({
      replSetStepDown: 30,
    });
  });
});
