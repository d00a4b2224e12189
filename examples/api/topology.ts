/**
 * Plan a sharded cluster, write its scripts (the same files `mongo-bench scripts` writes), and
 * apply the plan through the driver once its processes run (`sh out/00-start.sh` and so on).
 *
 *   npx tsx examples/api/topology.ts out/cluster          # plan and write the scripts
 *   npx tsx examples/api/topology.ts out/cluster --apply  # also apply it (the processes must be running)
 */
import { applyTopology, planTopology, renderScripts, writeScripts } from 'mongo-bench';

export async function main(outDir: string, apply: boolean): Promise<void> {
  const plan = planTopology({
    topology: 'sharded',
    shards: 2,
    replicas: 3,
    basePort: 27100,
    db: 'shop',
    collection: 'orders',
    shardKey: '_id',
    presplit: { min: 0, max: 100_000 },
    stopBalancer: true,
  });
  for (const warning of plan.warnings) console.warn(`warning: ${warning}`);
  console.log(
    `${plan.steps.length} setup steps; files: ${renderScripts(plan)
      .map((f) => f.file)
      .join(', ')}`,
  );
  await writeScripts(plan, outDir);

  if (!apply) return;
  const outcomes = await applyTopology(plan, {
    onStep: (e) => console.log(`[${e.step}/${e.steps}] ${e.status}: ${e.description}`),
  });
  console.log(
    `applied ${outcomes.filter((o) => o.status === 'applied').length}, already done ${outcomes.filter((o) => o.status === 'skipped').length}`,
  );
}

if (require.main === module) {
  main(process.argv[2] ?? 'out/cluster', process.argv.includes('--apply')).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 2;
  });
}
