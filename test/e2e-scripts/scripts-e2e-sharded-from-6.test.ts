/** Generated scripts end to end (cases.ts): the 2x1 sharded cluster from 6.0. */
import { describeScriptsE2E } from './cases';

describeScriptsE2E(__filename);
