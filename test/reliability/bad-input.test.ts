/**
 * The bad-input table (issue 9): each row is a command line a user in a hurry might type, the exit
 * code it must get and the message it must print: early (nothing started, nothing written), naming
 * the option or config path, suggesting the closest valid one where there is one. Every command
 * is run in-process through main(), as bin/mongo-bench.js runs it.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { main } from '../../lib/cli/main';
import { CliContext } from '../../lib/cli/context';
import { FAKE_BIN, freePorts, tempDir } from '../support/processes';

interface Row {
  name: string;
  args: (dir: string, port: number) => string[];
  code: number;
  message: RegExp;
  /** Upper bound on the time it may take (ms): bad input is refused at once. */
  withinMs?: number;
}

const RUN_SMALL = ['--clients', '1', '--seconds', '1', '--warmup', '0', '--docs', '10'];

const ROWS: Row[] = [
  // Unknown options and values, with the closest valid one.
  {
    name: 'run: unknown option',
    args: () => ['run', '--max-client', '4'],
    code: 2,
    message: /unknown option '--max-client'[\s\S]*Did you mean --max-clients\?/,
  },
  {
    name: 'scripts: unknown option',
    args: () => ['scripts', '--topolgy', 'sharded'],
    code: 2,
    message: /unknown option '--topolgy'[\s\S]*Did you mean --topology\?/,
  },
  {
    name: 'matrix: unknown option',
    args: () => ['matrix', '--preset', 'most', '--scal', '0.1'],
    code: 2,
    message: /unknown option '--scal'[\s\S]*Did you mean --scale\?/,
  },
  {
    name: 'diskperf: unknown option',
    args: () => ['diskperf', '--max-thread', '4'],
    code: 2,
    message: /unknown option '--max-thread'[\s\S]*Did you mean --max-threads\?/,
  },
  {
    name: 'report: unknown option',
    args: (d) => ['report', path.join(d, 'x.json'), '--outt', d],
    code: 2,
    message: /unknown option '--outt'[\s\S]*Did you mean --out\?/,
  },
  {
    name: 'unknown command',
    args: () => ['rum'],
    code: 2,
    message: /unknown command 'rum'[\s\S]*run/,
  },
  {
    name: 'run: unknown preset',
    args: () => ['run', '--preset', 'quik'],
    code: 2,
    message: /option --preset: unknown preset "quik" \(did you mean "quick"\?\)/,
  },
  {
    name: 'run: unknown workload',
    args: () => ['run', '--workload', '6to2'],
    code: 2,
    message: /option --workload: unknown workload "6to2" \(did you mean "6to1"\?\)/,
  },
  {
    name: 'run: unknown topology',
    args: () => ['run', '--topology', 'shardd'],
    code: 2,
    message:
      /option --topology: must be one of standalone, replset, sharded \(got "shardd"; did you mean "sharded"\?\)/,
  },
  {
    name: 'matrix: unknown preset',
    args: () => ['matrix', '--preset', 'mots'],
    code: 2,
    message: /option --preset: unknown preset "mots" \(did you mean "most"\?\)/,
  },
  {
    name: 'run: --on-error value',
    args: () => ['run', '--on-error', 'maybe'],
    code: 2,
    message: /option --on-error: must be stop or continue/,
  },
  {
    name: 'run: write concern field',
    args: () => ['run', '--write-concern', '{"w":1,"jj":true}'],
    code: 2,
    message: /option --write-concern: unknown field "jj" \(did you mean "j"\?\)/,
  },
  // Config files: unknown key with suggestion, malformed YAML and JSON with the line.
  {
    name: 'run: config unknown key',
    args: (d) => ['run', '--config', path.join(d, 'key.yaml')],
    code: 2,
    message: /config file .*key\.yaml:2: unknown key "max-client" \(did you mean "max-clients"\?\)/,
  },
  {
    name: 'run: config bad value',
    args: (d) => ['run', '--config', path.join(d, 'value.yaml')],
    code: 2,
    message: /config file .*value\.yaml:3: clients\[1\]: each client count must be at least 1/,
  },
  {
    name: 'run: malformed YAML',
    args: (d) => ['run', '--config', path.join(d, 'bad.yaml')],
    code: 2,
    message: /config file .*bad\.yaml:3:\d+: not valid YAML/,
  },
  {
    name: 'run: malformed JSON',
    args: (d) => ['run', '--config', path.join(d, 'bad.json')],
    code: 2,
    message: /config file .*bad\.json:3:\d+: not valid JSON/,
  },
  {
    name: 'run: config is a list',
    args: (d) => ['run', '--config', path.join(d, 'list.yaml')],
    code: 2,
    message: /config file .*list\.yaml: expected an object of options/,
  },
  {
    name: 'run: config missing',
    args: (d) => ['run', '--config', path.join(d, 'none.yaml')],
    code: 2,
    message: /option --config: cannot read .*none\.yaml \(no such file\)/,
  },
  // --drop drops the collections the load replaces: refused when one is --docs-like's source.
  {
    name: "run: --drop of --docs-like's source",
    args: (_d, port) => [
      'run',
      '--uri',
      `mongodb://127.0.0.1:${port}`,
      '--ns',
      'app.users',
      '--docs-like',
      'app.users',
      '--drop',
      ...RUN_SMALL,
    ],
    code: 2,
    message:
      /option --drop: it drops app\.users, which is --docs-like's source app\.users on the target/,
    withinMs: 1000,
  },
  {
    name: "run: --drop of --docs-like's source named by a URI of the target's host",
    args: (_d, port) => [
      'run',
      '--uri',
      `mongodb://127.0.0.1:${port}`,
      '--ns',
      'app.users',
      '--docs-like',
      `mongodb://127.0.0.1:${port}/app.users`,
      '--drop',
      ...RUN_SMALL,
    ],
    code: 2,
    message:
      /option --drop: it drops app\.users, which is --docs-like's source app\.users at mongodb:\/\/127\.0\.0\.1/,
    withinMs: 1000,
  },
  // Op specs and templates.
  {
    name: 'run: op with an unknown field',
    args: (d) => ['run', '--workload-file', path.join(d, 'unknown-field.json')],
    code: 2,
    message:
      /workload file .*unknown-field\.json: ops\[0\]\.qurey: unknown field \(did you mean "query"\?\)/,
  },
  {
    name: 'run: malformed template',
    args: (d) => ['run', '--workload-file', path.join(d, 'template.json')],
    code: 2,
    message:
      /workload file .*template\.json: ops\[0\]\.query\._id\.#RAND_INT: expected \[min, max\]/,
  },
  {
    name: 'run: workload file not JSON',
    args: (d) => ['run', '--workload-file', path.join(d, 'bad.json')],
    code: 2,
    message: /bad\.json/,
  },
  // URIs: malformed (2, at once), unreachable (1, within the server-selection timeout, naming the host).
  {
    name: 'run: malformed URI',
    args: () => ['run', '--uri', 'http://127.0.0.1:27017'],
    code: 2,
    message: /option --uri: Invalid scheme/,
  },
  {
    name: 'run: URI with a bad port',
    args: () => ['run', '--uri', 'mongodb://127.0.0.1:99999'],
    code: 2,
    message: /option --uri: .*(port|99999)/i,
  },
  // A single host where nothing listens fails at once (ECONNREFUSED), not after the server-selection timeout.
  {
    name: 'run: unreachable URI',
    args: (d, port) => [
      'run',
      '--uri',
      `mongodb://127.0.0.1:${port}`,
      '--server-selection-timeout',
      '10000',
      '--out',
      path.join(d, 'unreachable'),
      ...RUN_SMALL,
    ],
    code: 1,
    message: new RegExp(
      `cannot reach 127\\.0\\.0\\.1:PORT .*ECONNREFUSED 127\\.0\\.0\\.1:PORT: nothing listens there`,
    ),
    withinMs: 3000,
  },
  // Launching: a port in use, a folder that cannot be written.
  {
    name: 'run: port in use',
    args: (d, port) => [
      'run',
      '--bin-dir',
      FAKE_BIN,
      '--base-port',
      String(port),
      '--out',
      path.join(d, 'port'),
      ...RUN_SMALL,
    ],
    code: 2,
    message: new RegExp(`option --base-port: port PORT on 127\\.0\\.0\\.1 is already in use`),
  },
  {
    name: 'run: --out not writable',
    args: (d, port) => [
      'run',
      '--uri',
      `mongodb://127.0.0.1:${port}`,
      '--out',
      path.join(d, 'a-file', 'out'),
      ...RUN_SMALL,
    ],
    code: 2,
    message: /option --out: cannot use .*a-file\/out: .*a-file is a file/,
    withinMs: 1000,
  },
  {
    name: 'run: --data-dir not empty',
    args: (d, port) => [
      'run',
      '--bin-dir',
      FAKE_BIN,
      '--base-port',
      String(port),
      '--data-dir',
      path.join(d, 'used-data'),
      '--out',
      path.join(d, 'used'),
      ...RUN_SMALL,
    ],
    code: 2,
    message: /data directory .*used-data\/mongod .*is not empty/,
  },
  {
    name: 'diskperf: --dir not writable',
    args: (d) => [
      'diskperf',
      '--dir',
      path.join(d, 'a-file', 'sub'),
      '--seconds',
      '1',
      '--max-threads',
      '1',
    ],
    code: 2,
    message: /option --dir: cannot use .*a-file\/sub/,
  },
  {
    name: 'report: missing result file',
    args: (d) => ['report', path.join(d, 'none.json')],
    code: 2,
    message: /none\.json: cannot read result file \(no such file\)/,
  },
  {
    name: 'report: not a result document',
    args: (d) => ['report', path.join(d, 'template.json')],
    code: 2,
    message: /template\.json: not a mongo-bench result document/,
  },
  // Out-of-range numbers.
  {
    name: 'run: --clients 0',
    args: () => ['run', '--clients', '1,0'],
    code: 2,
    message: /option --clients: each client count must be at least 1/,
  },
  {
    name: 'run: --seconds 0',
    args: () => ['run', '--seconds', '0'],
    code: 2,
    message: /option --seconds: seconds per step must be at least 1/,
  },
  {
    name: 'run: --seconds abc',
    args: () => ['run', '--seconds', 'abc'],
    code: 2,
    message: /option --seconds: expected an integer, got "abc"/,
  },
  {
    name: 'run: --max-clients 100000',
    args: () => ['run', '--max-clients', '100000'],
    code: 2,
    message: /option --max-clients: the maximum client count must be at most 10000/,
  },
  {
    name: 'run: --base-port 70000',
    args: () => ['run', '--bin-dir', FAKE_BIN, '--base-port', '70000'],
    code: 2,
    message: /option --base-port: must be from 1 to 65535/,
  },
  {
    name: 'run: --shards 0',
    args: () => ['run', '--topology', 'sharded', '--bin-dir', FAKE_BIN, '--shards', '0'],
    code: 2,
    message: /option --shards: must be at least 1/,
  },
  {
    name: 'run: --replicas 0',
    args: () => ['run', '--topology', 'replset', '--replicas', '0'],
    code: 2,
    message: /option --replicas: must be an integer from 1 to 50, got 0/,
  },
  {
    name: 'run: --rate -5',
    args: () => ['run', '--rate', '-5'],
    code: 2,
    message: /option --rate: the target rate must be > 0 ops\/s/,
  },
  {
    name: 'run: --doc-size 0',
    args: () => ['run', '--doc-size', '0'],
    code: 2,
    message: /option --doc-size: documents are at least 16 bytes/,
  },
  {
    name: 'run: --op-timeout 0',
    args: () => ['run', '--op-timeout', '0'],
    code: 2,
    message: /option --op-timeout: the operation timeout \(ms\) must be at least 1/,
  },
  {
    name: 'run: --warmup -1',
    args: () => ['run', '--warmup', '-1'],
    code: 2,
    message: /option --warmup: warm-up seconds must be >= 0/,
  },
  {
    name: 'scripts: --base-port 70000',
    args: () => ['scripts', '--base-port', '70000'],
    code: 2,
    message: /option --base-port: must be from 1 to 65535/,
  },
  {
    name: 'scripts: --shards 0',
    args: () => ['scripts', '--topology', 'sharded', '--shards', '0'],
    code: 2,
    message: /option --shards: must be at least 1/,
  },
  {
    name: 'matrix: --scale -1',
    args: () => ['matrix', '--preset', 'most', '--scale', '-1', '--dry-run'],
    code: 2,
    message: /option --scale: must be > 0/,
  },
  {
    name: 'matrix: --replicas 0',
    args: () => [
      'matrix',
      '--preset',
      'most',
      '--topology',
      'replset',
      '--replicas',
      '0',
      '--bin-dir',
      FAKE_BIN,
    ],
    code: 2,
    message: /option --replicas: must be at least 1/,
  },
  {
    name: 'diskperf: --max-threads 0',
    args: () => ['diskperf', '--max-threads', '0'],
    code: 2,
    message: /option --max-threads: must be at least 1/,
  },
  {
    name: 'diskperf: --seconds 0',
    args: () => ['diskperf', '--seconds', '0'],
    code: 2,
    message: /option --seconds: must be at least 1/,
  },
  // Credentials: refused by name, the password never echoed.
  {
    name: 'run: --password without a user',
    args: () => ['run', '--password', 'hunter2-secret'],
    code: 2,
    message: /option --password: needs --username/,
  },
  {
    name: 'run: --username without a password',
    args: () => ['run', '--username', 'bob'],
    code: 2,
    message: /option --username: no password: set env MONGO_BENCH_PASSWORD/,
  },
];

function capture(): CliContext & { output: string } {
  const ctx = {
    output: '',
    exitCode: 0,
    out: (t: string) => void (ctx.output += t),
    err: (t: string) => void (ctx.output += t),
  };
  return ctx;
}

/** What was tried, for the count the issue asks for. */
const tried: string[] = [];

describe(`bad input: ${ROWS.length} cases, each a clear early error with its exit code`, () => {
  let dir: string;
  let listener: net.Server;
  let busyPort: number;
  let closedPort: number;
  const savedPassword = process.env.MONGO_BENCH_PASSWORD;
  const savedUser = process.env.MONGO_BENCH_USER;

  beforeAll(async () => {
    delete process.env.MONGO_BENCH_PASSWORD;
    delete process.env.MONGO_BENCH_USER;
    dir = tempDir('bad-input');
    const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
    write('key.yaml', 'clients: [1, 2]\nmax-client: 4\n');
    write('value.yaml', 'seconds: 2\nclients:\n  [1, 0]\n');
    write('bad.yaml', 'clients: [1, 2]\nseconds: 3\nwarmup: 1: 2\n');
    write('bad.json', '{\n  "clients": [1],\n  "seconds": 3,,\n}\n');
    write('list.yaml', '- clients\n- seconds\n');
    write('unknown-field.json', JSON.stringify([{ op: 'findOne', ns: 'a.b', qurey: { _id: 1 } }]));
    write(
      'template.json',
      JSON.stringify([{ op: 'findOne', ns: 'a.b', query: { _id: { '#RAND_INT': [10] } } }]),
    );
    write('a-file', 'not a folder\n');
    fs.mkdirSync(path.join(dir, 'used-data', 'mongod'), { recursive: true });
    write(path.join('used-data', 'mongod', 'left-over'), 'from an earlier run\n');
    // A port someone else holds (the launch must refuse it), and one nobody listens on.
    [busyPort, closedPort] = await freePorts(2);
    listener = net.createServer();
    await new Promise<void>((resolve) => listener.listen(busyPort, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
    if (savedPassword !== undefined) process.env.MONGO_BENCH_PASSWORD = savedPassword;
    if (savedUser !== undefined) process.env.MONGO_BENCH_USER = savedUser;
    process.stdout.write(`bad input: ${tried.length} cases tried\n`);
  });

  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    // closedPort came from freePorts(): nobody listens there, so the data-dir row reaches its own check.
    const port = /port in use/.test(row.name) ? busyPort : closedPort;
    const ctx = capture();
    const started = Date.now();
    const code = await main(['node', 'mongo-bench', ...row.args(dir, port)], ctx);
    const took = Date.now() - started;
    tried.push(row.name);
    const message = new RegExp(
      row.message.source.replace(/PORT/g, String(port)),
      row.message.flags,
    );
    expect({ code, output: ctx.output }).toEqual({
      code: row.code,
      output: expect.stringMatching(message),
    });
    expect(ctx.output).not.toContain('unexpected error');
    expect(ctx.output).not.toContain('hunter2-secret');
    if (row.withinMs !== undefined) expect(took).toBeLessThan(row.withinMs);
    // Bad input starts and writes nothing: no output folder for the run rows.
    for (const out of ['unreachable', 'port', 'used']) {
      if (row.args(dir, port).includes(path.join(dir, out)))
        expect(fs.existsSync(path.join(dir, out))).toBe(false);
    }
  });
});
