/**
 * A workload's own set-up: what runs before the sweep (or before every step with --reset each-step)
 * instead of the built-in loader. mongo-perf re-runs each test's pre() before every thread count
 * (util/utils.js, runTest -> initCollections), which is what makes unique #SEQ_INT inserts repeatable.
 *
 * In a workload file, `setup` is an array; each entry is one of
 *   {"command": {...}, "db"?: "name"}                     a command (drop, create, createIndexes, ...)
 *   {"documents": [{...}, ...], "ns"?: "db.coll"}          these documents, inserted as given
 *   {"documents": {"count": N, "doc": {...}}, "ns"?, "batchSize"?}  N documents from a template
 *                                                          (the template operators, client 0's state)
 * `db` and `ns` default to the workload's namespace.
 */
import { UsageError } from '../../config/errors';
import { closest } from '../../config/validate';
import { Namespace, parseNamespace } from './op-spec';
import { compileTemplate, TemplateScope } from './template';
import { isObject } from '../../common/values';

export type SetupStep =
  | { kind: 'command'; db: string; command: Record<string, unknown> }
  | { kind: 'documents'; ns: Namespace; documents: Record<string, unknown>[] }
  | {
      kind: 'generate';
      ns: Namespace;
      count: number;
      doc: Record<string, unknown>;
      batchSize: number;
    };

/**
 * The set-up of one workload. `byClients` (mongo-perf tests whose pre() reads env.threads) replaces
 * `steps` for the client counts it names.
 */
export interface WorkloadSetup {
  steps: SetupStep[];
  byClients?: Record<string, SetupStep[]>;
}

export const RESET_CHOICES = ['once', 'each-step'] as const;
export type ResetMode = (typeof RESET_CHOICES)[number];

export const DEFAULT_GENERATE_BATCH = 1000;

const ENTRY_KEYS = ['command', 'db', 'documents', 'ns', 'batchSize'];

/** The set-up steps a step with this many clients runs. */
export function setupFor(setup: WorkloadSetup, clients: number): SetupStep[] {
  return setup.byClients?.[String(clients)] ?? setup.steps;
}

/** Validates a workload file's `setup` array; errors name `setup[i].field`. */
export function parseSetup(raw: unknown, defaultNs: string, where: string): WorkloadSetup {
  const bad = (path: string, message: string): never => {
    throw new UsageError(`${where}${path}: ${message}`);
  };
  if (!Array.isArray(raw))
    return bad(
      'setup',
      'expected an array of set-up steps ({"command": {...}} or {"documents": ...})',
    );
  const fallback = parseNamespace(defaultNs, false);
  const steps = (raw as unknown[]).map((entry, i): SetupStep => {
    const at = `setup[${i}]`;
    if (!isObject(entry)) return bad(at, 'expected {"command": {...}} or {"documents": ...}');
    for (const key of Object.keys(entry)) {
      if (!ENTRY_KEYS.includes(key)) {
        const suggestion = closest(key, ENTRY_KEYS);
        bad(`${at}.${key}`, `unknown field${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
      }
    }
    if ((entry.command === undefined) === (entry.documents === undefined))
      bad(at, 'expected exactly one of "command" or "documents"');
    if (entry.command !== undefined) {
      if (!isObject(entry.command) || Object.keys(entry.command).length === 0)
        bad(`${at}.command`, 'expected a command document like {"drop": "coll"}');
      for (const key of ['ns', 'batchSize'])
        if (entry[key] !== undefined) bad(`${at}.${key}`, 'only for "documents" steps');
      const db = entry.db ?? fallback?.db;
      if (typeof db !== 'string' || db === '')
        return bad(`${at}.db`, `expected a database name, got ${JSON.stringify(db)}`);
      return { kind: 'command', db, command: entry.command as Record<string, unknown> };
    }
    if (entry.db !== undefined)
      bad(`${at}.db`, 'only for "command" steps (use "ns" for documents)');
    const nsText = entry.ns ?? defaultNs;
    const ns = typeof nsText === 'string' ? parseNamespace(nsText, false) : undefined;
    if (!ns)
      return bad(`${at}.ns`, `expected "database.collection", got ${JSON.stringify(nsText)}`);
    const documents = entry.documents;
    if (Array.isArray(documents)) {
      if (entry.batchSize !== undefined)
        bad(`${at}.batchSize`, 'only for generated documents ({"count", "doc"})');
      if (!documents.every(isObject)) bad(`${at}.documents`, 'expected an array of documents');
      return { kind: 'documents', ns, documents: documents as Record<string, unknown>[] };
    }
    if (!isObject(documents))
      return bad(`${at}.documents`, 'expected an array of documents or {"count": N, "doc": {...}}');
    for (const key of Object.keys(documents))
      if (key !== 'count' && key !== 'doc')
        bad(`${at}.documents.${key}`, 'unknown field (count, doc)');
    const count = documents.count;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1)
      bad(`${at}.documents.count`, `expected an integer >= 1, got ${JSON.stringify(count)}`);
    if (!isObject(documents.doc))
      bad(`${at}.documents.doc`, 'expected a document (template operators allowed)');
    // Compiled here so a malformed template is a usage error before anything connects.
    compileTemplate(documents.doc, `${where}${at}.documents.doc`, new TemplateScope());
    const batchSize = entry.batchSize ?? DEFAULT_GENERATE_BATCH;
    if (typeof batchSize !== 'number' || !Number.isInteger(batchSize) || batchSize < 1)
      bad(`${at}.batchSize`, `expected an integer >= 1, got ${JSON.stringify(batchSize)}`);
    return {
      kind: 'generate',
      ns,
      count: count as number,
      doc: documents.doc as Record<string, unknown>,
      batchSize: batchSize as number,
    };
  });
  return { steps };
}
