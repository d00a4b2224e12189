/**
 * The control database: how the coordinator (`run --agents N`) and the agents (`mongo-bench agent`)
 * talk, through a MongoDB deployment the user already runs. Only what MongoDB 4.4+ and the CRUD
 * test double both support is used: inserts, finds (agents poll; no change streams), atomic claims
 * with findOneAndUpdate, `$currentDate` for the server's clock, and TTL indexes for clean-up.
 *
 * It holds plans and measurements only, never credentials: the target URI is published without its
 * userinfo and every agent authenticates from its own environment.
 *
 * It is a database of its own: absent, empty, or already a control database (marked in its
 * `mongo_bench_owner` by the first coordinator or agent that used it), never a user's database. The
 * coordinator and every agent check that (lib/server/role-check.ts) before their first write, the TTL
 * indexes below included.
 */
import type { TickLatencyDelta } from '../metrics/tick-latency';
import { Collection, Db, MongoClient } from 'mongodb';
import type { RoleNamespace } from '../server/role-check';
import type { AgentShare } from './shares';
import type { ArrivalsMode } from '../workload/engine/step-plan';

export const DEFAULT_CONTROL_DB = 'mongo_bench_control';

/** Every control document carries `touchedAt`; a TTL index removes those left alone this long. */
export const CONTROL_TTL_SECONDS = 24 * 3600;

/** How often an agent (and the coordinator, on its run) writes its heartbeat. */
export const HEARTBEAT_MS = 1000;

export interface AgentDoc {
  /** The agent's name (--name), unique among live agents. */
  _id: string;
  /** Random per agent process: a restarted agent with the same name is a new instance. */
  instance: string;
  host: string;
  pid: number;
  cores: number;
  version: string;
  state: 'idle' | 'running';
  runId?: string;
  /** Control server's clock minus this agent's (ms), and the round trip it was measured with. */
  clockOffsetMs: number;
  clockRttMs: number;
  /** Server time ($currentDate) of the last heartbeat. */
  heartbeatAt: Date;
  touchedAt: Date;
}

export type RunStatus = 'open' | 'running' | 'done' | 'failed' | 'cancelled';

export interface RunDoc {
  _id: string;
  /** The coordinator's mongo-bench version: agents of another version refuse the run. */
  version: string;
  status: RunStatus;
  /** Why it failed or was cancelled. */
  reason?: string;
  wanted: number;
  openSlots: number;
  /** Agents that claimed a slot, in claim order. */
  joined: string[];
  /** Agents that saw the run and would not take it, with why (version mismatch, bad spec). */
  refused: { agent: string; reason: string }[];
  /** The run as plain JSON text, and its sha256: an agent runs only a spec whose hash matches. */
  spec: string;
  specSha256: string;
  /** The coordinator's heartbeat (server time): agents drop a run whose coordinator went silent. */
  heartbeatAt: Date;
  createdAt: Date;
  touchedAt: Date;
}

export interface StepDoc {
  /** `${runId}:${seq}` */
  _id: string;
  runId: string;
  /** 1, 2, ... in the order the coordinator runs steps (client counts x trials). */
  seq: number;
  clients: number;
  trial: number;
  plan: {
    seconds: number;
    warmupSeconds: number;
    rate?: number;
    randomSeed: number;
    overrunLimitMs?: number;
    ops?: number;
    stallMs?: number;
    /** How free clients wait for due times (StepPlan.arrivals). */
    arrivals?: ArrivalsMode;
  };
  shares: AgentShare[];
  /** prepare: connect and report ready; start: begin at startAtServerMs; stop: stop the clients now. */
  state: 'prepare' | 'start' | 'stop';
  /** The common start instant (warm-up included), on the control server's clock (ms since the epoch). */
  startAtServerMs?: number;
  touchedAt: Date;
}

export interface StepProgress {
  phase: 'warmup' | 'measure';
  second: number;
  /** Counted so far in the measured window. */
  measured: { reads: number; writes: number; errors: number };
  /**
   * The step's ticks' latency deltas summed so far (TickEvent.latency): a running sum, since the
   * coordinator reads only the latest document; absent from an agent older than it, or before any op.
   */
  latency?: TickLatencyDelta;
}

export interface MeasurementDoc {
  /** `${runId}:${seq}:${agent}` */
  _id: string;
  runId: string;
  seq: number;
  agent: string;
  state: 'ready' | 'running' | 'done' | 'failed';
  /** The agent's last tick: what is known of its share should it vanish before 'done'. */
  progress?: StepProgress;
  /** JSON of the EncodedMeasurement (measurement-codec): exact histograms, series, counts. */
  measurement?: string;
  error?: string;
  clockOffsetMs: number;
  touchedAt: Date;
}

export interface ControlCollections {
  db: Db;
  agents: Collection<AgentDoc>;
  runs: Collection<RunDoc>;
  steps: Collection<StepDoc>;
  measurements: Collection<MeasurementDoc>;
}

export function controlCollections(
  client: MongoClient,
  dbName: string = DEFAULT_CONTROL_DB,
): ControlCollections {
  const db = client.db(dbName);
  return {
    db,
    agents: db.collection<AgentDoc>('agents'),
    runs: db.collection<RunDoc>('runs'),
    steps: db.collection<StepDoc>('steps'),
    measurements: db.collection<MeasurementDoc>('measurements'),
  };
}

/** The control database as the role check names it (lib/server/role-check.ts). */
export function controlRole(db: string, controlUri: string): RoleNamespace {
  return { role: 'control-db', db, option: 'option --control-db', at: controlUri };
}

/** TTL indexes (stale documents expire) and the lookups agents poll with. Idempotent. */
export async function ensureControlIndexes(c: ControlCollections): Promise<void> {
  for (const name of ['agents', 'runs', 'steps', 'measurements']) {
    await c.db
      .collection(name)
      .createIndex(
        { touchedAt: 1 },
        { expireAfterSeconds: CONTROL_TTL_SECONDS, name: 'touchedAt_ttl' },
      );
  }
  await c.runs.createIndex({ status: 1, createdAt: 1 });
  await c.measurements.createIndex({ runId: 1, seq: 1 });
}

export const stepId = (runId: string, seq: number): string => `${runId}:${seq}`;
export const measurementId = (runId: string, seq: number, agent: string): string =>
  `${runId}:${seq}:${agent}`;

/** A connection string without its userinfo and secret options: what the control database may hold. */
export function withoutCredentials(uri: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/)(.*)$/i.exec(uri);
  if (!m) return uri;
  let rest = m[2];
  // A password may itself hold '@' or '/': the userinfo ends at the last '@' followed by a host list.
  const at = rest.lastIndexOf('@');
  if (at >= 0 && /^[A-Za-z0-9.\-_:[\],%~]*$/.test(rest.slice(at + 1).split(/[/?#]/)[0]))
    rest = rest.slice(at + 1);
  const [path, query] = rest.split('?', 2);
  if (query === undefined) return `${m[1]}${path}`;
  const kept = query
    .split('&')
    .filter(
      (kv) =>
        !/^(?:[^=]*password|[^=]*secret[^=]*|[^=]*token[^=]*|authMechanismProperties|[^=]*credential[^=]*)=/i.test(
          kv,
        ),
    );
  return `${m[1]}${path}${kept.length > 0 ? `?${kept.join('&')}` : ''}`;
}
