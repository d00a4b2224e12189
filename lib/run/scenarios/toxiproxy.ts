/**
 * Toxiproxy's HTTP API (Shopify/toxiproxy v2.5.0, api.go), through Node's fetch: no client library. A
 * proxy is a TCP listener in front of an upstream; disabling it (`POST /proxies/{name}` with
 * `{"enabled": false}`) closes its connections and refuses new ones, enabling it again reopens it; a
 * toxic (`POST /proxies/{name}/toxics`) degrades its traffic until removed (`DELETE
 * /proxies/{name}/toxics/{toxic}`). Every call is bounded in time: an undo must not hang a run's end.
 */
import { redactUri } from '../../security/redact';

/** The most one API call may take. */
export const TOXIPROXY_TIMEOUT_MS = 5000;

/** The prefix of every toxic a run adds: `mongo-bench-<run id>-<n>`. A killed run's are found by it. */
export const TOXIC_PREFIX = 'mongo-bench-';

export interface ProxyState {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: Array<{ name: string; type: string; stream?: string }>;
}

export interface ToxicBody {
  name: string;
  type: string;
  stream: string;
  toxicity: number;
  attributes: Record<string, unknown>;
}

export class ToxiproxyError extends Error {
  override name = 'ToxiproxyError';
}

export class Toxiproxy {
  readonly url: string;
  /** The calls in order, one at a time (see call). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(url: string) {
    this.url = url.replace(/\/+$/, '');
  }

  /** The server's version (GET /version): whether it answers at all. */
  async version(): Promise<string> {
    const text = await this.call('GET', '/version');
    try {
      const parsed = JSON.parse(text) as { version?: string };
      return parsed.version ?? text.trim();
    } catch {
      return text.trim();
    }
  }

  /** Every proxy (GET /proxies: an object by name). */
  async proxies(): Promise<ProxyState[]> {
    const body = JSON.parse(await this.call('GET', '/proxies')) as Record<string, ProxyState>;
    return Object.values(body);
  }

  async setEnabled(proxy: string, enabled: boolean): Promise<void> {
    await this.call('POST', `/proxies/${encodeURIComponent(proxy)}`, { enabled });
  }

  async addToxic(proxy: string, toxic: ToxicBody): Promise<void> {
    await this.call('POST', `/proxies/${encodeURIComponent(proxy)}/toxics`, toxic);
  }

  async removeToxic(proxy: string, toxic: string): Promise<void> {
    await this.call(
      'DELETE',
      `/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(toxic)}`,
    );
  }

  /**
   * One call at a time: Toxiproxy v2.5.0 can hang for good when a proxy is enabled while one of its
   * toxics is removed at the same moment (seen here when an interrupt undid both at once; its API
   * then answers nothing more, and a proxy left down stays down).
   */
  private call(method: string, path: string, body?: unknown): Promise<string> {
    const next = this.queue.then(
      () => this.send(method, path, body),
      () => this.send(method, path, body),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async send(method: string, path: string, body?: unknown): Promise<string> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        ...(body !== undefined
          ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
          : {}),
        signal: AbortSignal.timeout(TOXIPROXY_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = err instanceof Error ? ((err.cause as Error | undefined) ?? err) : undefined;
      throw new ToxiproxyError(
        `Toxiproxy at ${redactUri(this.url)} did not answer ${method} ${path}: ${cause?.message ?? String(err)}`,
      );
    }
    const text = await response.text();
    if (!response.ok)
      throw new ToxiproxyError(
        `Toxiproxy at ${redactUri(this.url)} refused ${method} ${path}: HTTP ${response.status} ${text.trim().slice(0, 300)}`,
      );
    return text;
  }
}
