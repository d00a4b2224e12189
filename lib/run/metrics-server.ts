/**
 * `--metrics-port`: the HTTP server that serves the run's metrics (./run-metrics.ts) at /metrics for a
 * Prometheus to scrape. Bound to 127.0.0.1 unless --metrics-host says otherwise (with a warning: the
 * figures name hosts), it answers only requests whose Host header names its address, `localhost` or
 * `127.0.0.1` (lib/security/local-http.ts), and is listening before the run connects: a port that is
 * taken is a usage error naming the option, before anything starts. close() leaves nothing listening.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { hostHeaderAllowed, listenLocally, offLoopbackWarning } from '../security/local-http';
import type { RunMetrics } from './run-metrics';
import type { MetricsEndpoint } from './options/run-options';

export type { MetricsEndpoint };

export class MetricsServer {
  private constructor(
    private readonly server: Server,
    readonly metrics: RunMetrics,
    readonly endpoint: MetricsEndpoint,
  ) {}

  /** Where Prometheus scrapes it (with port 0 asked for, the port the system gave). */
  get url(): string {
    const host = this.endpoint.host.includes(':') ? `[${this.endpoint.host}]` : this.endpoint.host;
    return `http://${host}:${this.endpoint.port}/metrics`;
  }

  /**
   * Listens on the endpoint; `warn` is told when it is off loopback. A port that is taken (or may not
   * be bound, or a host that is no address of this machine) is a UsageError naming the option.
   */
  static async start(
    endpoint: MetricsEndpoint,
    warn: (text: string) => void = () => undefined,
    given?: RunMetrics,
  ): Promise<MetricsServer> {
    // prom-client takes about 0.1 s to load: only a run that serves metrics pays it, not every command.
    const metrics = given ?? new (await import('./run-metrics')).RunMetrics();
    const server = createServer((req, res) => void answer(req, res, endpoint.host, metrics));
    // A scraper's keep-alive connection must not hold the process open once the run ends.
    server.keepAliveTimeout = 5000;
    const port = await listenLocally(server, endpoint.host, endpoint.port, {
      port: 'metricsPort',
      host: 'metricsHost',
    });
    server.unref();
    // Port 0: the system's choice, which the printed URL names.
    const bound = { host: endpoint.host, port };
    const warning = offLoopbackWarning('the metrics endpoint', bound.host, bound.port);
    if (warning) warn(`warning: ${warning}`);
    return new MetricsServer(server, metrics, bound);
  }

  /** Stops listening and ends every open connection (a scraper's keep-alive included); safe to call twice. */
  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  boundHost: string,
  metrics: RunMetrics,
): Promise<void> {
  // DNS rebinding: a web page that made the browser resolve its own name to 127.0.0.1 sends that name here.
  if (!hostHeaderAllowed(req.headers.host, boundHost)) {
    res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('misdirected request: the Host header does not name this server\n');
    return;
  }
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/metrics') {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('not found: the metrics are at /metrics\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' });
    res.end();
    return;
  }
  try {
    const body = await metrics.registry.metrics();
    res.writeHead(200, { 'content-type': metrics.registry.contentType });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (err) {
    res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`could not collect the metrics: ${(err as Error).message}\n`);
  }
}
