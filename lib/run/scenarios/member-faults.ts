/**
 * kill, terminate and restart: a launched member's process signalled (SIGKILL: no shutdown at all;
 * SIGTERM: the server's clean shutdown, a primary stepping down first) and started again with the same
 * arguments, through the deployment's MemberControl (lib/server/members.ts; lib/deployment gives it
 * from the launcher's group). Only on a deployment mongo-bench launched: the run's plan refuses them on
 * any other (./member-check.ts), and without a control here they are recorded as not sent.
 *
 * A member named by role (primary, secondary) is found when the event fires (hello on each member of
 * its set). A member left dead is harm: kill and terminate are held as faults (./faults.ts) whose undo
 * starts the member again, after `for`, else at the end of what the event belongs to, and on every way
 * a run ends (the FaultKeeper's undoAll).
 */
import { chooseMember, type MemberControl } from '../../server/members';
import type { ScenarioEvent } from '../../result';
import type { BackgroundEventSpec } from './event-spec';

/**
 * How long a signalled member may take to exit: a SIGTERM'd primary first tries to step down and then
 * quiesces (shutdownTimeoutMillisForSignaledShutdown; a 4.4 primary waits up to 10 s for a caught-up
 * secondary), then writes its last checkpoint; the launcher's own stop grace (lib/launcher/launch.ts).
 */
const EXIT_WAIT_MS = 120_000;

type MemberEvent = Extract<BackgroundEventSpec, { action: 'kill' | 'terminate' | 'restart' }>;

export function isMemberEvent(event: BackgroundEventSpec): event is MemberEvent {
  return event.action === 'kill' || event.action === 'terminate' || event.action === 'restart';
}

/** The process the event acts on now: its name, or why none (no primary found, not launched). */
async function findMember(event: MemberEvent, control: MemberControl): Promise<string> {
  const choice = chooseMember(event.member, control.layout);
  if (typeof choice === 'string') throw new Error(`not sent: ${choice}`);
  if (choice.kind === 'process') return choice.name;
  const hellos = await Promise.all(
    choice.processes.map(async (name) => ({ name, hello: await control.hello(name) })),
  );
  const found = hellos.find(({ hello }) =>
    choice.role === 'primary'
      ? hello?.isWritablePrimary === true || hello?.ismaster === true
      : hello?.secondary === true,
  );
  if (!found)
    throw new Error(
      `not sent: no member of replica set ${choice.replSet} answers as ${choice.role} (${choice.processes.join(', ')})`,
    );
  return found.name;
}

function addressOf(control: MemberControl, name: string): string {
  return control.layout.members.find((m) => m.name === name)?.address ?? name;
}

/** Starts the member again unless it runs (a restart event came first); its new pid in the record. */
async function restartIfDown(
  control: MemberControl,
  name: string,
  record: ScenarioEvent,
): Promise<void> {
  if (control.state(name).running) return;
  const { pid } = await control.restart(name);
  if (record.member) record.member.restartedPid = pid;
}

/**
 * kill or terminate: the signal sent and the exit awaited; returns the fault held (./faults.ts), whose
 * undo starts the member again. Throws (the record's error) when there is nothing to hold.
 */
export async function signalMember(
  event: MemberEvent & { action: 'kill' | 'terminate' },
  record: ScenarioEvent,
  control: MemberControl | undefined,
): Promise<{ what: string; undo: () => Promise<void>; lasts?: number }> {
  if (!control)
    throw new Error(
      'not sent: the deployment was not launched by mongo-bench (no process to signal)',
    );
  const name = await findMember(event, control);
  const signal = event.action === 'kill' ? 'SIGKILL' : 'SIGTERM';
  record.signal = signal;
  const before = control.state(name);
  record.member = { name, address: addressOf(control, name), pid: before.pid };
  if (!before.running)
    throw new Error(`not sent: ${name} is not running (pid ${before.pid} exited)`);
  const sent = await control.signal(name, signal, EXIT_WAIT_MS);
  const fault = {
    what: `${name} (${record.member.address}) started again with the same arguments`,
    undo: () => restartIfDown(control, name, record),
    ...(event.for !== undefined ? { lasts: event.for } : {}),
  };
  if (!sent.exited) {
    // Still shutting down: held all the same, so that it is started again once it is gone.
    record.error = `${name} (pid ${sent.pid}) had not exited ${EXIT_WAIT_MS / 1000} s after ${signal}`;
  }
  return fault;
}

/** restart: SIGTERM first when the member runs, then the same arguments started again; fills the record. */
export async function restartMember(
  event: MemberEvent,
  record: ScenarioEvent,
  control: MemberControl | undefined,
): Promise<void> {
  if (!control)
    throw new Error(
      'not sent: the deployment was not launched by mongo-bench (no process to start)',
    );
  const name = await findMember(event, control);
  const before = control.state(name);
  record.member = { name, address: addressOf(control, name), pid: before.pid };
  if (before.running) {
    record.signal = 'SIGTERM';
    const sent = await control.signal(name, 'SIGTERM', EXIT_WAIT_MS);
    if (!sent.exited)
      throw new Error(
        `${name} (pid ${sent.pid}) had not exited ${EXIT_WAIT_MS / 1000} s after SIGTERM`,
      );
  }
  const { pid } = await control.restart(name);
  record.member.restartedPid = pid;
}
