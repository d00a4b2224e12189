/**
 * The time limits every MongoClient the tool opens gets. serverSelectionTimeoutMS alone does not bound
 * a server that accepts the connection and never answers: the handshake then waits the driver's
 * connectTimeoutMS (30 s by default), and closing the client waits for it, so a command said "timed out
 * after 5000 ms" after about 31 s. Bounding the connect by the same figure, as `run --uri` does
 * (lib/server/connect.ts), makes every connection fail within a moment of the timeout it names.
 */
export interface ClientTimeouts {
  serverSelectionTimeoutMS: number;
  connectTimeoutMS: number;
}

/** The default server-selection timeout of the tool's own connections (stores, control, capture). */
export const SELECTION_TIMEOUT_MS = 5000;

/** The driver's timeouts for a connection that may wait `serverSelectionTimeoutMS` for a server. */
export function clientTimeouts(serverSelectionTimeoutMS = SELECTION_TIMEOUT_MS): ClientTimeouts {
  return {
    serverSelectionTimeoutMS,
    // Never under 1 s: a TLS handshake to a distant server may need that much.
    connectTimeoutMS: Math.max(1000, serverSelectionTimeoutMS),
  };
}
