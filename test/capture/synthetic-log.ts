/**
 * A skewed log for the tests, built from the real lines of test/fixtures/capture/logs (their format,
 * untouched but for the constants, the time and the connection): the fixtures hold one line per
 * shape, too few to test shares, key skew and ranges. Each entry is a real line with its filter's
 * constant and its timestamp replaced.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', 'fixtures', 'capture', 'logs');

function realLine(file: string, index: number): Record<string, unknown> {
  return JSON.parse(readFileSync(join(FIXTURES, file), 'utf8').split('\n')[index]) as Record<
    string,
    unknown
  >;
}

export interface SyntheticLog {
  text: string;
  /** Entries per shape, in the order find, update, remove. */
  counts: { find: number; update: number; remove: number };
  /** How often each pizza size was looked up by the find shape. */
  sizes: Map<string, number>;
  seconds: number;
}

/**
 * `total` entries over `seconds`: 60% finds by size (sizes skewed 8:4:2:1), 30% updates by an integer
 * key drawn from 5,000 values (more than capture keeps as a pick list: it becomes a range), 10% removes.
 */
export function syntheticLog(total: number, seconds: number): SyntheticLog {
  const find = realLine('2025-before-8.0.log', 2);
  const update = realLine('2025-before-8.0.log', 7);
  const remove = realLine('2025-before-8.0.log', 5);
  const sizes = ['small', 'medium', 'large', 'family'];
  const counts = { find: 0, update: 0, remove: 0 };
  const seen = new Map<string, number>();
  const start = Date.parse('2025-09-24T13:00:00.000Z');
  const lines: string[] = [];
  let x = 12345;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 4294967296;
  for (let i = 0; i < total; i++) {
    const at = new Date(start + (i * seconds * 1000) / total).toISOString();
    const r = i % 10;
    let entry: Record<string, unknown>;
    if (r < 6) {
      // sizes skewed 8:4:2:1
      const pick = next() * 15;
      const size = sizes[pick < 8 ? 0 : pick < 12 ? 1 : pick < 14 ? 2 : 3];
      seen.set(size, (seen.get(size) ?? 0) + 1);
      entry = structuredClone(find);
      ((entry.attr as { command: { filter: unknown } }).command.filter as Record<string, unknown>) =
        { size };
      counts.find++;
    } else if (r < 9) {
      entry = structuredClone(update);
      (entry.attr as { command: unknown }).command = {
        q: { orderId: Math.floor(next() * 5000) },
        u: { $set: { price: 20 } },
        multi: false,
        upsert: false,
      };
      counts.update++;
    } else {
      entry = structuredClone(remove);
      counts.remove++;
    }
    entry.t = { $date: at };
    entry.ctx = `conn${100 + (i % 7)}`;
    lines.push(JSON.stringify(entry));
  }
  return { text: `${lines.join('\n')}\n`, counts, sizes: seen, seconds };
}
