/**
 * The one small API tests use to get a server. A test declares what it needs; when the need
 * cannot be met on this machine the test is skipped and the reason is part of its title, so the
 * summary reporter prints it.
 *
 * Needs:
 *  - 'crud':      a server for CRUD (a real mongod if one is obtainable, else mongo-java-server)
 *  - 'mongod':    a real MongoDB standalone (MONGOD_BIN / MONGOMS_SYSTEM_BINARY / downloadable)
 *  - 'replset':   a real MongoDB replica set
 *  - 'sharded':   a real MongoDB sharded cluster (mongod + mongos binaries)
 *  - 'recording': the in-process recording server (always available)
 *  - 'mongosh':   the real mongosh CLI (a dev dependency)
 */
export type Need = 'crud' | 'mongod' | 'replset' | 'sharded' | 'recording' | 'mongosh';

export interface Availability {
  ok: boolean;
  reason?: string;
}

// Filled in by the foundation work (see test/support/README.md).
export function availability(need: Need): Availability {
  return { ok: false, reason: `${need} server support not wired yet` };
}

/** describe() when every need is met, otherwise describe.skip with the reason in the title. */
export function describeNeeding(needs: Need | Need[], title: string, fn: () => void): void {
  const list = Array.isArray(needs) ? needs : [needs];
  const missing = list.map((n) => ({ n, a: availability(n) })).filter((x) => !x.a.ok);
  if (missing.length === 0) {
    describe(title, fn);
  } else {
    const reason = missing.map((m) => `${m.n}: ${m.a.reason}`).join('; ');
    describe.skip(`${title} [skipped: ${reason}]`, fn);
  }
}
