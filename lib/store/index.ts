import type { MongoClientOptions } from 'mongodb';
import { FolderStore } from './folder-store';
import { MongoStore } from './mongo-store';
import { isMongoStoreSpec, ResultStore } from './store';

export { FolderStore } from './folder-store';
export { MongoStore, parseStoreUri, MONGO_STORE_DEFAULTS } from './mongo-store';
export { STORE_ENV, resolveStoreSpec, isMongoStoreSpec, orderAndDeduplicate } from './store';
export type { ResultStore, StoredResult, SkippedEntry, StoreFilter, PutOutcome } from './store';

/** A folder path or a mongodb:// URI -> the store (a MongoDB store connects now). */
export async function openStore(
  spec: string,
  options: { clientOptions?: MongoClientOptions; serverSelectionTimeoutMS?: number } = {},
): Promise<ResultStore> {
  return isMongoStoreSpec(spec) ? MongoStore.open(spec, options) : new FolderStore(spec);
}
