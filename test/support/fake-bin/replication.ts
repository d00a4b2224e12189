/**
 * A replica-set member as far as the tool sees one: replSetInitiate with the validation of
 * src/mongo/db/repl/repl_set_config.cpp and repl_set_config_checks.cpp (validateConfigForInitiate),
 * an election that takes time, a drain period (PRIMARY but not writable), then a writable primary.
 *
 * Simplifications (documented in docs/testing.md): the node that takes replSetInitiate always wins
 * the election; "heartbeats" are one internal command (`_fakeReplSetHeartbeat`, not a real one)
 * that the initiator sends to each member it lists, carrying the config and who is primary.
 * Timing: MONGO_BENCH_FAKE_ELECTION_MS (default 400) from initiate to PRIMARY in drain mode,
 * MONGO_BENCH_FAKE_DRAIN_MS (default 200) from there to writable.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BSON } from 'mongodb';
import type { AccessControl } from './auth';
import type { Logger } from './log';
import type { FakeOptions } from './options';
import { commandOn } from './peers';
import { features } from './version';

type Doc = Record<string, unknown>;

export type NodeState = 'uninitialized' | 'secondary' | 'drain' | 'primary';

export const HEARTBEAT_COMMAND = '_fakeReplSetHeartbeat';

/** kMaxMembers and kMaxVotingMembers (src/mongo/db/repl/repl_set_config.h). */
const MAX_MEMBERS = 50;
const MAX_VOTING_MEMBERS = 7;

const err = (code: number, codeName: string, errmsg: string): Doc => ({
  ok: 0,
  errmsg,
  code,
  codeName,
});

function envMs(name: string, fallback: number): number {
  const raw = process.env[name];
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : fallback;
}

export class ReplicaSetNode {
  state: NodeState = 'uninitialized';
  config?: Doc;
  primary?: string;
  term = 0;
  electionId?: BSON.ObjectId;
  private readonly listeners = new Set<() => void>();
  topologyCounter = 0;

  constructor(
    private readonly options: FakeOptions,
    private readonly log: Logger,
    private readonly access: AccessControl,
  ) {
    this.config = this.storedConfig();
    if (this.config) this.state = 'secondary';
  }

  /**
   * The config is kept in the data directory, as the server keeps it in local.system.replset
   * (ReplicationCoordinatorExternalStateImpl::storeLocalConfigDocument); a member started again reads
   * it back (ReplicationCoordinatorImpl::_startLoadLocalConfig, replication_coordinator_impl.cpp) and
   * is a member of its set again without a new replSetInitiate. Here: <dbpath>/local.system.replset.json.
   */
  private get configFile(): string | undefined {
    return this.options.kind === 'mongod' && this.setName
      ? path.join(this.options.dbPath, 'local.system.replset.json')
      : undefined;
  }

  private storedConfig(): Doc | undefined {
    const file = this.configFile;
    if (!file || !fs.existsSync(file)) return undefined;
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as Doc;
    } catch {
      return undefined;
    }
  }

  private storeConfig(): void {
    const file = this.configFile;
    if (file && this.config && fs.existsSync(this.options.dbPath))
      fs.writeFileSync(file, JSON.stringify(this.config));
  }

  /**
   * A member started with a stored config: it learns the primary from the others (the server's
   * heartbeats); when none answers as primary it stands for election after the usual delay (in a real
   * set the others would have elected one meanwhile: electionTimeoutMillis, 10 s by default).
   */
  rejoin(): void {
    if (!this.config || this.primary) return;
    this.log('I', 'REPL', 21392, 'New replica set config in use', { config: this.config });
    void (async () => {
      for (const host of this.otherHosts(this.config!)) {
        const hello = await commandOn(host, { isMaster: 1 }, 1_000).catch(() => undefined);
        if (hello?.ismaster === true) {
          this.primary = host;
          this.changed();
          return;
        }
      }
      this.scheduleElection();
    })();
  }

  get setName(): string | undefined {
    return this.options.replSet;
  }

  get hosts(): string[] {
    return this.members.map((m) => String(m.host));
  }

  private get members(): Doc[] {
    return Array.isArray(this.config?.members) ? (this.config.members as Doc[]) : [];
  }

  /**
   * hello's member lists (TopologyCoordinator::fillHelloForReplSet, src/mongo/db/repl/topology_coordinator.cpp):
   * hidden (and delayed) members are left out; electable ones (priority > 0, not arbiters) go in `hosts`,
   * arbiters in `arbiters`, the rest (priority 0) in `passives`. Lists that would be empty are absent.
   */
  private memberLists(): Doc {
    const lists: Record<'hosts' | 'passives' | 'arbiters', string[]> = {
      hosts: [],
      passives: [],
      arbiters: [],
    };
    for (const m of this.members) {
      if (m.hidden === true || Number(m.secondaryDelaySecs ?? m.slaveDelay ?? 0) > 0) continue;
      const arbiter = m.arbiterOnly === true;
      const priority = m.priority === undefined ? (arbiter ? 0 : 1) : Number(m.priority);
      (arbiter ? lists.arbiters : priority > 0 ? lists.hosts : lists.passives).push(String(m.host));
    }
    return Object.fromEntries(Object.entries(lists).filter(([, v]) => v.length > 0));
  }

  get memberCount(): number {
    return this.members.length;
  }

  /** The other members that could take over as primary: not arbiters, priority above 0, not hidden. */
  electableOthers(): string[] {
    return this.members
      .filter(
        (m) =>
          m.host !== this.options.me &&
          m.arbiterOnly !== true &&
          m.hidden !== true &&
          (m.priority === undefined ? 1 : Number(m.priority)) > 0,
      )
      .map((m) => String(m.host));
  }

  /** This member is an arbiter of its set's config. */
  get isArbiter(): boolean {
    return this.self?.arbiterOnly === true;
  }

  /** This member's own entry in the config. */
  private get self(): Doc | undefined {
    return this.members.find((m) => m.host === this.options.me);
  }

  /** A node that accepts writes: a standalone, or a primary past its drain period. */
  get writable(): boolean {
    return !this.setName || this.state === 'primary';
  }

  /** Called on every state change (awaitable hello waits for it). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.topologyCounter++;
    for (const l of [...this.listeners]) l();
  }

  /** The replica-set part of hello (src/mongo/db/repl/replication_info.cpp, fillHelloForReplSet). */
  helloFields(legacy: boolean): Doc {
    const primaryKey = legacy ? 'ismaster' : 'isWritablePrimary';
    if (!this.setName) return { [primaryKey]: true };
    if (!this.config) {
      return {
        [primaryKey]: false,
        secondary: false,
        isreplicaset: true,
        info: 'Does not have a valid replica set config',
      };
    }
    const reply: Doc = {
      ...this.memberLists(),
      setName: this.setName,
      setVersion: this.config.version,
      // During drain mode the member state is PRIMARY but it cannot accept writes yet:
      // setIsWritablePrimary(myState.primary() && canAcceptNonLocalWrites) (replication_coordinator_impl.cpp).
      [primaryKey]: this.state === 'primary',
      secondary: this.state === 'secondary',
      me: this.options.me,
    };
    if (this.primary) reply.primary = this.primary;
    // fillHelloForReplSet: arbiterOnly for an arbiter, passive for a priority-0 member, hidden.
    const self = this.self;
    if (self?.arbiterOnly === true) reply.arbiterOnly = true;
    else if (self?.priority !== undefined && Number(self.priority) === 0) reply.passive = true;
    if (self?.hidden === true) reply.hidden = true;
    if (this.electionId && (this.state === 'primary' || this.state === 'drain'))
      reply.electionId = this.electionId;
    return reply;
  }

  /** NotWritablePrimary (10107) for a command that needs a writable primary (error_codes.yml). */
  notWritable(): Doc | undefined {
    if (this.writable) return undefined;
    const name = features(this.options.version).notWritablePrimaryName;
    return err(10107, name.codeName, name.errmsg);
  }

  async initiate(body: Doc): Promise<Doc> {
    if (!this.setName)
      return err(76, 'NoReplicationEnabled', 'This node was not started with replication enabled.');
    if (this.config) return err(23, 'AlreadyInitialized', 'already initialized');
    const given = body.replSetInitiate;
    // An empty/missing config: this node as member 0, then the seed hosts of --replSet <name>/<seeds>
    // as members 1.. (src/mongo/db/repl/repl_set_commands.cpp, CmdReplSetInitiate::run with
    // parseReplSetSeedList; a seed that is this node is skipped).
    const seeds = (this.options.replSetSeeds ?? []).filter((h) => h !== this.options.me);
    const config: Doc =
      given && typeof given === 'object' && Object.keys(given).length > 0
        ? { ...(given as Doc) }
        : {
            _id: this.setName,
            version: 1,
            members: [this.options.me, ...seeds].map((host, i) => ({ _id: i, host })),
          };
    const invalid = this.validate(config);
    if (invalid) return invalid;
    config.version ??= 1;
    if (features(this.options.version).chunksByUuid) config.term ??= 0;
    // checkQuorumForInitiate (repl/check_quorum_for_config_change.cpp): every member must answer.
    const others = this.otherHosts(config);
    const failures: string[] = [];
    await Promise.all(
      others.map(async (host) => {
        try {
          const reply = await commandOn(host, { [HEARTBEAT_COMMAND]: 1, config, primary: null });
          if (reply.ok !== 1) failures.push(`${host} failed with ${String(reply.errmsg)}`);
        } catch (e) {
          failures.push(`${host} failed with ${(e as Error).message}`);
        }
      }),
    );
    if (failures.length > 0) {
      return err(
        74,
        'NodeNotFound',
        `replSetInitiate quorum check failed because not all proposed set members responded affirmatively: ${failures.join(', ')}`,
      );
    }
    this.config = config;
    this.storeConfig();
    this.state = 'secondary';
    this.changed();
    this.log('I', 'REPL', 21392, 'New replica set config in use', { config });
    this.scheduleElection();
    return { ok: 1 };
  }

  private otherHosts(config: Doc): string[] {
    return (config.members as Doc[])
      .map((m) => String(m.host))
      .filter((h) => h !== this.options.me);
  }

  /** The checks of ReplSetConfig::validate (repl_set_config.cpp) and validateConfigForInitiate. */
  private validate(config: Doc): Doc | undefined {
    const invalid = (msg: string) => err(93, 'InvalidReplicaSetConfig', msg);
    if (config._id !== this.setName) {
      return invalid(
        `Attempting to initiate a replica set with name ${String(config._id)}, but command line reports ${this.setName}; rejecting`,
      );
    }
    if (!Array.isArray(config.members) || config.members.length === 0) {
      return invalid('Replica set configuration must contain at least one member');
    }
    const members = config.members as Doc[];
    // ReplSetConfig::_validate (repl_set_config.cpp): kMaxMembers (repl_set_config.h) is 50.
    if (members.length > MAX_MEMBERS) {
      return invalid(
        `Replica set configuration contains ${members.length} members, but must have at least 1 and no more than  ${MAX_MEMBERS}`,
      );
    }
    for (let i = 0; i < members.length; i++) {
      if (typeof members[i].host !== 'string')
        return invalid(`members.${i}.host is missing or not a string`);
      // MemberConfig's constructor (member_config.cpp): an arbiter must vote; a member with a
      // priority must vote. An arbiter's default priority 1 becomes 0.
      const m = members[i];
      const votes = m.votes === undefined ? 1 : Number(m.votes);
      const arbiter = m.arbiterOnly === true;
      const priority = m.priority === undefined ? (arbiter ? 0 : 1) : Number(m.priority);
      if (arbiter && votes === 0) return invalid('Arbiter must vote (cannot have 0 votes)');
      if (priority !== 0 && votes === 0)
        return invalid('priority must be 0 when non-voting (votes:0)');
      if (priority !== 0 && m.hidden === true)
        return invalid('priority must be 0 when hidden=true');
      for (let j = 0; j < i; j++) {
        if (members[j]._id === members[i]._id) {
          return invalid(
            `Found two member configurations with same _id field, members.${j}._id == members.${i}._id == ${String(members[i]._id)}`,
          );
        }
        if (members[j].host === members[i].host) {
          return invalid(
            `Found two member configurations with same host field, members.${j}.host == members.${i}.host == ${String(members[i].host)}`,
          );
        }
      }
    }
    // ReplSetConfig::_validate: all members localhost or none; 1 to kMaxVotingMembers (7) voters;
    // at least one electable member (not an arbiter, priority > 0); no arbiter in a config server set.
    const isLocalHost = (host: string) =>
      /^(localhost|127\.\d+\.\d+\.\d+|::1|\[::1\])(:\d+)?$/.test(host);
    const localhostCount = members.filter((m) => isLocalHost(String(m.host))).length;
    if (localhostCount !== 0 && localhostCount !== members.length) {
      return invalid(
        `Either all host names in a replica set configuration must be localhost references, or none must be; found ${localhostCount} out of ${members.length}`,
      );
    }
    const voterCount = members.filter(
      (m) => (m.votes === undefined ? 1 : Number(m.votes)) !== 0,
    ).length;
    if (voterCount > MAX_VOTING_MEMBERS || voterCount === 0) {
      return invalid(
        `Replica set configuration contains ${voterCount} voting members, but must be at least 1 and no more than ${MAX_VOTING_MEMBERS}`,
      );
    }
    if (
      !members.some(
        (m) => m.arbiterOnly !== true && (m.priority === undefined ? 1 : Number(m.priority)) > 0,
      )
    ) {
      return invalid(
        'Replica set configuration must contain at least one non-arbiter member with priority > 0',
      );
    }
    if (config.configsvr === true && members.some((m) => m.arbiterOnly === true)) {
      return invalid(
        'Arbiters are not allowed in replica set configurations being used for config servers',
      );
    }
    // validateConfigForInitiate: exactly one member must be this node.
    if (!members.some((m) => m.host === this.options.me)) {
      return err(
        74,
        'NodeNotFound',
        `No host described in new configuration with {version: 1, term: 0} for replica set ${this.setName} maps to this node`,
      );
    }
    const configsvrNode = this.options.clusterRole === 'configsvr';
    if (config.configsvr === true && !configsvrNode) {
      return invalid(
        'Nodes being used for config servers must be started with the --configsvr flag',
      );
    }
    if (configsvrNode && config.configsvr !== true) {
      return invalid(
        'Nodes started with the --configsvr flag must have configsvr:true in their config',
      );
    }
    return undefined;
  }

  private scheduleElection(): void {
    setTimeout(
      () => {
        // A primary learnt of meanwhile (a member started again hears from it) holds the set.
        if (this.primary && this.primary !== this.options.me) return;
        this.becomePrimary();
      },
      envMs('MONGO_BENCH_FAKE_ELECTION_MS', 400),
    );
  }

  /** Wins an election: PRIMARY in drain mode at once, writable after the drain delay; tells the others. */
  private becomePrimary(): void {
    const drainMs = envMs('MONGO_BENCH_FAKE_DRAIN_MS', 200);
    this.term++;
    this.electionId = new BSON.ObjectId();
    this.state = 'drain';
    this.primary = this.options.me;
    this.changed();
    this.log('I', 'REPL', 21358, 'Replica set state transition', {
      newState: 'PRIMARY',
      oldState: 'SECONDARY',
    });
    this.tellOthers();
    setTimeout(() => {
      if (this.state !== 'drain') return;
      this.state = 'primary';
      this.changed();
      // The line mongodb-memory-server waits for (logged when drain mode ends).
      this.log(
        'I',
        'REPL',
        21331,
        'Transition to primary complete; database writes are now permitted',
        {},
      );
    }, drainMs);
  }

  /**
   * replSetStepDown, as CmdReplSetStepDown::run checks it (src/mongo/db/repl/repl_set_commands.cpp,
   * 4.4+): the period is the first field (0 or not a number: 60; below 0: BadValue "stepdown period
   * must be a positive integer"); `secondaryCatchUpPeriodSecs` defaults to 10 (0 with `force`), below 0
   * is BadValue "secondaryCatchUpPeriodSecs period must be a positive or absent", and a period shorter
   * than it is BadValue "stepdown period must be longer than secondaryCatchUpPeriodSecs". Then
   * ReplicationCoordinatorImpl::stepDown (replication_coordinator_impl.cpp): a node that is not primary
   * answers NotWritablePrimary "not primary so can't step down"; one with an electable secondary that
   * has caught up steps down at once (stand-in secondaries are always caught up) and that member is
   * elected; with none it waits secondaryCatchUpPeriodSecs and answers ExceededTimeLimit (262), or, with
   * `force`, steps down anyway. Success answers ok: 1 on the same connection (log 21580 "replSetStepDown
   * command completed"): since 4.2 the primary no longer closes every connection as it steps down.
   * After the period a node that sees no primary stands for election again.
   */
  async stepDown(body: Doc): Promise<Doc> {
    const badValue = (msg: string) => err(2, 'BadValue', msg);
    if (!this.setName) return err(76, 'NoReplicationEnabled', 'not running with --replSet');
    if (!this.config) return err(94, 'NotYetInitialized', 'no replset config has been received');
    const force = Boolean(body.force);
    const first = Number(Object.values(body)[0]);
    const periodSecs = !Number.isFinite(first) || Math.trunc(first) === 0 ? 60 : Math.trunc(first);
    if (periodSecs < 0) return badValue('stepdown period must be a positive integer');
    const catchUpSecs =
      body.secondaryCatchUpPeriodSecs === undefined
        ? force
          ? 0
          : 10
        : Math.trunc(Number(body.secondaryCatchUpPeriodSecs));
    if (catchUpSecs < 0)
      return badValue('secondaryCatchUpPeriodSecs period must be a positive or absent');
    if (periodSecs < catchUpSecs)
      return badValue('stepdown period must be longer than secondaryCatchUpPeriodSecs');
    this.log(
      'I',
      'REPL',
      21579,
      'Attempting to step down in response to replSetStepDown command',
      {},
    );
    if (this.state !== 'primary' && this.state !== 'drain') {
      return err(
        10107,
        features(this.options.version).notWritablePrimaryName.codeName,
        "not primary so can't step down",
      );
    }
    let successor: string | undefined;
    for (const host of this.electableOthers()) {
      const users = this.access.exportUsers();
      const reply = await commandOn(host, {
        [HEARTBEAT_COMMAND]: 1,
        config: this.config,
        primary: host,
        stepUp: true,
        users,
      }).catch(() => undefined);
      if (reply?.ok === 1) {
        successor = host;
        break;
      }
    }
    if (!successor && !force) {
      await new Promise((resolve) => setTimeout(resolve, catchUpSecs * 1000));
      return err(
        262,
        'ExceededTimeLimit',
        `No electable secondaries caught up as of ${new Date().toISOString()}Please use the replSetStepDown command with the argument {force: true} to force node to step down.`,
      );
    }
    this.state = 'secondary';
    this.primary = successor;
    this.changed();
    this.log('I', 'REPL', 21358, 'Replica set state transition', {
      newState: 'SECONDARY',
      oldState: 'PRIMARY',
    });
    setTimeout(() => {
      if (this.state === 'secondary' && !this.primary) this.becomePrimary();
    }, periodSecs * 1000).unref();
    this.log('I', 'REPL', 21580, 'replSetStepDown command completed', {});
    return { ok: 1 };
  }

  /** Sends the config, the primary and the users (replicated admin.system.users) to the other members. */
  tellOthers(): void {
    if (!this.config) return;
    for (const host of this.otherHosts(this.config)) {
      void commandOn(host, {
        [HEARTBEAT_COMMAND]: 1,
        config: this.config,
        primary: this.primary,
        users: this.access.exportUsers(),
      }).catch(() => undefined);
    }
  }

  /** Another member told us the config (and who is primary): become a SECONDARY of that set. */
  heartbeat(body: Doc): Doc {
    if (!this.setName)
      return err(76, 'NoReplicationEnabled', 'This node was not started with replication enabled.');
    const config = body.config as Doc | undefined;
    if (!config || config._id !== this.setName) {
      return err(
        93,
        'InvalidReplicaSetConfig',
        `replica set name ${String(config?._id)} does not match ${this.setName}`,
      );
    }
    const wasInitialized = !!this.config;
    this.config = config;
    this.storeConfig();
    if (this.state === 'uninitialized') this.state = 'secondary';
    if (typeof body.primary === 'string') this.primary = body.primary;
    this.access.importUsers(body.users);
    this.changed();
    if (!wasInitialized) this.log('I', 'REPL', 21392, 'New replica set config in use', { config });
    // The primary stepping down names this member its successor (replSetStepDown above).
    if (body.stepUp === true && body.primary === this.options.me && this.state === 'secondary')
      this.becomePrimary();
    return { ok: 1 };
  }

  /** replSetGetStatus (repl/replication_coordinator_impl.cpp processReplSetGetStatus). */
  status(): Doc {
    if (!this.setName) return err(76, 'NoReplicationEnabled', 'not running with --replSet');
    if (!this.config) return err(94, 'NotYetInitialized', 'no replset config has been received');
    const myState = this.state === 'secondary' ? 2 : 1;
    const members = (this.config.members as Doc[]).map((m) => {
      const self = m.host === this.options.me;
      const primary = self ? myState === 1 : m.host === this.primary;
      return {
        _id: m._id,
        name: m.host,
        health: 1,
        state: primary ? 1 : 2,
        stateStr: primary ? 'PRIMARY' : 'SECONDARY',
        self,
      };
    });
    return {
      set: this.setName,
      date: new Date(),
      myState,
      term: BSON.Long.fromNumber(this.term),
      members,
      ok: 1,
    };
  }
}
