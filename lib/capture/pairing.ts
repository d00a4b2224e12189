/**
 * Which of an update/delete's log lines count: its statement lines or its command line.
 *
 * With slowms 0 the server logs each statement of an update or delete as it finishes (WRITE
 * component, type "update"/"remove": performUpdates / performDeletes in
 * src/mongo/db/ops/write_ops_exec.cpp, src/mongo/db/query/write_ops/write_ops_exec.cpp on master),
 * each from its own CurOp, and then the command that carried them from the command's CurOp
 * (CurOp::completeAndLogOperation, src/mongo/db/curop.cpp). A statement finishes inside its command,
 * so its `t` lies in [command t - durationMillis, command t]: only such a statement is paired with
 * the command (on the same connection and namespace).
 *
 * With a sampleRate below 1 the server decides for each CurOp on its own
 * (shouldLogSlowOpWithSampling, src/mongo/util/log_with_sampling.h: one draw of the client's PRNG
 * per call, called once per statement and once for the command), so a statement line and its
 * command line are independent draws. Pairing a statement with whichever command follows it then
 * counts an update about s + s(1-s)/(2-s) times per op instead of s (+47% at s = 0.1). The rule:
 * - sampled (--sampled, or detected: a statement line that no command pairs with although a later
 *   command of its kind and namespace on its connection could have held it, which an unsampled log
 *   never holds, since a statement slower than slowms makes its command slower too): count the statement lines only, and skip the update/delete commands of a connection
 *   that has statement lines; a connection with none (a mongos log, a driver whose statements went
 *   unlogged) counts its commands;
 * - not sampled: every statement counts; a command counts only when no statement paired with it
 *   (then by its own `updates` / `deletes`, or as one synthetic op when the log holds none).
 */
import { ServedOp, Skip } from './served-op';

export interface WriteEvent {
  served: ServedOp;
  /** A statement line (WRITE, type update/remove), else an update/delete command line. */
  statement: boolean;
}

export interface PairingDecision {
  sampled: false | 'option' | 'detected';
  unpairedStatements: number;
  /** In the order read: what to count, or why not. */
  items: Array<{ count: ServedOp } | { skip: Skip }>;
}

/** The log's `t` and `durationMillis` are whole milliseconds: a statement may round past its command's start by one. */
const ROUNDING_MS = 1;

function statementCount(command: Record<string, unknown>): number | undefined {
  const list = command.updates ?? command.deletes;
  return Array.isArray(list) ? list.length : undefined;
}

/** The statement kind a command carries and the namespace they run on (the command's own ns is DB.$cmd). */
function carries(cmd: ServedOp): { kind: 'update' | 'remove'; ns: string } {
  const name = Object.keys(cmd.command)[0];
  const db = cmd.ns.slice(0, Math.max(0, cmd.ns.indexOf('.')));
  return {
    kind: name === 'update' ? 'update' : 'remove',
    ns: `${db}.${String(cmd.command[name])}`,
  };
}

/** A statement that a command of this event could hold. */
function fits(statement: ServedOp, cmd: ServedOp): boolean {
  const c = carries(cmd);
  return statement.kind === c.kind && statement.ns === c.ns;
}

/** Pairs each command with the statements of its connection it can hold; returns, per event, whether it was paired. */
function pair(events: WriteEvent[]): { pairedStatement: boolean[]; commandPaired: number[] } {
  const pairedStatement = events.map(() => false);
  const commandPaired = events.map(() => 0);
  events.forEach((event, i) => {
    if (event.statement) return;
    const cmd = event.served;
    const at = cmd.at?.getTime();
    const d = cmd.durationMillis;
    let room = statementCount(cmd.command) ?? Infinity;
    // Latest first: a command's statements are the ones logged just before it.
    const timed = at !== undefined && d !== undefined;
    for (let j = i - 1; j >= 0 && room > 0; j--) {
      const st = events[j];
      const t = st.served.at?.getTime();
      // The lines of a connection are in time order: nothing before the window can pair.
      if (timed && t !== undefined && t < at - d - ROUNDING_MS) break;
      if (!st.statement) {
        // Without times, a command holds the statements since the previous command.
        if (!timed) break;
        continue;
      }
      if (pairedStatement[j] || !fits(st.served, cmd)) continue;
      if (timed && (t === undefined || t > at)) continue;
      pairedStatement[j] = true;
      commandPaired[i]++;
      room--;
    }
  });
  return { pairedStatement, commandPaired };
}

export function pairWrites(
  byConnection: Map<string, WriteEvent[]>,
  sampledOption: boolean,
): PairingDecision {
  const paired = new Map<string, ReturnType<typeof pair>>();
  let unpaired = 0;
  let orphanBeforeCommand = false;
  for (const [key, events] of byConnection) {
    const p = pair(events);
    paired.set(key, p);
    // A statement line with no command when a later command on its connection could have held it:
    // an unsampled log never has one (the command line follows its statements).
    const later: ServedOp[] = [];
    for (let i = events.length - 1; i >= 0; i--) {
      if (!events[i].statement) later.push(events[i].served);
      else if (!p.pairedStatement[i]) {
        unpaired++;
        if (later.some((cmd) => fits(events[i].served, cmd))) orphanBeforeCommand = true;
      }
    }
  }
  const sampled = sampledOption ? 'option' : orphanBeforeCommand ? 'detected' : false;
  const items: PairingDecision['items'] = [];
  for (const [key, events] of byConnection) {
    const p = paired.get(key)!;
    const hasStatements = events.some((e) => e.statement);
    events.forEach((event, i) => {
      const s = event.served;
      if (event.statement) items.push({ count: s });
      else if (sampled && hasStatements) {
        items.push({
          skip: {
            origin: s.origin,
            reason: 'counted by its statement lines (sampled log)',
            detail: `${Object.keys(s.command)[0]} on ${s.ns}`,
          },
        });
      } else if (p.commandPaired[i] > 0) {
        items.push({
          skip: {
            origin: s.origin,
            reason: 'write command already counted by its statements',
            detail: `${Object.keys(s.command)[0]} on ${s.ns}`,
          },
        });
      } else items.push({ count: s });
    });
  }
  return { sampled, unpairedStatements: unpaired, items };
}
