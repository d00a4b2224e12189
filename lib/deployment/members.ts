/**
 * A launched deployment's members for the run's fault events (lib/server/members.ts): its layout, from
 * the topology plan, and the control over its processes, through the launcher's group (a signal to one
 * process, a start with the same arguments).
 */
import type { LaunchedGroup } from '../launcher';
import { helloOnce } from '../launcher/ports';
import type { MemberControl, MemberLayout } from '../server/members';
import type { Topology } from '../topology';

/** The processes, replica sets and shards of a planned topology. */
export function memberLayout(topology: Topology): MemberLayout {
  return {
    members: topology.processes.map((p) => ({
      name: p.name,
      kind: p.kind,
      address: p.address,
      ...(p.replSet !== undefined ? { replSet: p.replSet } : {}),
    })),
    replicaSets: topology.replicaSets.map((rs) => ({
      name: rs.name,
      role: rs.role,
      processes: [...rs.processes],
    })),
    shards: topology.shards.map((s) => s.replicaSet),
  };
}

/** How long a hello of an event waits for a member. */
const HELLO_TIMEOUT_MS = 2_000;

/** The events' control over the group's processes; a restart waits `readyTimeoutMs` for hello. */
export function memberControl(
  group: LaunchedGroup,
  layout: MemberLayout,
  readyTimeoutMs: number,
): MemberControl {
  const process = (name: string) => {
    const found = group.processes.find((p) => p.name === name);
    if (!found) throw new Error(`no launched process ${name}`);
    return found;
  };
  return {
    layout,
    state: (name) => ({ pid: process(name).pid, running: group.isRunning(name) }),
    hello: (name) => {
      const p = process(name);
      return helloOnce(p.host, p.port, HELLO_TIMEOUT_MS);
    },
    async signal(name, signal, waitMs) {
      const { pid, exit } = await group.signalProcess(name, signal, waitMs);
      if (!exit) return { pid, exited: false };
      const how = exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
      return { pid, exited: true, how };
    },
    async restart(name) {
      const started = await group.restartProcess(name, { readyTimeoutMs });
      return { pid: started.pid };
    },
  };
}
