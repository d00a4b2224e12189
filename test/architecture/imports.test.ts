/**
 * The shape of lib/ (docs/architecture.md): no import circle between files or folders, and no folder
 * importing one on a higher floor. A new circle or upward import fails here, naming the import.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FLOORS,
  floorViolations,
  folderCircles,
  ImportGraph,
  importCircles,
  readImportGraph,
  ROOMS,
  roomViolations,
} from './import-graph';

const root = join(__dirname, '..', '..');
const libFiles = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', 'lib'],
  { cwd: root, encoding: 'utf8' },
)
  .split('\n')
  .filter((file) => file.endsWith('.ts'));

describe('the import graph of lib/', () => {
  const graph = readImportGraph(root, libFiles);

  it('reads the imports of every lib file and resolves each relative one', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('lib/run/execute.ts')).toEqual(
      expect.arrayContaining(['lib/run/benchmark.ts', 'lib/result/index.ts']),
    );
    const unresolved = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => t.endsWith('(unresolved)')).map((t) => `${file} -> ${t}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('has no circle between files', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('has no circle between folders', () => {
    expect(folderCircles(graph)).toEqual([]);
  });

  it('has no import from a lower floor to a higher one, and every folder on a floor', () => {
    expect(floorViolations(graph)).toEqual([]);
  });

  it('keeps the workload spec language apart: lib/workload/language imports only itself, config and common', () => {
    // The spec (op spec, templates, documents, rates) is read and checked before anything connects; the
    // engine (lib/workload/engine) binds it to commands and runs it, and may import it, never the reverse.
    const allowed = ['lib/workload/language/', 'lib/config/', 'lib/common/'];
    const spec = [...graph].filter(([file]) => file.startsWith('lib/workload/language/'));
    expect(spec.length).toBeGreaterThan(10);
    const strays = spec.flatMap(([file, targets]) =>
      targets.filter((t) => !allowed.some((a) => t.startsWith(a))).map((t) => `${file} -> ${t}`),
    );
    expect(strays).toEqual([]);
  });

  it('keeps each room of a folder to what it may import of that folder (ROOMS)', () => {
    for (const { room } of ROOMS)
      expect([...graph.keys()].some((file) => file.startsWith(room))).toBe(true);
    expect(roomViolations(graph)).toEqual([]);
  });

  it('lists the same rooms as docs/architecture.md', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    // Rows of the rooms table: "| `lib/run/options/` | `lib/run/options/`, ... |"
    const rows = [...doc.matchAll(/^\| `(lib\/[^`]+)` \| ([^|]*) \|/gm)].map(
      ([, room, allowed]) => ({
        room,
        mayImport: [...allowed.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
      }),
    );
    expect(rows).toEqual(ROOMS.map(({ room, mayImport }) => ({ room, mayImport: [...mayImport] })));
  });

  it('lists the same floors as docs/architecture.md', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
    // Rows of the floors table: "| 0 | ground | common, config, result |"
    const rows = [...doc.matchAll(/^\| (\d+) \| [^|]+ \| ([^|]+) \|/gm)].map(
      (m) => [Number(m[1]), m[2].split(',').map((s) => s.trim().replace(/`/g, ''))] as const,
    );
    expect(rows.map(([floor]) => floor)).toEqual(FLOORS.map((_, floor) => floor));
    expect(rows.map(([, folders]) => [...folders].sort())).toEqual(
      FLOORS.map((folders) => [...folders].sort()),
    );
  });
});

describe('the checks themselves', () => {
  const graph: ImportGraph = new Map([
    ['lib/config/a.ts', ['lib/workload/b.ts']],
    ['lib/workload/b.ts', ['lib/workload/c.ts']],
    ['lib/workload/c.ts', ['lib/config/a.ts']],
    ['lib/odd/d.ts', []],
  ]);

  it('finds a circle of files', () => {
    expect(importCircles(graph)).toEqual([
      ['lib/config/a.ts', 'lib/workload/b.ts', 'lib/workload/c.ts'],
    ]);
  });

  it('finds a circle of folders', () => {
    expect(folderCircles(graph)).toEqual([['config', 'workload']]);
  });

  it('names an import out of a room', () => {
    const rooms = [{ room: 'lib/run/options/', mayImport: ['lib/run/options/'] }];
    expect(
      roomViolations(
        new Map([
          ['lib/run/options/a.ts', ['lib/run/options/b.ts', 'lib/run/sweep.ts', 'lib/config/c.ts']],
          ['lib/run/sweep.ts', ['lib/run/options/a.ts']],
        ]),
        rooms,
      ),
    ).toEqual([
      'lib/run/options/a.ts -> lib/run/sweep.ts (room lib/run/options/ may import only lib/run/options/ of lib/run)',
    ]);
  });

  it('names an upward import and a folder on no floor', () => {
    expect(floorViolations(graph)).toEqual([
      'lib/config/a.ts -> lib/workload/b.ts (config, floor 0, imports workload, floor 2)',
      'lib/odd/d.ts: folder lib/odd is on no floor (add it to FLOORS and docs/architecture.md)',
    ]);
  });
});
