/**
 * Input an adversarial user tried: files that overflow the stack or expand without end, a byte-order
 * mark, a result holding one step twice, a flag given twice, an absurd trial count. Each is bad input:
 * exit 2 naming the file or the option, before anything connects (the URI's port 1 is never reached).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { resultDocument, resultStep } from '../support/results';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mb-hostile-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const NOWHERE = 'mongodb://127.0.0.1:1/';

describe('files that would exhaust the stack or memory', () => {
  it('refuses a workload file nested 5,000 levels deep, naming the file and the depth', async () => {
    const deep = `{"a":`.repeat(5000) + '1' + '}'.repeat(5000);
    const file = write('deep.json', `{"ops":[{"op":"insert","ns":"a.b","doc":${deep}}]}`);
    const out = await runCli(['run', '--uri', NOWHERE, '--workload-file', file, '--dry-run']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`workload file ${file}: nested more than 128 levels deep`);
    expect(out.stderr).not.toMatch(/unexpected error|RangeError/);
  });

  it('refuses a YAML alias bomb in a config file, naming the file', async () => {
    let yaml = 'a: &a [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 0, prev = 'a'; i < 12; prev = `b${i}`, i++)
      yaml += `b${i}: &b${i} [${Array(9).fill(`*${prev}`).join(', ')}]\n`;
    const file = write('bomb.yaml', yaml);
    const out = await runCli(['run', '--uri', NOWHERE, '--config', file, '--dry-run']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`config file ${file}: too many YAML alias expansions`);
    expect(out.stderr).not.toMatch(/unexpected error|ReferenceError/);
  });
});

describe('a byte-order mark', () => {
  it('is accepted at the start of a JSON workload file and of a result file', async () => {
    const workload = write('bom-workload.json', '\ufeff[{"op":"findOne","ns":"a.b","query":{}}]');
    const run = await runCli(['run', '--uri', NOWHERE, '--workload-file', workload, '--dry-run']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    fs.mkdirSync(path.join(dir, 'store'));
    write(
      'store/bom-results.json',
      `\ufeff${JSON.stringify(resultDocument('bom', [resultStep({ clients: 1 })]))}`,
    );
    const history = await runCli([
      'history',
      '--store',
      path.join(dir, 'store'),
      '--out',
      path.join(dir, 'history'),
      '--json',
    ]);
    expect(history.stderr).not.toMatch(/not a JSON|error/);
    // Read as a result: its label is in the series (one point is too few to judge: exit 3).
    expect(history.stdout).toContain('"bom"');
    expect(history.code).not.toBe(2);
  });
});

describe('a result holding one step twice', () => {
  it('is refused by report and compare, naming the file and the step', async () => {
    const twice = write(
      'twice.json',
      JSON.stringify(
        resultDocument('twice', [resultStep({ clients: 4 }), resultStep({ clients: 4 })]),
      ),
    );
    const once = write(
      'once.json',
      JSON.stringify(resultDocument('once', [resultStep({ clients: 4 })])),
    );
    for (const args of [
      ['report', twice, '--out', path.join(dir, 'report')],
      ['compare', once, twice],
    ]) {
      const out = await runCli(args);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(`${twice}: steps[1] (4 clients) is a copy of steps[0]`);
    }
  });

  it('reads steps of one client count measured separately (--clients 1,1): they differ', async () => {
    const repeated = write(
      'repeated.json',
      JSON.stringify(
        resultDocument('repeated', [
          resultStep({ clients: 1, opsPerSec: { total: 100, reads: 100, writes: 0 } }),
          resultStep({ clients: 1, opsPerSec: { total: 104, reads: 104, writes: 0 } }),
        ]),
      ),
    );
    const out = await runCli(['report', repeated, '--out', path.join(dir, 'report-repeated')]);
    expect(out.stderr).not.toContain('there twice');
    expect(out.code).toBe(0);
  });
});

describe('flags', () => {
  it('refuses a flag given twice, naming it and both values', async () => {
    const out = await runCli(['run', '--uri', NOWHERE, '--seconds', '2', '--seconds', '1']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('option --seconds: given twice ("2", then "1")');
  });

  it('keeps --slo repeatable', async () => {
    const out = await runCli([
      'run',
      '--uri',
      NOWHERE,
      '--slo',
      'total>1/s',
      '--slo',
      'errors<1%',
      '--dry-run',
    ]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('total>1/s, errors<1%');
  });

  it('bounds --trials and says the bound in --help', async () => {
    const out = await runCli(['run', '--uri', NOWHERE, '--trials', '99999999']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('option --trials: trials per step must be at most 1000');
    const help = await runCli(['run', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('trials per client count (1 to 1000)');
  });
});

describe('what is wrong is named first', () => {
  it('names --shards 0 and a --base-port past 65535 before the missing binaries', async () => {
    const env = {
      MONGOD_BIN: process.env.MONGOD_BIN,
      MONGOMS_SYSTEM_BINARY: process.env.MONGOMS_SYSTEM_BINARY,
    };
    delete process.env.MONGOD_BIN;
    delete process.env.MONGOMS_SYSTEM_BINARY;
    try {
      const zero = await runCli(['run', '--topology', 'sharded', '--shards', '0']);
      expect(zero.code).toBe(2);
      expect(zero.stderr).toContain('option --shards: must be at least 1');
      const high = await runCli([
        'run',
        '--topology',
        'sharded',
        '--base-port',
        '65534',
        '--shards',
        '4',
      ]);
      expect(high.code).toBe(2);
      expect(high.stderr).toContain(
        'option --base-port: 6 processes need ports 65534-65539, past 65535',
      );
    } finally {
      for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v;
    }
  });

  it('names the SRV host a mongodb+srv:// URI could not resolve', async () => {
    const out = await runCli([
      'run',
      '--uri',
      'mongodb+srv://nonexistent.invalid/',
      '--server-selection-timeout',
      '1000',
      '--out',
      path.join(dir, 'srv'),
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/cannot (connect to|reach) nonexistent\.invalid \(/);
  });

  it("lists compare's and history's exit code 3 in the top-level help", async () => {
    const help = await runCli(['--help']);
    expect(help.stdout).toMatch(/^ {2}3 {4}compare, history: nothing could be tested/m);
  });
});
