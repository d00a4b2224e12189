/**
 * A signalled shutdown (SIGTERM/SIGINT). Since 5.0:
 * - mongod (src/mongo/db/mongod_main.cpp, shutdownTask): a primary steps down for up to
 *   shutdownTimeoutMillisForSignaledShutdown, then, as a secondary, enters quiesce mode
 *   (ReplicationCoordinatorImpl::enterQuiesceModeIfSecondary returns false unless the member is
 *   SECONDARY) and sleeps for the rest of that time. A standalone, or a member not yet initiated,
 *   does not quiesce. Modelled as: an initiated replica-set member waits the whole time.
 * - mongos (src/mongo/s/mongos_main.cpp, cleanupTask): always quiesces for
 *   mongosShutdownTimeoutMillisForSignaledShutdown.
 * Both default to 15000 ms. While quiescing, hello fails with ShutdownInProgress. Then exit 0.
 * Before 5.0 there is no quiesce mode.
 */
import type { FakeOptions } from './options';
import { quiesceMillis } from './options';
import type { ReplicaSetNode } from './replication';
import { features } from './version';

export interface Quiesce {
  active: boolean;
}

export function quiesceTimeFor(options: FakeOptions, repl: ReplicaSetNode): number {
  if (!features(options.version).quiesce) return 0;
  if (options.kind === 'mongos') return quiesceMillis(options);
  return repl.config ? quiesceMillis(options) : 0;
}
