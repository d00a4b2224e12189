/**
 * The consistency check after a warm-up: ops a client started in the warm-up and finished inside the
 * window are counted by the server's window and are in none of the clients' counts. With many clients
 * that is many ops (one per client); the check allows for them, and says how many there were. A real
 * run on the null server counting its ops as a mongod does (nothing else uses it: no gap is real).
 */
import { benchmark } from '../../lib/api';
import { NullServer, NULL_SERVER_NS, startNullServer } from '../../lib/calibrate/null-server';

let server: NullServer;
beforeAll(async () => {
  server = await startNullServer({ opcounters: true });
});
afterAll(() => server.stop());

it('500 clients after a 1 s warm-up on a server nothing else uses: no gap, the ops in flight at the opening counted', async () => {
  const result = await benchmark({
    uri: server.uri,
    ns: NULL_SERVER_NS,
    ops: [{ op: 'findOne', query: { _id: 1 } }],
    clients: [500],
    seconds: 1,
    warmup: 1,
    load: false,
    testDouble: true,
  });
  const [step] = result.steps;
  const [check] = result.server?.checks ?? [];
  expect(check).toMatchObject({ clients: 500, status: 'ok' });
  // One op per client at most was in flight when the window opened.
  expect(step.inFlightAtOpen).toBeGreaterThan(0);
  expect(step.inFlightAtOpen).toBeLessThanOrEqual(500);
  expect(check.inFlightAtOpen).toBe(step.inFlightAtOpen);
});
