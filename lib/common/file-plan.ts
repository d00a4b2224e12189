/**
 * The files half of the write plan (lib/server/write-plan.ts holds the namespaces and the server changes):
 * which existing files a command may replace. Every command that writes files lists them up front (a
 * `FileEntry` each; where the set depends on the result, every name it could write), and this module
 * judges each one before the first write:
 * - a file that is not there may be created (with its missing folders);
 * - an existing file is replaced only if mongo-bench wrote it: its name is listed in the folder's marker
 *   file (FOLDER_MARKER_FILE, written after every command that writes there), or it carries a mark
 *   mongo-bench recognises (fileMark: a `"schema": "mongo-bench/..."` field, a generated-by line, the
 *   page's generator meta), which also covers folders written before the marker existed;
 * - otherwise only with --force (FORCE_OPTION); without it the command is refused (exit 2) naming every
 *   such file, and nothing is written.
 * CSV and PNG files carry no mark: only the marker vouches for them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { option } from '../config/option-table';
import { writeFileAtomically } from './atomic-write';
import { isObject } from './values';
import { toolInfo } from './version';

/** One file a command will (or may) write. lib/server/write-plan.ts's `FileEntry` is this one. */
export interface FileEntry {
  kind: 'file';
  /** Absolute path. */
  path: string;
  /** The command that writes it ("run", "report", ...). */
  source: string;
}

/** The entries for `names` (relative to `dir`, sub-folders allowed: "A/results.json") written by `source`. */
export function fileEntries(dir: string, names: Iterable<string>, source: string): FileEntry[] {
  return [...new Set(names)].map((name) => ({
    kind: 'file',
    path: path.resolve(dir, name),
    source,
  }));
}

/** Every command that writes files takes it, one declaration for all. */
export const FORCE_OPTION = option({
  flag: '--force',
  help: 'replace files in the output folder that mongo-bench did not write',
  schema: z.boolean(),
});

export const FOLDER_MARKER_FILE = '.mongo-bench.json';
export const FOLDER_MARKER_SCHEMA = 'mongo-bench/folder@1';

export interface FolderMarker {
  schema: typeof FOLDER_MARKER_SCHEMA;
  about: string;
  /** By name in the folder: who wrote it, with which version, when. */
  files: Record<string, { command: string; version: string; writtenAt: string }>;
}

const MARKER_ABOUT =
  'the files mongo-bench wrote in this folder: it replaces these without --force, and no other';

/** The folder's marker; undefined when there is none, or the file there is not one (unreadable, another shape). */
export function readFolderMarker(dir: string): FolderMarker | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(dir, FOLDER_MARKER_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || parsed.schema !== FOLDER_MARKER_SCHEMA || !isObject(parsed.files))
    return undefined;
  const files: FolderMarker['files'] = {};
  for (const [name, about] of Object.entries(parsed.files)) {
    if (!isObject(about)) continue;
    files[name] = {
      command: String(about.command ?? ''),
      version: String(about.version ?? ''),
      writtenAt: String(about.writtenAt ?? ''),
    };
  }
  return { schema: FOLDER_MARKER_SCHEMA, about: MARKER_ABOUT, files };
}

/**
 * Adds `names` (files of `dir` that `command` has just written) to the folder's marker, written atomically.
 * Names whose file is gone are dropped: a file of the user's that later takes such a name is the user's.
 */
export async function recordWrittenFiles(
  dir: string,
  names: readonly string[],
  command: string,
): Promise<void> {
  const marker = readFolderMarker(dir) ?? {
    schema: FOLDER_MARKER_SCHEMA,
    about: MARKER_ABOUT,
    files: {},
  };
  const { version } = toolInfo();
  const writtenAt = new Date().toISOString();
  for (const name of names) marker.files[name] = { command, version, writtenAt };
  for (const name of Object.keys(marker.files))
    if (!fs.existsSync(path.join(dir, name))) delete marker.files[name];
  const sorted = Object.fromEntries(
    Object.entries(marker.files).sort(([a], [b]) => a.localeCompare(b)),
  );
  await writeFileAtomically(
    path.join(dir, FOLDER_MARKER_FILE),
    `${JSON.stringify({ ...marker, files: sorted }, null, 2)}\n`,
  );
}

/**
 * Schemas of files users write for mongo-bench to read (a matrix file): such a file is the user's, not
 * mongo-bench's output, whatever it says.
 */
const INPUT_SCHEMAS = ['mongo-bench/matrix-file@'];

/** A JSON document of mongo-bench's: a `schema` field it writes, or a captured workload's `capture` section. */
function jsonMark(text: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(doc)) return undefined;
  const schema = doc.schema;
  if (
    typeof schema === 'string' &&
    schema.startsWith('mongo-bench/') &&
    !INPUT_SCHEMAS.some((input) => schema.startsWith(input))
  )
    return `its "schema" is ${schema}`;
  // workload.json: a benchRun-style workload file, which has no room for a schema; only capture writes this section.
  if (
    Array.isArray(doc.ops) &&
    isObject(doc.capture) &&
    typeof doc.capture.opsPerSecond === 'number'
  )
    return 'its "capture" section (written by mongo-bench capture)';
  return undefined;
}

/** index.html: the page's generator meta, or (pages written before it) the chart data block only mongo-bench's page has. */
function pageMark(text: string): string | undefined {
  if (/<meta name="generator" content="mongo-bench[\s"]/.test(text))
    return 'its generator meta (mongo-bench)';
  if (text.includes('<script type="application/json" id="mb-charts">'))
    return "mongo-bench's page (its mb-charts block)";
  return undefined;
}

/** How far into a text file its mark is looked for: the header lines. */
const HEADER_BYTES = 4096;

/** The header lines mongo-bench writes, in the first HEADER_BYTES of a text file. */
const HEADER_MARKS: ReadonlyArray<[RegExp, string]> = [
  // READMEs, shell and mongosh scripts, benchrun-*.js, and the Markdown files' first-line comment.
  [/generated by[\s:#/*`'"-]*mongo-bench\b/i, 'a "generated by mongo-bench" line'],
  // summary.md of report, diskperf and matrix.
  [/^# mongo-bench \S/, 'its first line "# mongo-bench ..."'],
  // command-log.txt of run and matrix: "# <time> mongo-bench <version> run started; output ...".
  [/^# \S+ mongo-bench \S+ (?:run|matrix)\b/, "its first line, mongo-bench's command log"],
  // setup.js of a run or matrix that applied nothing.
  [
    /^\/\/ setup\.js: what mongo-bench applied/,
    'its first line "// setup.js: what mongo-bench applied"',
  ],
];

function headerMark(text: string): string | undefined {
  const head = text.slice(0, HEADER_BYTES);
  return HEADER_MARKS.find(([pattern]) => pattern.test(head))?.[1];
}

/** Which recogniser reads which files (by extension); a file of any other kind (CSV, PNG) carries no mark. */
const MARK_RULES: ReadonlyArray<{
  name: RegExp;
  recognise: (text: string) => string | undefined;
  /** How much of the file the recogniser needs: all of it (JSON, a page) or the header. */
  whole: boolean;
}> = [
  { name: /\.json$/i, recognise: jsonMark, whole: true },
  { name: /\.html?$/i, recognise: pageMark, whole: true },
  { name: /\.(md|sh|js|txt)$/i, recognise: headerMark, whole: false },
];

/** A file read whole for its mark no further than this: a bigger one is judged by the marker alone. */
const MAX_WHOLE_BYTES = 64 * 1024 * 1024;

/**
 * The mark by which mongo-bench recognises `content` (the file at `filePath`) as its own, in words ("its
 * \"schema\" is mongo-bench/result@1"); undefined when it carries none.
 */
export function fileMark(filePath: string, content: string | Buffer): string | undefined {
  const rule = MARK_RULES.find((r) => r.name.test(path.basename(filePath)));
  if (!rule) return undefined;
  return rule.recognise(typeof content === 'string' ? content : content.toString('utf8'));
}

/** fileMark of the file on disk, reading only what its recogniser needs. */
function markOnDisk(filePath: string, size: number): string | undefined {
  const rule = MARK_RULES.find((r) => r.name.test(path.basename(filePath)));
  if (!rule || (rule.whole && size > MAX_WHOLE_BYTES)) return undefined;
  try {
    if (rule.whole) return fileMark(filePath, fs.readFileSync(filePath));
    const head = Buffer.alloc(Math.min(size, HEADER_BYTES));
    const fd = fs.openSync(filePath, 'r');
    try {
      fs.readSync(fd, head, 0, head.length, 0);
    } finally {
      fs.closeSync(fd);
    }
    return fileMark(filePath, head);
  } catch {
    return undefined;
  }
}

export type FileVerdict =
  | { entry: FileEntry; allowed: true; why: string }
  | { entry: FileEntry; allowed: false; why: string; forceAllows: boolean };

/** The rule (see the header) for one entry; `markers` caches each folder's marker across entries. */
function judgeFile(
  entry: FileEntry,
  force: boolean,
  markers: Map<string, FolderMarker | undefined>,
): FileVerdict {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(entry.path);
  } catch {
    return { entry, allowed: true, why: 'absent' };
  }
  if (!stat.isFile())
    return {
      entry,
      allowed: false,
      why: 'is a folder (or another thing that is not a file), where it would write a file; no option replaces it: choose another output folder',
      forceAllows: false,
    };
  const dir = path.dirname(entry.path);
  if (!markers.has(dir)) markers.set(dir, readFolderMarker(dir));
  const listed = markers.get(dir)?.files[path.basename(entry.path)];
  if (listed)
    return {
      entry,
      allowed: true,
      why: `listed in ${FOLDER_MARKER_FILE} (written by mongo-bench ${listed.version} ${listed.command} at ${listed.writtenAt})`,
    };
  const mark = markOnDisk(entry.path, stat.size);
  if (mark) return { entry, allowed: true, why: mark };
  if (force) return { entry, allowed: true, why: '--force given' };
  return {
    entry,
    allowed: false,
    why: `exists and mongo-bench did not write it (not listed in ${FOLDER_MARKER_FILE}, and no mark of mongo-bench's in it)`,
    forceAllows: true,
  };
}

/** Every entry judged, in order. */
export function judgeFiles(
  entries: readonly FileEntry[],
  options: { force?: boolean },
): FileVerdict[] {
  const markers = new Map<string, FolderMarker | undefined>();
  return entries.map((entry) => judgeFile(entry, options.force === true, markers));
}

/** The refusal lines: one per file that may not be replaced, naming it and whether --force allows it. */
export function filesProblems(
  entries: readonly FileEntry[],
  options: { force?: boolean },
): string[] {
  return judgeFiles(entries, options).flatMap((v) => (v.allowed ? [] : [problemLine(v)]));
}

/** Throws a UsageError (exit 2) listing every file that may not be replaced; call it before the first write. */
export function assertFilesWritable(
  entries: readonly FileEntry[],
  options: { force?: boolean },
): void {
  const refused = judgeFiles(entries, options).filter(
    (v): v is Extract<FileVerdict, { allowed: false }> => !v.allowed,
  );
  if (refused.length === 0) return;
  const files = refused.length === 1 ? '1 existing file' : `${refused.length} existing files`;
  throw new UsageError(
    [
      `nothing was written: mongo-bench ${refused[0].entry.source} would replace ${files} it did not write:`,
      ...refused.map(problemLine),
      ...(refused.some((v) => v.forceAllows)
        ? ['Give --force to replace them, or write to another folder.']
        : []),
    ].join('\n'),
  );
}

function problemLine(verdict: Extract<FileVerdict, { allowed: false }>): string {
  return `  - ${verdict.entry.path} ${verdict.why}${verdict.forceAllows ? '; --force replaces it' : ''}`;
}

/** What a file was when the plan was checked, to tell afterwards whether the command wrote it. */
type FileIdentity = { ino: number; size: number; mtimeMs: number; ctimeMs: number } | undefined;

function identityOf(file: string): FileIdentity {
  try {
    const s = fs.statSync(file);
    return { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs };
  } catch {
    return undefined;
  }
}

function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A command's files from the check to the record: `FileWrites.check` refuses what may not be replaced
 * (before anything is written) and notes what each file is; `record()` lists in each folder's marker the
 * files the command has written since (created, or changed), so a later command replaces them without
 * --force. A file the command did not touch keeps its standing: a file of the user's that --force let
 * through but that was not rewritten this time stays the user's.
 */
export class FileWrites {
  private constructor(
    readonly entries: readonly FileEntry[],
    /** What each tracked file was at the check (undefined: absent), by path. */
    private readonly before: ReadonlyMap<string, { entry: FileEntry; was: FileIdentity }>,
  ) {}

  /**
   * Judges `entries` and each folder's marker file (a user's file by that name is refused too); throws the
   * UsageError of assertFilesWritable. `marker: false` for a lone file whose content carries its mark
   * (calibrate --json): no marker is left beside it, in a folder that is not mongo-bench's.
   */
  static check(
    entries: readonly FileEntry[],
    options: { force?: boolean; marker?: boolean },
  ): FileWrites {
    const tracked = options.marker === false ? [] : entries;
    const markerEntries = [...new Set(tracked.map((e) => path.dirname(e.path)))].flatMap((dir) =>
      fileEntries(dir, [FOLDER_MARKER_FILE], tracked[0].source),
    );
    assertFilesWritable([...entries, ...markerEntries], options);
    return new FileWrites(
      entries,
      new Map(tracked.map((entry) => [entry.path, { entry, was: identityOf(entry.path) }])),
    );
  }

  /**
   * Records the files written since the check in their folders' markers; again after more writes is
   * harmless. Never throws: the files are written, and a marker that could not be written only means a
   * later command asks for --force again.
   */
  async record(): Promise<void> {
    const written = new Map<string, { source: string; names: string[] }>();
    for (const [file, { entry, was }] of this.before) {
      const now = identityOf(file);
      if (now === undefined || sameIdentity(was, now)) continue;
      const dir = path.dirname(file);
      const group = written.get(dir) ?? { source: entry.source, names: [] };
      group.names.push(path.basename(file));
      written.set(dir, group);
    }
    for (const [dir, { source, names }] of written)
      await recordWrittenFiles(dir, names, source).catch(() => undefined);
  }
}
