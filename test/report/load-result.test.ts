import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../lib/config/errors';
import { loadResult } from '../../lib/result';
import { FIXTURES } from './helpers';

describe('loadResult', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mb-load-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function write(name: string, text: string): string {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  }

  async function loadError(file: string): Promise<UsageError> {
    const err = await loadResult(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }

  it.each([
    'result-complete.json',
    'result-incomplete.json',
    'compare-w0.json',
    'compare-w1.json',
    'compare-j-true.json',
  ])('reads the fixture %s', async (name) => {
    const result = await loadResult(join(FIXTURES, name));
    expect(result.schema).toBe('mongo-bench/result@1');
    expect(result.steps.length).toBeGreaterThan(0);
  });

  it('says a file that is not JSON is not JSON, naming the file', async () => {
    const file = write('notes.txt', 'clients: 1, 2, 4\n');
    const err = await loadError(file);
    expect(err.message).toContain(file);
    expect(err.message).toContain('not a JSON file');
    expect(err.message).not.toContain('\n');
  });

  it('says JSON that is not a result document is not one, naming the file and the expected schema', async () => {
    const file = write('package.json', JSON.stringify({ name: 'x', version: '1.0.0' }));
    const err = await loadError(file);
    expect(err.message).toContain(file);
    expect(err.message).toContain('not a mongo-bench result document');
    expect(err.message).toContain('"mongo-bench/result@1"');
    const array = await loadError(write('array.json', '[1,2]'));
    expect(array.message).toContain('not a mongo-bench result document');
  });

  it('rejects an unknown schema version and names the versions it supports', async () => {
    const doc = JSON.parse(readFileSync(join(FIXTURES, 'result-complete.json'), 'utf8'));
    const file = write('future.json', JSON.stringify({ ...doc, schema: 'mongo-bench/result@2' }));
    const err = await loadError(file);
    expect(err.message).toContain(file);
    expect(err.message).toContain('unsupported result schema "mongo-bench/result@2"');
    expect(err.message).toContain('reads "mongo-bench/result@1"');
  });

  it('names the file and every bad path of a malformed result document', async () => {
    const doc = JSON.parse(readFileSync(join(FIXTURES, 'result-complete.json'), 'utf8'));
    doc.steps[2].opsPerSec.reads = 'fast';
    delete doc.label;
    const file = write('broken.json', JSON.stringify(doc));
    const err = await loadError(file);
    expect(err.message).toContain(file);
    expect(err.message).toContain('steps[2].opsPerSec.reads');
    expect(err.message).toMatch(/^\s+label: /m);
  });

  it('names a file that does not exist', async () => {
    const file = join(dir, 'nope', 'results.json');
    const err = await loadError(file);
    expect(err.message).toBe(`${file}: cannot read result file (no such file)`);
  });
});
