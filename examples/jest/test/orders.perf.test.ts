/**
 * Our orders queries must not get slower. The test starts an in-memory MongoDB, loads orders shaped
 * like ours, runs the queries the service sends (benchRun format) at 1 and 4 concurrent clients,
 * 5 trials of 2 s each (benchmarkWorkload's defaults: the trials are what the comparison tests), each
 * after a fixed 2 s warm-up, and compares the result with the committed baseline.
 *
 *   npx jest                                       # first run: records test/baselines/orders.json (commit it)
 *   MONGO_BENCH_UPDATE_BASELINE=1 npx jest         # re-record after an intended change
 *   MONGO_URI=mongodb://127.0.0.1:27017 npx jest   # an existing server instead of mongodb-memory-server
 */
import { join } from 'node:path';
import { MongoMemoryServer } from 'mongodb-memory-server';
import { benchmarkWorkload, expectNoRegression } from 'mongo-bench';

const BASELINE = join(__dirname, 'baselines', 'orders.json');

/** 2,000 orders of 200 customers, as our service writes them. */
function orders(): Array<Record<string, unknown>> {
  return Array.from({ length: 2000 }, (_, i) => ({
    _id: i,
    customerId: i % 200,
    status: i % 10 === 0 ? 'open' : 'shipped',
    total: (i * 37) % 500,
    items: [{ sku: `sku-${i % 50}`, qty: 1 + (i % 3) }],
  }));
}

/** What the service sends: look up an order, list a customer's orders, mark one paid. */
const OPS = [
  { op: 'findOne', query: { _id: { '#RAND_INT': [0, 2000] } } },
  { op: 'find', query: { customerId: { '#RAND_INT': [0, 200] } }, limit: 20 },
  { op: 'update', query: { _id: { '#RAND_INT': [0, 2000] } }, update: { $set: { paid: true } } },
];

let server: MongoMemoryServer | undefined;
let uri: string;

beforeAll(async () => {
  if (process.env.MONGO_URI) {
    uri = process.env.MONGO_URI;
  } else {
    server = await MongoMemoryServer.create();
    uri = server.getUri();
  }
});

afterAll(async () => {
  await server?.stop();
});

test('orders queries are not slower than the baseline', async () => {
  const result = await benchmarkWorkload({
    uri,
    ns: 'shop.orders',
    documents: orders(),
    indexes: [{ key: { customerId: 1 } }],
    ops: OPS,
    name: 'orders',
    clients: [1, 4],
    // 2 s before each trial: 2 x 5 x (2 + 2) s, under a minute. 'auto' (the default) waits until the
    // rate is level, up to 15 s per trial: better on a cold server, 2 to 3 minutes in all.
    warmup: 2,
    baseline: BASELINE, // refused at once if recorded on another server
  });
  expect(result.complete).toBe(true);
  // 25%: a shared CI runner's own noise stays below it; a lost index or a heavier query does not.
  await expectNoRegression(result, BASELINE, {
    threshold: 25,
    out: join(__dirname, '..', 'perf-report'),
  });
});
