/**
 * `mongo-bench run --uri` end to end against the CRUD test server (mongo-java-server here, a real
 * mongod where one exists): every artifact is written and valid. The server's numbers are not
 * MongoDB numbers; only the shape and consistency of what was written is checked.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { main } from '../../lib/cli/main';
import { loadResult } from '../../lib/report';
import { crudKind, crudUri, describeNeeding, uniqueDbName } from '../support/servers';
import { captureContext } from '../support/cli';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describeNeeding('crud', 'mongo-bench run --uri against the CRUD test server', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-run-uri-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes results.json, the charts, summary.md, results.csv, index.html, setup.js and command-log.txt; --json prints only the result', async () => {
    const db = uniqueDbName('run_uri');
    const other = `${db}_other`;
    const client = new MongoClient(crudUri());
    await client.connect();
    try {
      // Something that is not the benchmark's: --drop must leave it alone, in another database or its own.
      await client
        .db(other)
        .collection('keep')
        .insertOne({ _id: 1 } as never);
      await client
        .db(db)
        .collection('stale')
        .insertOne({ _id: 1 } as never);
      await client
        .db(db)
        .collection('docs')
        .insertOne({ _id: 'old' } as never);
      const out = join(dir, 'run');
      const ctx = captureContext();
      const code = await main(
        [
          'node',
          'mongo-bench',
          'run',
          '--uri',
          crudUri(),
          '--db',
          db,
          '--drop',
          '--clients',
          '1,2',
          '--seconds',
          '1',
          '--warmup',
          '0',
          '--docs',
          '200',
          '--doc-size',
          '128',
          '--out',
          out,
          '--json',
        ],
        ctx,
      );
      expect(ctx.stderr).not.toContain('unexpected error');
      expect(code).toBe(0);

      // --json: stdout is the result document and nothing else; it is what results.json holds.
      const printed = JSON.parse(ctx.stdout) as { schema: string };
      const result = await loadResult(join(out, 'results.json'));
      expect(printed).toEqual(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')));
      expect(result).toMatchObject({
        schema: 'mongo-bench/result@1',
        complete: true,
        config: { clients: [1, 2], ns: `${db}.docs`, docs: 200 },
      });
      expect(result.steps.map((s) => s.clients)).toEqual([1, 2]);
      expect(result.steps.every((s) => s.ops.reads > 0 && s.ops.writes > 0)).toBe(true);
      if (crudKind() === 'mongo-java-server') expect(result.target.testDouble).toBe(true);

      for (const png of [
        'avg-read-ops.png',
        'peak-read-ops.png',
        'avg-write-ops.png',
        'peak-write-ops.png',
        'latency-reads.png',
        'latency-writes.png',
        'timeline.png',
      ]) {
        const bytes = readFileSync(join(out, png));
        expect(bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
        expect(bytes.length).toBeGreaterThan(10_000); // drawn, with text, not an empty canvas
      }
      const csv = readFileSync(join(out, 'results.csv'), 'utf8').trim().split('\n');
      expect(csv[0]).toMatch(/^label,complete,test_double,/);
      expect(csv).toHaveLength(3); // header + one row per client count
      expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('avg-read-ops.png');
      const html = readFileSync(join(out, 'index.html'), 'utf8');
      expect(html).toContain('<img');
      // Nothing fetched from a network (the inlined libraries' licence banners name their home pages).
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect(readFileSync(join(out, 'setup.js'), 'utf8')).toContain(
        'Nothing: an existing deployment (--uri) is used as it is',
      );

      const log = readFileSync(join(out, 'command-log.txt'), 'utf8');
      expect(log).toMatch(
        new RegExp(`^\\[--drop\\] apply target \\S+ ${db} \\{"drop":"docs"\\} -> ok`, 'm'),
      );
      expect(log).not.toContain('dropDatabase');
      expect(log.indexOf('{"drop":"docs"}')).toBeLessThan(log.indexOf('load: 200 documents'));
      expect(log).toContain('benchmark complete');

      // --drop dropped the collection the load replaces only.
      expect(await client.db(db).collection('stale').countDocuments()).toBe(1);
      expect(await client.db(other).collection('keep').countDocuments()).toBe(1);
      expect(
        await client
          .db(db)
          .collection('docs')
          .countDocuments({ _id: 'old' } as never),
      ).toBe(0);
      expect(await client.db(db).collection('docs').countDocuments()).toBeGreaterThanOrEqual(200);
    } finally {
      await client
        .db(db)
        .dropDatabase()
        .catch(() => undefined);
      await client
        .db(other)
        .dropDatabase()
        .catch(() => undefined);
      await client.close();
    }
  });

  it('without --drop or --setup: setup.js says nothing was applied, and the log starts at the connection', async () => {
    const out = join(dir, 'plain');
    const db = uniqueDbName('run_plain');
    const ctx = captureContext();
    const code = await main(
      [
        'node',
        'mongo-bench',
        'run',
        '--uri',
        crudUri(),
        '--db',
        db,
        '--clients',
        '1',
        '--seconds',
        '1',
        '--warmup',
        '0',
        '--docs',
        '50',
        '--out',
        out,
        '--quiet',
      ],
      ctx,
    );
    const client = new MongoClient(crudUri());
    await client
      .db(db)
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    expect(code).toBe(0);
    // --quiet prints the step's warnings (one step of 1 s has few samples) and where the files are.
    const lines = ctx.stdout.split('\n');
    expect(lines.filter((l) => !/^WARNING clients 1 \[[a-z-]+\]: /.test(l)).join('\n')).toBe(
      `results, report, setup.js and command-log.txt in ${out}/ (open ${out}/index.html)\n`,
    );
    expect(readFileSync(join(out, 'setup.js'), 'utf8')).toContain(
      '// Nothing: an existing deployment (--uri) is used as it is',
    );
    expect(readFileSync(join(out, 'command-log.txt'), 'utf8')).not.toContain('dropDatabase');
  });

  it('--setup on a server that is not a mongos fails naming the reason (exit 1), after writing the log', async () => {
    const out = join(dir, 'setup');
    const ctx = captureContext();
    const code = await main(
      [
        'node',
        'mongo-bench',
        'run',
        '--uri',
        crudUri(),
        '--setup',
        '--db',
        uniqueDbName('run_setup'),
        '--clients',
        '1',
        '--seconds',
        '1',
        '--out',
        out,
        '--quiet',
      ],
      ctx,
    );
    expect(code).toBe(1);
    expect(ctx.stderr).toContain('--setup needs a mongos of a sharded cluster');
    expect(ctx.stdout).toBe('');
    expect(readFileSync(join(out, 'command-log.txt'), 'utf8')).toMatch(
      /\[--setup\] check mongos-0 \S+ admin \{"listShards":1\} -> failed: /,
    );
    expect(existsSync(join(out, 'results.json'))).toBe(false);
  });
});
