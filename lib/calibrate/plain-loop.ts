/**
 * The yardstick: the 6:1 loop anyone would write with the driver (six findOne by random _id, one
 * updateOne $set + $inc), `clients` concurrent on one event loop, for `seconds`, in whole passes (the
 * engine stops before any op once its window closes: at most one pass per client apart). Returns its
 * ops and this process's CPU over the window.
 */
import { MongoClient } from 'mongodb';

export interface LoopFigures {
  ops: number;
  seconds: number;
  cpuMicros: number;
}

export async function runPlainLoop(
  client: MongoClient,
  ns: { db: string; coll: string },
  clients: number,
  seconds: number,
  docs: number,
): Promise<LoopFigures> {
  const coll = client.db(ns.db).collection<{ _id: number }>(ns.coll);
  const cpu = process.cpuUsage();
  const start = performance.now();
  const stopAt = start + seconds * 1000;
  let ops = 0;
  const loop = async () => {
    while (performance.now() < stopAt) {
      for (let k = 0; k < 6; k++) await coll.findOne({ _id: Math.floor(Math.random() * docs) });
      await coll.updateOne(
        { _id: Math.floor(Math.random() * docs) },
        { $set: { touched: Math.floor(Math.random() * 1e9) }, $inc: { counter: 1 } },
      );
      ops += 7;
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  const used = process.cpuUsage(cpu);
  return { ops, seconds: (performance.now() - start) / 1000, cpuMicros: used.user + used.system };
}
