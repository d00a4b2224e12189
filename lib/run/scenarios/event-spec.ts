/**
 * The event language, one for a scenario's `events` and for the run's own (`events:` in a config file,
 * `--event 'AT:ACTION[:k=v,...]'`): when an event fires (`at`) and what it does. Checked before
 * anything connects, every error naming its path (`scenarios[0].events[1].seconds: ...`, `option
 * --event[0]: ...`). What each action sends, and how a fault is undone, is ./background-events.ts's.
 *
 * `at` is seconds after the scenario's start for a scenario's event, and seconds into each step's
 * measured window for the run's. `for` is how long a fault lasts (a proxy down, a toxic); absent, it
 * lasts to the end of the step (or of the scenarios).
 */
import { UsageError } from '../../config/errors';
import { closest } from '../../config/validate';
import { parseNamespace } from '../../workload/language/op-spec';
import { parseDurationSeconds } from '../../workload/language/rate-spec';

/** Toxiproxy's toxic types this tool adds (Shopify/toxiproxy v2.5.0, toxics/*.go), with the attributes each takes. */
export const TOXIC_TYPES = {
  latency: ['latency', 'jitter'],
  timeout: ['timeout'],
  bandwidth: ['rate'],
  reset_peer: ['timeout'],
  slow_close: ['delay'],
} as const;
export type ToxicType = keyof typeof TOXIC_TYPES;

export interface ToxicSpec {
  type: ToxicType;
  /** upstream (client to server) or downstream (server to client: Toxiproxy's default). */
  stream: 'upstream' | 'downstream';
  /** The share of connections it applies to, 0..1 (Toxiproxy's default: 1). */
  toxicity: number;
  attributes: Record<string, number>;
}

export type BackgroundEventSpec =
  | { action: 'createIndex'; at: number; ns: string; keys: Record<string, unknown>; name: string }
  | { action: 'stopBalancer'; at: number }
  | { action: 'startBalancer'; at: number }
  | { action: 'stepDown'; at: number; seconds: number }
  /** replSetFreeze: <seconds> on `host` (a member, direct), else on the server the run's connection selects. */
  | { action: 'freeze'; at: number; seconds: number; host?: string }
  | { action: 'proxyDown'; at: number; proxy: string; for?: number }
  | { action: 'toxic'; at: number; proxy: string; toxic: ToxicSpec; for?: number };

export const EVENT_ACTIONS = [
  'createIndex',
  'stopBalancer',
  'startBalancer',
  'stepDown',
  'freeze',
  'proxyDown',
  'toxic',
] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

/** The actions that go through Toxiproxy (they need the run's `toxiproxy` URL). */
export const PROXY_ACTIONS: ReadonlySet<string> = new Set(['proxyDown', 'toxic']);

/** The keys each action takes besides `at` and `action`. */
const ACTION_KEYS: Record<EventAction, readonly string[]> = {
  createIndex: ['keys', 'ns', 'name'],
  stopBalancer: [],
  startBalancer: [],
  stepDown: ['seconds'],
  freeze: ['seconds', 'host'],
  proxyDown: ['proxy', 'for'],
  toxic: ['proxy', 'toxic', 'for'],
};

/** replSetStepDown's own default (mongodb/mongo src/mongo/db/repl/repl_set_commands.cpp, CmdReplSetStepDown). */
const STEP_DOWN_DEFAULT_SECONDS = 60;

/**
 * The shortest step-down the server takes when, as here, no `secondaryCatchUpPeriodSecs` is sent: its
 * default, 10 s (CmdReplSetStepDown::run, repl_set_commands.cpp: BadValue "stepdown period must be
 * longer than secondaryCatchUpPeriodSecs" below it).
 */
export const STEP_DOWN_MIN_SECONDS = 10;

/** The index name the driver would give (`k_1_x_-1`), so the event and the server agree on it. */
function indexName(keys: Record<string, unknown>): string {
  return Object.entries(keys)
    .map(([field, dir]) => `${field}_${String(dir)}`)
    .join('_');
}

/** Where an event's `at` counts from, in words, for its errors. */
export type EventOwner = 'scenario' | 'run';

/** One event, validated (`where`: its path; `ns`: the default namespace of a createIndex). */
export function parseEvent(
  raw: Record<string, unknown>,
  where: string,
  ns: string,
  owner: EventOwner = 'scenario',
): BackgroundEventSpec {
  const action = raw.action;
  if (typeof action !== 'string' || !(EVENT_ACTIONS as readonly string[]).includes(action)) {
    const suggestion = typeof action === 'string' ? closest(action, EVENT_ACTIONS) : undefined;
    throw new UsageError(
      `${where}.action: must be one of ${EVENT_ACTIONS.join(', ')}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}, got ${JSON.stringify(action)}`,
    );
  }
  const known = action as EventAction;
  if (raw.at === undefined)
    throw new UsageError(
      `${where}.at: required: when the event starts, ${owner === 'scenario' ? "after the scenario's start" : "into each step's measured window"} (e.g. "10s")`,
    );
  const at = parseDurationSeconds(raw.at, `${where}.at`);
  const allowed = ACTION_KEYS[known];
  for (const key of Object.keys(raw)) {
    if (key !== 'action' && key !== 'at' && !allowed.includes(key)) {
      throw new UsageError(
        `${where}: unknown key "${key}" for ${action}${allowed.length ? ` (it takes ${allowed.join(', ')})` : ''}`,
      );
    }
  }
  switch (known) {
    case 'createIndex':
      return createIndexEvent(raw, where, ns, at);
    case 'stepDown':
      return { action: known, at, seconds: stepDownSeconds(raw.seconds, `${where}.seconds`) };
    case 'freeze':
      return freezeEvent(raw, where, at);
    case 'proxyDown':
      return { action: known, at, proxy: proxyName(raw.proxy, where), ...faultFor(raw, where) };
    case 'toxic':
      return {
        action: known,
        at,
        proxy: proxyName(raw.proxy, where),
        toxic: parseToxic(raw.toxic, `${where}.toxic`),
        ...faultFor(raw, where),
      };
    default:
      return { action: known, at };
  }
}

function createIndexEvent(
  raw: Record<string, unknown>,
  where: string,
  ns: string,
  at: number,
): BackgroundEventSpec {
  const keys = raw.keys;
  if (keys === null || typeof keys !== 'object' || Array.isArray(keys) || !Object.keys(keys).length)
    throw new UsageError(
      `${where}.keys: expected the index's keys, e.g. { k: 1 }, got ${JSON.stringify(keys)}`,
    );
  const eventNs = raw.ns === undefined ? ns : String(raw.ns);
  if (!parseNamespace(eventNs, false))
    throw new UsageError(
      `${where}.ns: expected "database.collection", got ${JSON.stringify(raw.ns)}`,
    );
  if (raw.name !== undefined && (typeof raw.name !== 'string' || raw.name === ''))
    throw new UsageError(
      `${where}.name: expected the index's name, got ${JSON.stringify(raw.name)}`,
    );
  const index = keys as Record<string, unknown>;
  return {
    action: 'createIndex',
    at,
    ns: eventNs,
    keys: index,
    name: (raw.name as string | undefined) ?? indexName(index),
  };
}

function stepDownSeconds(value: unknown, where: string): number {
  const seconds =
    value === undefined ? STEP_DOWN_DEFAULT_SECONDS : parseDurationSeconds(value, where);
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new UsageError(
      `${where}: a whole number of seconds >= 1 (replSetStepDown's stepDownSecs), got ${JSON.stringify(value)}`,
    );
  if (seconds < STEP_DOWN_MIN_SECONDS)
    throw new UsageError(
      `${where}: the server refuses a step-down shorter than its secondaryCatchUpPeriodSecs (${STEP_DOWN_MIN_SECONDS} s by default: BadValue "stepdown period must be longer than secondaryCatchUpPeriodSecs"), so the scenario would run without a failover; give ${STEP_DOWN_MIN_SECONDS} or more, got ${JSON.stringify(value)}`,
    );
  return seconds;
}

/**
 * replSetFreeze: <seconds> (src/mongo/db/repl/repl_set_commands.cpp, CmdReplSetFreeze): a whole number;
 * 0 unfreezes, so a freeze takes 1 or more. Only a secondary takes it (processReplSetFreeze:
 * NotSecondary "cannot freeze node when primary or running for election"): `host` names the member.
 */
function freezeEvent(raw: Record<string, unknown>, where: string, at: number): BackgroundEventSpec {
  if (raw.seconds === undefined)
    throw new UsageError(
      `${where}.seconds: required: how long the member may not seek election (replSetFreeze's seconds), e.g. 30`,
    );
  const seconds = parseDurationSeconds(raw.seconds, `${where}.seconds`);
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new UsageError(
      `${where}.seconds: a whole number of seconds >= 1 (replSetFreeze: 0 unfreezes), got ${JSON.stringify(raw.seconds)}`,
    );
  if (raw.host !== undefined && (typeof raw.host !== 'string' || !/^[^\s/,]+:\d+$/.test(raw.host)))
    throw new UsageError(
      `${where}.host: expected a member's host:port (a secondary: the primary refuses replSetFreeze), got ${JSON.stringify(raw.host)}`,
    );
  return {
    action: 'freeze',
    at,
    seconds,
    ...(raw.host !== undefined ? { host: raw.host as string } : {}),
  };
}

function proxyName(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(
      `${where}.proxy: required: the name of the Toxiproxy proxy in front of the server, got ${JSON.stringify(value)}`,
    );
  return value;
}

/** `for`: how long the fault lasts (> 0); absent: to the step's end. */
function faultFor(raw: Record<string, unknown>, where: string): { for?: number } {
  if (raw.for === undefined) return {};
  const seconds = parseDurationSeconds(raw.for, `${where}.for`);
  if (!(seconds > 0))
    throw new UsageError(
      `${where}.for: a fault lasts more than 0 s, got ${JSON.stringify(raw.for)}`,
    );
  return { for: seconds };
}

function parseToxic(value: unknown, where: string): ToxicSpec {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(
      `${where}: expected { type: ${Object.keys(TOXIC_TYPES).join(' | ')}, attributes?: {...}, stream?, toxicity? }, got ${JSON.stringify(value)}`,
    );
  const t = value as Record<string, unknown>;
  for (const key of Object.keys(t))
    if (!['type', 'attributes', 'stream', 'toxicity'].includes(key))
      throw new UsageError(
        `${where}: unknown key "${key}" (a toxic takes type, attributes, stream, toxicity)`,
      );
  const types = Object.keys(TOXIC_TYPES);
  if (typeof t.type !== 'string' || !types.includes(t.type)) {
    const suggestion = typeof t.type === 'string' ? closest(t.type, types) : undefined;
    throw new UsageError(
      `${where}.type: must be one of ${types.join(', ')}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}, got ${JSON.stringify(t.type)}`,
    );
  }
  const type = t.type as ToxicType;
  const stream = t.stream ?? 'downstream';
  if (stream !== 'upstream' && stream !== 'downstream')
    throw new UsageError(
      `${where}.stream: must be upstream or downstream, got ${JSON.stringify(t.stream)}`,
    );
  const toxicity = t.toxicity ?? 1;
  if (typeof toxicity !== 'number' || !(toxicity >= 0 && toxicity <= 1))
    throw new UsageError(
      `${where}.toxicity: a share from 0 to 1, got ${JSON.stringify(t.toxicity)}`,
    );
  const raw = t.attributes ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new UsageError(
      `${where}.attributes: expected { name: number, ... }, got ${JSON.stringify(raw)}`,
    );
  const attributes: Record<string, number> = {};
  const takes: readonly string[] = TOXIC_TYPES[type];
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!takes.includes(key))
      throw new UsageError(
        `${where}.attributes: unknown attribute "${key}" for a ${type} toxic (it takes ${takes.join(', ')})`,
      );
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
      throw new UsageError(
        `${where}.attributes.${key}: a whole number >= 0, got ${JSON.stringify(v)}`,
      );
    attributes[key] = n;
  }
  return { type, stream, toxicity, attributes };
}

/**
 * `--event`'s text, `AT:ACTION[:k=v,...]` (`3:proxyDown:proxy=mongo,for=2s`), as the object a config
 * file gives. A toxic's `type`, `stream` and `toxicity` are its own; its other keys are its attributes
 * (`5:toxic:proxy=mongo,type=latency,latency=300,for=10s`). A value in braces is JSON (`keys={"k":1}`).
 */
export function parseEventText(text: string, where: string): Record<string, unknown> {
  const first = text.indexOf(':');
  const second = first < 0 ? -1 : text.indexOf(':', first + 1);
  if (first <= 0)
    throw new UsageError(
      `${where}: expected AT:ACTION[:key=value,...] such as '3:proxyDown:proxy=mongo,for=2s', got ${JSON.stringify(text)}`,
    );
  const at = text.slice(0, first).trim();
  const action = (second < 0 ? text.slice(first + 1) : text.slice(first + 1, second)).trim();
  const event: Record<string, unknown> = { at: /^\d+(\.\d+)?$/.test(at) ? Number(at) : at, action };
  const rest = second < 0 ? '' : text.slice(second + 1);
  const toxic: Record<string, unknown> = {};
  const attributes: Record<string, unknown> = {};
  for (const pair of splitPairs(rest)) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new UsageError(
        `${where}: expected key=value after the action, got ${JSON.stringify(pair)}`,
      );
    const key = pair.slice(0, eq).trim();
    const value = textValue(pair.slice(eq + 1).trim(), `${where}: ${key}`);
    if (action === 'toxic' && !['proxy', 'for'].includes(key)) {
      if (['type', 'stream', 'toxicity'].includes(key)) toxic[key] = value;
      else attributes[key] = value;
    } else event[key] = value;
  }
  if (action === 'toxic') event.toxic = { ...toxic, attributes };
  return event;
}

/** `a=1,keys={"k":1,"x":-1}` -> ['a=1', 'keys={"k":1,"x":-1}']: commas inside braces stay. */
function splitPairs(text: string): string[] {
  const pairs: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '{' || ch === '[') depth++;
    if (ch === '}' || ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      pairs.push(current);
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') pairs.push(current);
  return pairs.filter((p) => p.trim() !== '');
}

function textValue(value: string, where: string): unknown {
  if (value.startsWith('{') || value.startsWith('[')) {
    try {
      return JSON.parse(value);
    } catch {
      throw new UsageError(`${where}: expected JSON, got ${JSON.stringify(value)}`);
    }
  }
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

/** What an event does, in a few words (the dry run, the write plan, the printer). */
export function describeEvent(e: BackgroundEventSpec): string {
  const lasting = 'for' in e && e.for !== undefined ? ` for ${e.for} s` : '';
  switch (e.action) {
    case 'createIndex':
      return `createIndex ${JSON.stringify(e.keys)} on ${e.ns}`;
    case 'stepDown':
      return `stepDown (replSetStepDown ${e.seconds} s)`;
    case 'freeze':
      return `freeze (replSetFreeze ${e.seconds} s${e.host ? ` on ${e.host}` : ''})`;
    case 'proxyDown':
      return `proxyDown ${e.proxy}${lasting || " to the step's end"}`;
    case 'toxic':
      return `toxic ${e.toxic.type} ${JSON.stringify(e.toxic.attributes)} on ${e.proxy} (${e.toxic.stream})${lasting || " to the step's end"}`;
    default:
      return e.action;
  }
}
