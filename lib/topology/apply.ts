/**
 * Applies a setup plan through the Node driver: the same steps, the same checks and the same
 * order as the mongosh scripts (see mongosh-runtime.ts; keep the two in step). Idempotent: a step
 * whose check finds it done is skipped. Every command it sends is reported to `onCommand` (the
 * later command-log.txt); the first failure stops it with an error that names the step.
 */
import { MongoClient, MongoClientOptions } from 'mongodb';
import { RunError } from '../config/errors';
import { Doc, PlanProcess, SetupPlan, SetupStep, StepCheck, withCredentials } from './plan';
import { dropUndefined, messageOf } from '../common/values';

/** What applyPlan needs from a connection: run a command, throw when the server says ok: 0. */
export interface CommandRunner {
  command(db: string, command: Doc): Promise<Doc>;
  /**
   * Access control: true when this connection logged in as the plan's admin user, false when it
   * runs without credentials (the localhost exception, before a first user exists).
   */
  authenticated?: boolean;
}

/** Returns a runner connected to the step's target (a replica-set member or a mongos). */
export type Connect = (target: PlanProcess) => Promise<CommandRunner>;

export interface CommandLogEntry {
  /** 1-based step number and the step count, as the scripts print them. */
  step: number;
  steps: number;
  description: string;
  target: string;
  address?: string;
  db: string;
  command: Doc;
  /** check: a read-only test; apply: the step's own command; wait: polling for a PRIMARY. */
  purpose: 'check' | 'apply' | 'wait';
  ok: boolean;
  error?: string;
  durationMs: number;
  /** For waits: how many times hello was sent. */
  attempts?: number;
}

export interface StepOutcome {
  step: SetupStep;
  status: 'applied' | 'skipped';
}

export interface ApplyOptions {
  onCommand?: (entry: CommandLogEntry) => void;
  onStep?: (event: {
    step: number;
    steps: number;
    description: string;
    status: 'running' | StepOutcome['status'];
  }) => void;
  /** Overrides every step's waitFor.timeoutMs (bounded wait for a PRIMARY). */
  primaryTimeoutMs?: number;
  pollIntervalMs?: number;
  /**
   * The admin user for a plan with access control: fills the credential stand-ins of its createUser
   * steps. The command log keeps the stand-ins, so the password is never logged.
   */
  credentials?: { username: string; password: string };
  /** Runs before a step is started (after the previous one is done): a caller's own work between steps. */
  beforeStep?: (step: SetupStep) => Promise<void>;
}

export class SetupStepError extends RunError {
  constructor(
    message: string,
    readonly stepNumber: number,
    readonly step: SetupStep,
  ) {
    super(message);
    this.name = 'SetupStepError';
  }
}

/** The plan or any list of its steps (e.g. dataDistributionSteps for an existing cluster). */
export type ApplicablePlan = Pick<SetupPlan, 'steps'> & { targets?: SetupPlan['targets'] };

export async function applyPlan(
  plan: ApplicablePlan,
  connect: Connect,
  options: ApplyOptions = {},
): Promise<StepOutcome[]> {
  const runners = new Map<string, CommandRunner>();
  const outcomes: StepOutcome[] = [];
  const total = plan.steps.length;
  for (let i = 0; i < total; i++) {
    const step = plan.steps[i];
    const number = i + 1;
    const target: PlanProcess = plan.targets?.[step.target] ?? {
      name: step.target,
      kind: 'mongos',
      address: '',
    };
    const failure = (message: string) =>
      new SetupStepError(
        `setup step ${number}/${total} "${step.description}" on ${step.target}${target.address ? ` (${target.address})` : ''} failed: ${message}`,
        number,
        step,
      );
    await options.beforeStep?.(step);
    options.onStep?.({
      step: number,
      steps: total,
      description: step.description,
      status: 'running',
    });

    const connectTo = async (key: string, to: PlanProcess): Promise<CommandRunner> => {
      let r = runners.get(key);
      if (!r) {
        try {
          r = await connect(to);
        } catch (err) {
          throw failure(
            `could not connect${to.address !== target.address ? ` to ${to.address}` : ''}: ${messageOf(err)}`,
          );
        }
        runners.set(key, r);
      }
      return r;
    };
    let runner = await connectTo(step.target, target);
    let runnerKey = step.target;
    let address = target.address;
    if (step.onPrimary) {
      // createUser must run on the PRIMARY, which the target names once the election is over.
      let hello: Doc;
      try {
        hello = await helloOf(runner);
      } catch (err) {
        throw failure(`could not find the PRIMARY: ${messageOf(err)}`);
      }
      if (!isWritablePrimary(hello)) {
        if (typeof hello.primary !== 'string' || hello.primary === '')
          throw failure('the set has no PRIMARY to run this on');
        address = hello.primary;
        runnerKey = `${step.target} -> ${address}`;
        runner = await connectTo(runnerKey, { ...target, address });
      }
    }
    const send = async (
      db: string,
      command: Doc,
      purpose: CommandLogEntry['purpose'],
    ): Promise<Doc> => {
      const started = Date.now();
      const entry = {
        step: number,
        steps: total,
        description: step.description,
        target: step.target,
        address,
        db,
        command,
        purpose,
      };
      try {
        const wire =
          purpose === 'apply' && options.credentials
            ? withCredentials(command, options.credentials)
            : command;
        const reply = await runner.command(db, wire);
        const writeError = writeErrorOf(reply);
        if (writeError) throw new Error(writeError);
        options.onCommand?.({ ...entry, ok: true, durationMs: Date.now() - started });
        return reply;
      } catch (err) {
        options.onCommand?.({
          ...entry,
          ok: false,
          error: messageOf(err),
          durationMs: Date.now() - started,
        });
        throw err;
      }
    };

    let done = false;
    if (step.check) {
      try {
        done = await isDone(step.check, send, runner.authenticated);
      } catch (err) {
        throw failure(
          err instanceof CheckConflict
            ? err.message
            : `could not check whether it is already done: ${messageOf(err)}`,
        );
      }
    }
    if (!done) {
      if (step.command.createUser !== undefined && !options.credentials) {
        throw failure(
          'the plan creates the admin user, but no credentials were given (ApplyOptions.credentials)',
        );
      }
      try {
        await send(step.db, step.command, 'apply');
      } catch (err) {
        throw failure(messageOf(err));
      }
      // A new user ends the localhost exception: the next step connects again and logs in.
      if (step.command.createUser !== undefined && runner.authenticated === false) {
        runners.delete(runnerKey);
        runners.delete(step.target);
      }
    }
    if (step.waitFor) {
      const timeoutMs = options.primaryTimeoutMs ?? step.waitFor.timeoutMs;
      // The member the next step writes to must accept writes: the target, or the PRIMARY it names.
      const primaryRunner = async (primary: string): Promise<CommandRunner> => {
        const key = `${step.target} -> ${primary}`;
        let r = runners.get(key);
        if (!r) {
          r = await connect({ ...target, address: primary });
          runners.set(key, r);
        }
        return r;
      };
      const found = await waitForPrimary(
        runner,
        primaryRunner,
        timeoutMs,
        options.pollIntervalMs ?? 500,
        (attempts, ok, durationMs, error) =>
          options.onCommand?.({
            step: number,
            steps: total,
            description: step.description,
            target: step.target,
            address: target.address,
            db: 'admin',
            command: { hello: 1 },
            purpose: 'wait',
            ok,
            error,
            durationMs,
            attempts,
          }),
      );
      if (!found)
        throw failure(
          `no PRIMARY in replica set ${step.waitFor.setName} after ${timeoutMs / 1000} s; look at the members' logs`,
        );
    }
    const status = done ? 'skipped' : 'applied';
    outcomes.push({ step, status });
    options.onStep?.({ step: number, steps: total, description: step.description, status });
  }
  return outcomes;
}

/** A check that found the step done in a way that conflicts with the plan (e.g. another shard key). */
class CheckConflict extends Error {}

type Send = (db: string, command: Doc, purpose: CommandLogEntry['purpose']) => Promise<Doc>;

async function findOne(
  send: Send,
  db: string,
  collection: string,
  filter: Doc,
): Promise<Doc | null> {
  const reply = await send(db, { find: collection, filter, limit: 1 }, 'check');
  const batch = (reply.cursor as { firstBatch?: Doc[] } | undefined)?.firstBatch ?? [];
  return batch[0] ?? null;
}

async function shardedCollection(send: Send, ns: string): Promise<Doc | null> {
  const doc = await findOne(send, 'config', 'collections', { _id: ns });
  return doc && doc.dropped !== true && doc.unsplittable !== true ? doc : null;
}

async function findChunk(send: Send, ns: string, bound: Doc): Promise<Doc | null> {
  const coll = await shardedCollection(send, ns);
  const filter: Doc = coll?.uuid ? { $or: [{ uuid: coll.uuid }, { ns }] } : { ns };
  return findOne(send, 'config', 'chunks', { ...filter, ...bound });
}

function sameValue(actual: unknown, expected: unknown): boolean {
  return (
    actual === expected ||
    (typeof expected === 'number' &&
      actual !== null &&
      actual !== undefined &&
      Number(actual) === expected)
  );
}

async function isDone(
  check: StepCheck,
  send: Send,
  authenticated: boolean | undefined,
): Promise<boolean> {
  switch (check.kind) {
    case 'replSetInitiated':
      if (authenticated === false) return replSetInitiatedWithoutUser(send, check.setName);
      return (await findOne(send, 'local', 'system.replset', { _id: check.setName })) !== null;
    case 'userAuthenticated':
      return authenticated === true;
    case 'shardAdded': {
      const reply = await send('admin', { listShards: 1 }, 'check');
      const shards = (reply.shards as Doc[] | undefined) ?? [];
      return shards.some((s) => s._id === check.shardId);
    }
    case 'databaseExists': {
      const doc = await findOne(send, 'config', 'databases', { _id: check.db });
      return doc !== null && (check.partitioned !== true || doc.partitioned === true);
    }
    case 'collectionChunkSize': {
      const coll = await shardedCollection(send, check.ns);
      return coll !== null && sameValue(coll.maxChunkSizeBytes, check.bytes);
    }
    case 'collectionSharded': {
      const coll = await shardedCollection(send, check.ns);
      if (!coll) return false;
      if (JSON.stringify(coll.key) !== JSON.stringify(check.key)) {
        throw new CheckConflict(
          `${check.ns} is already sharded on ${JSON.stringify(coll.key)}, not ${JSON.stringify(check.key)}: drop it or use that key`,
        );
      }
      return true;
    }
    case 'settingEquals': {
      const doc = await findOne(send, 'config', 'settings', { _id: check.id });
      return doc !== null && sameValue(doc[check.field], check.value);
    }
    case 'chunkBoundary':
      return (await findChunk(send, check.ns, { min: check.min })) !== null;
    case 'chunkOnShard': {
      const chunk = await findChunk(send, check.ns, check.chunk);
      return chunk !== null && chunk.shard === check.shard;
    }
    case 'balancerStopped':
      return (await send('admin', { balancerStatus: 1 }, 'check')).mode === 'off';
    case 'balancerRunning':
      return (await send('admin', { balancerStatus: 1 }, 'check')).mode === 'full';
    case 'balancerStoppedOrDistributed': {
      if ((await send('admin', { balancerStatus: 1 }, 'check')).mode === 'off') return true;
      for (const c of check.chunks) {
        const chunk = await findChunk(send, check.ns, c.chunk);
        if (chunk === null || chunk.shard !== c.shard) return false;
      }
      return true;
    }
  }
}

/**
 * hello, or isMaster where hello is unknown: hello exists from 4.4.2, and 4.4.0/4.4.1 answer it
 * with CommandNotFound (59) (src/mongo/db/repl/replication_info.cpp, r4.4.2 adds CmdHello).
 */
export async function helloOf(runner: Pick<CommandRunner, 'command'>): Promise<Doc> {
  try {
    return await runner.command('admin', { hello: 1 });
  } catch (err) {
    if ((err as { code?: number }).code !== 59) throw err;
    return runner.command('admin', { isMaster: 1 });
  }
}

/** hello's isWritablePrimary, or isMaster's ismaster: false while a new primary drains its oplog buffer. */
export function isWritablePrimary(hello: Doc): boolean {
  return hello.isWritablePrimary === true || hello.ismaster === true;
}

/** Under the localhost exception local.system.replset is out of reach; replSetGetStatus is allowed. */
async function replSetInitiatedWithoutUser(send: Send, setName: string): Promise<boolean> {
  try {
    const status = await send('admin', { replSetGetStatus: 1 }, 'check');
    return status.set === setName;
  } catch (err) {
    if ((err as { code?: number }).code === 94) return false; // NotYetInitialized
    if ((err as { code?: number }).code === 13) {
      throw new CheckConflict(
        'not authorized: a user exists, but logging in failed; check the user name and password',
      );
    }
    throw err;
  }
}

/**
 * Polls hello until the member, or the PRIMARY it names, says isWritablePrimary: a member that
 * only names a primary (or a primary still in drain mode) is not enough, since the next step
 * writes there. False after timeoutMs. Logs the last poll.
 */
async function waitForPrimary(
  runner: CommandRunner,
  primaryRunner: (address: string) => Promise<CommandRunner>,
  timeoutMs: number,
  pollMs: number,
  log: (attempts: number, ok: boolean, durationMs: number, error?: string) => void,
): Promise<boolean> {
  const started = Date.now();
  let attempts = 0;
  let lastError: string | undefined;
  for (;;) {
    attempts++;
    try {
      const hello = await helloOf(runner);
      lastError = undefined;
      let writable = isWritablePrimary(hello);
      if (!writable && typeof hello.primary === 'string' && hello.primary !== '') {
        writable = isWritablePrimary(await helloOf(await primaryRunner(hello.primary)));
        if (!writable) lastError = `${hello.primary} is PRIMARY but not writable yet (drain mode)`;
      }
      if (writable) {
        log(attempts, true, Date.now() - started);
        return true;
      }
    } catch (err) {
      lastError = messageOf(err); // the member may still be starting: try again
    }
    if (Date.now() - started >= timeoutMs) {
      log(attempts, false, Date.now() - started, lastError ?? 'no PRIMARY yet');
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

function writeErrorOf(reply: Doc): string | undefined {
  const writeErrors = reply.writeErrors as { errmsg?: string }[] | undefined;
  if (writeErrors && writeErrors.length > 0) return writeErrors[0].errmsg ?? 'write error';
  const wce = reply.writeConcernError as { errmsg?: string } | undefined;
  return wce ? (wce.errmsg ?? 'write concern error') : undefined;
}

export interface DriverConnector {
  connect: Connect;
  close(): Promise<void>;
}

/**
 * Connects with the Node driver: directly to each target's address, or to one `uri` for every
 * target (an existing cluster's mongos, or a test double).
 */
export function driverConnector(
  options: {
    uri?: string;
    clientOptions?: MongoClientOptions;
    credentials?: { username: string; password: string };
  } = {},
): DriverConnector {
  const clients: MongoClient[] = [];
  const open = async (uri: string, extra: MongoClientOptions): Promise<MongoClient> => {
    const client = new MongoClient(uri, {
      serverSelectionTimeoutMS: 10_000,
      ...options.clientOptions,
      ...extra,
    });
    clients.push(client);
    await client.connect();
    return client;
  };
  return {
    async connect(target) {
      const uri = options.uri ?? `mongodb://${target.address}/?directConnection=true`;
      const runner = (client: MongoClient, authenticated?: boolean): CommandRunner => ({
        command: (db, command) => client.db(db).command(command),
        ...dropUndefined({ authenticated }),
      });
      if (!options.credentials) return runner(await open(uri, {}));
      // Log in when the user exists; without one yet, go on under the localhost exception.
      try {
        return runner(await open(uri, { auth: options.credentials, authSource: 'admin' }), true);
      } catch (err) {
        if ((err as { code?: number }).code !== 18) throw err;
      }
      return runner(await open(uri, {}), false);
    },
    async close() {
      await Promise.all(clients.splice(0).map((c) => c.close()));
    },
  };
}

/** One line per command for command-log.txt: "[3/12] mongos-0 127.0.0.1:27017 admin {addShard: ...} -> ok (4 ms)". */
export function formatCommandLogEntry(e: CommandLogEntry): string {
  const where = `${e.target}${e.address ? ` ${e.address}` : ''}`;
  const result = e.ok ? 'ok' : `failed: ${e.error}`;
  const attempts = e.attempts !== undefined ? `, ${e.attempts} poll(s)` : '';
  return `[${e.step}/${e.steps}] ${e.purpose} ${where} ${e.db} ${JSON.stringify(e.command)} -> ${result} (${e.durationMs} ms${attempts})`;
}
