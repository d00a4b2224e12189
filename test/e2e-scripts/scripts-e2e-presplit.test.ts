/** Generated scripts end to end (cases.ts): the pre-split 2x1 sharded cluster (balancer race). */
import { describeScriptsE2E } from './cases';

describeScriptsE2E(__filename);
