/**
 * The server we measure, as one object: where it is (uri), how every connection to it is made
 * (clientOptions: credentials and TLS folded in, never in the URI), a client on demand, what it
 * is (describe: product, version, topology, process facts) and giving it back (release: stops what
 * was started for it, once, however often it is called). Where it comes from is a TargetSource:
 * an existing deployment (uriTarget, here), or an embedded or launched server (lib/deployment).
 */
import { MongoClient, MongoClientOptions } from 'mongodb';
import { ResultDocument } from '../result';
import { connectTarget } from './connect';
import { clientTimeouts } from '../common/client-timeouts';
import type { MemberControl } from './members';

/** How the server was found: given (--uri), embedded (mongodb-memory-server) or launched from a setup plan. */
export type TargetOrigin = 'uri' | 'embedded' | 'launched';

export interface TargetSource {
  uri: string;
  origin: TargetOrigin;
  /** Stops what was started for this target; absent for an existing deployment. */
  stop?(): Promise<void>;
  /** A launched deployment's processes, for the kill, terminate and restart events; absent otherwise. */
  members?: MemberControl;
}

export interface Target {
  readonly uri: string;
  readonly origin: TargetOrigin;
  /** A launched deployment's processes, for the kill, terminate and restart events; absent otherwise. */
  readonly members?: MemberControl;
  /** Credentials and TLS for every connection to the target (lib/security's toMongoClientOptions). */
  readonly clientOptions: MongoClientOptions;
  /** Runs `fn` with a connected client, closed afterwards whatever `fn` does. */
  withClient<T>(
    fn: (client: MongoClient) => Promise<T>,
    options?: { serverSelectionTimeoutMS?: number },
  ): Promise<T>;
  /** What the result records about the server (identify-server, server-facts): version, topology, product. */
  describe(options?: {
    serverSelectionTimeoutMS?: number;
    testDouble?: boolean;
  }): Promise<ResultDocument['target']>;
  /** Stops what was started (nothing for --uri); idempotent: later calls wait for the first. */
  release(): Promise<void>;
}

const DEFAULT_SELECTION_TIMEOUT_MS = 10_000;

export function openTarget(source: TargetSource, clientOptions: MongoClientOptions = {}): Target {
  let released: Promise<void> | undefined;
  return {
    uri: source.uri,
    origin: source.origin,
    ...(source.members ? { members: source.members } : {}),
    clientOptions,
    async withClient(fn, options = {}) {
      const client = new MongoClient(source.uri, {
        ...clientTimeouts(options.serverSelectionTimeoutMS ?? DEFAULT_SELECTION_TIMEOUT_MS),
        ...clientOptions,
      });
      try {
        return await fn(client);
      } finally {
        await client.close().catch(() => undefined);
      }
    },
    async describe(options = {}) {
      const { client, target } = await connectTarget(source.uri, {
        serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? DEFAULT_SELECTION_TIMEOUT_MS,
        maxClients: 1,
        clientOptions,
        ...(options.testDouble ? { testDouble: true } : {}),
      });
      await client.close().catch(() => undefined);
      return target;
    },
    release() {
      released ??= source.stop ? source.stop() : Promise.resolve();
      return released;
    },
  };
}

/** An existing deployment: nothing to start, nothing to stop. */
export function uriTarget(uri: string, clientOptions: MongoClientOptions = {}): Target {
  return openTarget({ uri, origin: 'uri' }, clientOptions);
}
