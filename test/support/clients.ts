/** MongoClients a test file opens against its servers, closed together in afterAll. */
import { MongoClient } from 'mongodb';

export interface TestClients {
  /** A connected client (server selection 3 s). */
  connect(uri: string): Promise<MongoClient>;
  closeAll(): Promise<void>;
}

export function testClients(): TestClients {
  const open: MongoClient[] = [];
  return {
    async connect(uri) {
      const client = new MongoClient(uri, { serverSelectionTimeoutMS: 3000 });
      open.push(client);
      await client.connect();
      return client;
    },
    async closeAll() {
      await Promise.all(open.splice(0).map((c) => c.close()));
    },
  };
}
