/**
 * The members of a deployment mongo-bench launched, as the run's fault events see them: each process
 * (name, address, the replica set and shard it belongs to) and the control over it (a signal, a start
 * with the same arguments). The launcher (lib/launcher) owns the processes; lib/deployment makes a
 * MemberControl of its group and puts it on the Target; lib/run's kill, terminate and restart events
 * use it. An existing deployment (--uri) and the embedded server have none.
 *
 * A member is named by `member` and, in a sharded cluster, `shard`:
 * - `member=HOST:PORT`: that process (any launched mongod or mongos);
 * - `member=primary` / `member=secondary` (the first secondary found): asked of the set's members
 *   (hello) when the event fires;
 * - `member=N`: the set's member N, in its replica-set config's order (0-based, its `_id`);
 * - `shard=N` (0-based, in addShard's order) or `shard=config`: the replica set `member` is taken
 *   from in a sharded cluster (required there unless `member` is HOST:PORT);
 * - no `member`: a standalone's one mongod.
 */

/** One launched process, as the events name it. */
export interface MemberInfo {
  /** The launcher's name: "mongod", "rs0-1", "shard1-0", "cfg-2", "mongos-0". */
  name: string;
  kind: 'mongod' | 'mongos';
  /** host:port */
  address: string;
  /** The replica set it is a member of. */
  replSet?: string;
}

/** The deployment's shape: its processes, its replica sets (members in config order) and its shards. */
export interface MemberLayout {
  members: MemberInfo[];
  /** Replica sets by name: their members' process names, in config order. */
  replicaSets: { name: string; role: 'replset' | 'config' | 'shard'; processes: string[] }[];
  /** The shards' replica-set names, in addShard's order. */
  shards: string[];
}

/** What a fault event asks for: `member` and `shard`, as given (checked by parseMemberSelector). */
export interface MemberSelector {
  member?: string;
  shard?: string;
}

/** Where the member is, once the selector is read against the layout. */
export type MemberChoice =
  | { kind: 'process'; name: string }
  | { kind: 'role'; role: 'primary' | 'secondary'; replSet: string; processes: string[] };

/** The control a launched deployment gives its events. */
export interface MemberControl {
  readonly layout: MemberLayout;
  /** The pid of the member's current process, and whether it runs. */
  state(name: string): { pid: number; running: boolean };
  /** hello on the member (direct); undefined when it does not answer. */
  hello(name: string): Promise<Record<string, unknown> | undefined>;
  /** Sends the signal and waits up to `waitMs` for the exit; `exited`: false when it still runs. */
  signal(
    name: string,
    signal: 'SIGKILL' | 'SIGTERM',
    waitMs: number,
  ): Promise<{ pid: number; exited: boolean; how?: string }>;
  /** Starts the exited member again with the same arguments, once it answers hello; its new pid. */
  restart(name: string): Promise<{ pid: number }>;
}

const ROLE_WORDS = ['primary', 'secondary'] as const;

/** The selector's own syntax (before any deployment is known); the problem in words, or undefined. */
export function selectorProblem(selector: MemberSelector): string | undefined {
  const { member, shard } = selector;
  if (
    member !== undefined &&
    !/^[^\s/,]+:\d+$/.test(member) &&
    !/^\d+$/.test(member) &&
    !(ROLE_WORDS as readonly string[]).includes(member)
  )
    return `member: expected HOST:PORT, primary, secondary or a member's number (0, 1, ...), got ${JSON.stringify(member)}`;
  if (shard !== undefined && !/^\d+$/.test(shard) && shard !== 'config')
    return `shard: expected a shard's number (0, 1, ...) or config, got ${JSON.stringify(shard)}`;
  return undefined;
}

/** Reads the selector against the layout; a string says why it names no member of it. */
export function chooseMember(
  selector: MemberSelector,
  layout: MemberLayout,
): MemberChoice | string {
  const { member, shard } = selector;
  const addresses = () => layout.members.map((m) => m.address).join(', ');
  if (member !== undefined && member.includes(':')) {
    const found = layout.members.find((m) => m.address === member);
    if (!found) return `member: ${member} is not a process this run launched (${addresses()})`;
    return { kind: 'process', name: found.name };
  }
  const set = chooseSet(shard, layout);
  if (typeof set === 'string') return set;
  if (set === undefined) {
    const mongods = layout.members.filter((m) => m.kind === 'mongod');
    if (member === undefined && mongods.length === 1)
      return { kind: 'process', name: mongods[0].name };
    return `member: a standalone has one mongod: give no member, or its HOST:PORT (${addresses()})`;
  }
  if (member === undefined)
    return `member: required: which member of replica set ${set.name} (primary, secondary, 0..${set.processes.length - 1} or HOST:PORT)`;
  if (member === 'primary' || member === 'secondary')
    return { kind: 'role', role: member, replSet: set.name, processes: set.processes };
  const index = Number(member);
  if (index >= set.processes.length)
    return `member: replica set ${set.name} has members 0..${set.processes.length - 1}, got ${member}`;
  return { kind: 'process', name: set.processes[index] };
}

/** The replica set a selector reads its member from; undefined for a standalone. */
function chooseSet(
  shard: string | undefined,
  layout: MemberLayout,
): MemberLayout['replicaSets'][number] | undefined | string {
  if (layout.shards.length > 0) {
    if (shard === undefined)
      return `shard: required in a sharded cluster: 0..${layout.shards.length - 1} or config (or member=HOST:PORT)`;
    const name =
      shard === 'config'
        ? layout.replicaSets.find((rs) => rs.role === 'config')?.name
        : layout.shards[Number(shard)];
    const set = layout.replicaSets.find((rs) => rs.name === name);
    return (
      set ?? `shard: the cluster has shards 0..${layout.shards.length - 1} and config, got ${shard}`
    );
  }
  if (shard !== undefined) return 'shard: only in a sharded cluster';
  return layout.replicaSets[0];
}
