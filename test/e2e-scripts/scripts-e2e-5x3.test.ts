/** Generated scripts end to end (cases.ts): the 5x3 sharded cluster (16 mongods and a mongos). */
import { describeScriptsE2E } from './cases';

describeScriptsE2E(__filename);
