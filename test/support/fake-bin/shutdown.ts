/**
 * A signalled shutdown (SIGTERM/SIGINT) of a stand-in, as the server's shutdown path does it:
 *
 * mongod, replica-set member (src/mongo/db/mongod_main.cpp shutdownTask, then
 * src/mongo/db/commands/shutdown.cpp stepDownForShutdown):
 * - a set of one member skips the step-down ("If this is a single node replica set, then we
 *   don't have to wait for any secondaries. Ignore stepdown.") and, still primary, does not quiesce;
 * - a primary of a larger set steps down, waiting up to the step-down time for an electable
 *   secondary that has caught up (ReplicationCoordinatorImpl::stepDown, not forced). With one
 *   answering it steps down at once; with none (the others already stopped) the whole time passes
 *   and it stays primary;
 * - from 5.0 the step-down time is shutdownTimeoutMillisForSignaledShutdown (default 15000 ms), and a
 *   member that is (or has just become) SECONDARY then enters quiesce mode for what is left of it
 *   (ReplicationCoordinatorImpl::enterQuiesceModeIfSecondary): hello fails with ShutdownInProgress;
 * - 4.4 has no quiesce mode, and its step-down time is 10 s (waitForStepDownOnNonCommandShutdown;
 *   the server's own test runner, buildscripts/resmokelib, says "On branches 4.4 and earlier, there is
 *   no quiesce mode, but the default time for stepdown is 10 seconds").
 * mongod standalone, or a member not yet initiated: exits at once.
 * mongos (src/mongo/s/mongos_main.cpp, cleanupTask), from 5.0: quiesces for
 * mongosShutdownTimeoutMillisForSignaledShutdown (default 15000 ms); 4.4: exits at once.
 * Stand-in secondaries are always caught up (no oplog is modelled).
 */
import type { FakeOptions } from './options';
import { quiesceMillis } from './options';
import { helloOn } from './peers';
import type { ReplicaSetNode } from './replication';
import { features } from './version';

export interface Quiesce {
  active: boolean;
}

/** 4.4's step-down wait on a signalled shutdown (waitForStepDownOnNonCommandShutdown true). */
export const STEP_DOWN_MS_4_4 = 10_000;

export interface ShutdownWaits {
  /** Trying to step down: the member still answers hello normally meanwhile. */
  stepDownMs: number;
  /** Quiesce mode: hello fails with ShutdownInProgress (91). */
  quiesceMs: number;
}

export async function shutdownWaits(
  options: FakeOptions,
  repl: ReplicaSetNode,
): Promise<ShutdownWaits> {
  const quiesce = features(options.version).quiesce;
  if (options.kind === 'mongos')
    return { stepDownMs: 0, quiesceMs: quiesce ? quiesceMillis(options) : 0 };
  if (!repl.config) return { stepDownMs: 0, quiesceMs: 0 };
  const timeout = quiesce ? quiesceMillis(options) : STEP_DOWN_MS_4_4;
  const isPrimary = repl.state === 'primary' || repl.state === 'drain';
  if (!isPrimary) return { stepDownMs: 0, quiesceMs: quiesce ? timeout : 0 };
  if (repl.memberCount === 1) return { stepDownMs: 0, quiesceMs: 0 };
  const answers = await Promise.all(repl.electableOthers().map((host) => helloOn(host, 500)));
  const steppedDown = answers.some((h) => h !== undefined && h.ok === 1);
  if (!steppedDown) return { stepDownMs: timeout, quiesceMs: 0 };
  return { stepDownMs: 0, quiesceMs: quiesce ? timeout : 0 };
}
