/**
 * The import graph of lib/ and the two rules the architecture keeps (docs/architecture.md): no
 * circle between files, and no folder importing a folder on a higher floor. Imports are read with
 * TypeScript's own pre-processor (type-only imports count: they are dependencies of the design too).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The floors of lib/, lowest first. A folder may import folders on its own floor or below; `index`
 * is lib/index.ts, the public entry. Keep in step with the table in docs/architecture.md (a test checks).
 */
export const FLOORS: readonly (readonly string[])[] = [
  ['common', 'config', 'result'],
  ['metrics', 'security', 'server-stats', 'slo', 'server', 'wire'],
  ['workload', 'store', 'report'],
  [
    'topology',
    'launcher',
    'compare',
    'history',
    'capture',
    'diskperf',
    'calibrate',
    'agents',
    'deployment',
    'prepare',
  ],
  ['run'],
  ['experiments', 'matrix'],
  ['api'],
  ['cli'],
  ['index', 'internals'],
];

/**
 * Rooms inside a folder and what of their own folder each may import (imports of other folders follow the
 * floors). A room is a path prefix; the first room a file's path starts with is its room. Keep in step with
 * "Rooms inside a folder" in docs/architecture.md (a test checks).
 */
export const ROOMS: readonly { room: string; mayImport: readonly string[] }[] = [
  // What a run is (options, presets, the plan, the dry run) is settled before anything runs: it never
  // reaches into the sweep. The scenario language and the event language are part of what a run is.
  {
    room: 'lib/run/options/',
    mayImport: [
      'lib/run/options/',
      'lib/run/scenarios/scenario-spec.ts',
      'lib/run/scenarios/event-spec.ts',
    ],
  },
  { room: 'lib/run/scenarios/scenario-spec.ts', mayImport: ['lib/run/scenarios/event-spec.ts'] },
  { room: 'lib/run/scenarios/event-spec.ts', mayImport: [] },
  // Scenarios run beside the sweep with the step's own pieces: its events and its outages.
  {
    room: 'lib/run/scenarios/',
    mayImport: [
      'lib/run/scenarios/',
      'lib/run/options/',
      'lib/run/events.ts',
      'lib/run/outages.ts',
    ],
  },
];

/** Imports of a file in a room (ROOMS) into a part of its folder the room may not import. */
export function roomViolations(
  graph: ImportGraph,
  rooms: readonly { room: string; mayImport: readonly string[] }[] = ROOMS,
): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const room = rooms.find((r) => file.startsWith(r.room));
    if (!room) continue;
    const folder = `lib/${folderOf(file)}/`;
    for (const target of targets) {
      if (target === file || !target.startsWith(folder)) continue;
      if (!room.mayImport.some((allowed) => target.startsWith(allowed)))
        problems.push(
          `${file} -> ${target} (room ${room.room} may import only ${room.mayImport.join(', ') || 'nothing else'} of lib/${folderOf(file)})`,
        );
    }
  }
  return problems;
}

/** file (repo-relative, e.g. lib/run/execute.ts) -> the lib files it imports. */
export type ImportGraph = Map<string, string[]>;

/** Reads every .ts file under `libDir` (a list of repo-relative paths) and resolves its relative imports. */
export function readImportGraph(root: string, files: readonly string[]): ImportGraph {
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets: string[] = [];
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue; // packages and node: builtins
      const base = relative(root, resolve(root, dirname(file), fileName)).replace(/\.(js|ts)$/, '');
      const target = [`${base}.ts`, `${base}/index.ts`].find((candidate) => known.has(candidate));
      if (target) targets.push(target);
      else if (!existsSync(join(root, base)) && !existsSync(join(root, `${base}.json`)))
        targets.push(`${base} (unresolved)`);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** lib/run/execute.ts -> 'run'; lib/index.ts -> 'index'. */
export function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1] : parts[1].replace(/\.ts$/, '');
}

/** Every circle of files (strongly connected components of more than one file, or a file importing itself), each sorted. */
export function importCircles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative enough for lib/'s depth (a few hundred files).
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file))
        circles.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** Imports that go up a floor ("lib/config/x.ts -> lib/workload/y.ts (config, floor 0, imports workload, floor 2)"), and files in folders on no floor. */
export function floorViolations(
  graph: ImportGraph,
  floors: readonly (readonly string[])[] = FLOORS,
): string[] {
  const floorOf = new Map<string, number>();
  floors.forEach((folders, floor) => folders.forEach((folder) => floorOf.set(folder, floor)));
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const fromFloor = floorOf.get(from);
    if (fromFloor === undefined) {
      problems.push(
        `${file}: folder lib/${from} is on no floor (add it to FLOORS and docs/architecture.md)`,
      );
      continue;
    }
    for (const target of targets) {
      const to = folderOf(target);
      const toFloor = floorOf.get(to);
      if (toFloor !== undefined && toFloor > fromFloor) {
        problems.push(
          `${file} -> ${target} (${from}, floor ${fromFloor}, imports ${to}, floor ${toFloor})`,
        );
      }
    }
  }
  return problems;
}

/** Circles between folders (a folder-level import graph's strongly connected components). */
export function folderCircles(graph: ImportGraph): string[][] {
  const folders: ImportGraph = new Map();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const set = new Set(folders.get(from) ?? []);
    for (const target of targets)
      if (graph.has(target) && folderOf(target) !== from) set.add(folderOf(target));
    folders.set(from, [...set]);
  }
  return importCircles(folders);
}
