/**
 * The order to stop a deployment in: routers first (nothing reaches the shards through them any
 * more), then the shards' members (or a replica set's, or a standalone), then the config servers,
 * which the others read cluster metadata from until they are gone.
 */
import type { ProcessSpec } from './model';

export function stopTierOf(p: Pick<ProcessSpec, 'kind' | 'role'>): 0 | 1 | 2 {
  if (p.kind === 'mongos') return 0;
  return p.role === 'config' ? 2 : 1;
}
