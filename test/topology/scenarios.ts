/** The golden scenarios: shell-scripts/<name>/ holds what `mongo-bench scripts` writes for each. */
import { TopologyInput } from '../../lib/topology';

export interface Scenario {
  name: string;
  input: TopologyInput;
}

export const GOLDEN_SCENARIOS: Scenario[] = [
  { name: 'standalone', input: { topology: 'standalone' } },
  { name: 'replset-3', input: { topology: 'replset', replicas: 3 } },
  // The seeds' case (MOST, test A): five single-member shards, key g in [0, 64), balancer stopped.
  {
    name: 'sharded-5x1-presplit',
    input: {
      topology: 'sharded',
      shards: 5,
      replicas: 1,
      shardKey: 'g',
      presplit: '0:64',
      stopBalancer: true,
    },
  },
  // The seeds' last configuration: five shards of three members; here with a hashed key and 1 GB chunks (seed 003).
  {
    name: 'sharded-5x3',
    input: { topology: 'sharded', shards: 5, replicas: 3, hashed: true, chunkSize: 1024 },
  },
  // Access control as mlaunch --auth: keyfile between members, a first admin user (test/topology/auth-scripts.test.ts runs it).
  { name: 'replset-3-auth', input: { topology: 'replset', replicas: 3, auth: true } },
];

/** The command-line flags that give the same input (camelCase key -> --kebab-case flag). */
export function toArgs(input: TopologyInput): string[] {
  const args: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === false) continue;
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (value === true) args.push(flag);
    else if (Array.isArray(value)) args.push(flag, value.join(','));
    else if (typeof value === 'object') args.push(flag, `${value.min}:${value.max}`);
    else args.push(flag, String(value));
  }
  return args;
}
