/**
 * The folder store: result documents (*.json of schema mongo-bench/result@1) at any depth. `put`
 * writes <folder>/<label>/<startedAt>-<hash>.json; `list` reads every *.json below the folder, so a
 * results.json copied in (or a whole reports/ folder) is part of the history. Other JSON files
 * (compare.json, suite.json) are skipped.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { UsageError } from '../config/errors';
import type { ResultDocument } from '../result';
import { writeFileAtomically } from '../common/atomic-write';
import { parseResult } from '../result';
import { withoutBom } from '../config/input-limits';
import { resultForStore } from './redact-result';
import {
  matchesFilter,
  orderAndDeduplicate,
  PutOutcome,
  ResultStore,
  SkippedEntry,
  StoredResult,
  StoreFilter,
} from './store';
import { messageOf } from '../common/values';

/** Folders a walk never enters (dependencies, version control). */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[_.]+|_+$/g, '') || 'run';
}

async function jsonFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) await walk(full);
      } else if (entry.isFile() && entry.name.endsWith('.json')) {
        out.push(full);
      }
    }
  };
  await walk(dir);
  return out.sort();
}

/** A JSON file that says it is no result document is someone else's file, not a problem. */
function isOtherDocument(text: string): boolean {
  try {
    const raw: unknown = JSON.parse(withoutBom(text));
    return (
      typeof raw !== 'object' ||
      raw === null ||
      Array.isArray(raw) ||
      typeof (raw as { schema?: unknown }).schema !== 'string' ||
      !(raw as { schema: string }).schema.startsWith('mongo-bench/result@')
    );
  } catch {
    return false;
  }
}

export class FolderStore implements ResultStore {
  readonly description: string;

  constructor(private readonly dir: string) {
    this.description = `folder ${dir}`;
  }

  async put(result: ResultDocument): Promise<PutOutcome> {
    const kept = resultForStore(result);
    const text = `${JSON.stringify(kept, null, 2)}\n`;
    const hash = createHash('sha256').update(text).digest('hex').slice(0, 10);
    const file = path.join(
      this.dir,
      safeName(kept.label),
      `${safeName(kept.startedAt)}-${hash}.json`,
    );
    if (existsSync(file)) return { id: file, created: false };
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomically(file, text);
    return { id: file, created: true };
  }

  async list(filter?: StoreFilter): Promise<{ results: StoredResult[]; skipped: SkippedEntry[] }> {
    const info = await stat(this.dir).catch(() => undefined);
    if (!info)
      throw new UsageError(
        `store ${this.dir}: no such folder (run --store ${this.dir} creates it with the first result)`,
      );
    if (!info.isDirectory())
      throw new UsageError(
        `store ${this.dir}: not a folder (a folder store holds result files; a MongoDB store is a mongodb:// URI)`,
      );
    const results: StoredResult[] = [];
    const skipped: SkippedEntry[] = [];
    for (const file of await jsonFiles(this.dir)) {
      const text = await readFile(file, 'utf8');
      if (isOtherDocument(text)) continue;
      try {
        const result = parseResult(text, file);
        if (matchesFilter(result, filter)) results.push({ result, source: file });
      } catch (err) {
        skipped.push({ source: file, why: messageOf(err) });
      }
    }
    return { results: orderAndDeduplicate(results), skipped };
  }

  async close(): Promise<void> {
    // Nothing held open.
  }
}
