/**
 * run --serve: the report page served while the run goes. `/` is the page of the result so far
 * (lib/report/served-page.ts), `/events` a Server-Sent Events stream: each second of the step running
 * (`second`), each step's end (`step`), and after the last the whole result (`result`); each open page
 * then loads the final page once, and the server closes (or, with --serve-linger, keeps serving it a
 * while). `/index.html` is the written report once the run has ended. Bound to loopback unless --serve-host says otherwise (with a
 * warning then), and like every server of mongo-bench's it answers only requests whose Host header names
 * the bound address, localhost or 127.0.0.1 (lib/security/local-http.ts): others get 421.
 */
import { readFile } from 'node:fs/promises';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ResultDocument } from '../result';
import { renderServedPage, ServedSecond, ServedState } from '../report/served-page';
import { SHOWN_SECONDS } from '../report/page/served-script';
import { hostHeaderAllowed, listenLocally, offLoopbackWarning } from '../security/local-http';
import type { RunEvent } from './events';
import type { ServeOptions } from './options/run-plan';

/** How long the end waits for a page still reloading for the last step (bounded; cut short by Ctrl-C). */
const RELOAD_GRACE_MS = 2000;

/** How long the end waits for the pages sent the result to load the final page (bounded; cut short by Ctrl-C). */
const FINAL_RELOAD_MS = 3000;

/** SSE comments sent this often keep proxies and the browser from timing an idle stream out. */
const KEEPALIVE_MS = 15_000;

export class ServedPage {
  private readonly streams = new Set<ServerResponse>();
  private readonly keepalive: NodeJS.Timeout;
  private result: ResultDocument | undefined;
  private seconds: ServedSecond[] = [];
  private final: (ServedState['final'] & { result?: ResultDocument }) | undefined;
  private lastStepAt = 0;
  private closed = false;
  /** Pages sent the result that have not yet loaded the final page (each reloads once to get it). */
  private pendingReloads = 0;
  private reloadsDone: (() => void) | undefined;

  private constructor(
    private readonly server: Server,
    /** Where the page is, e.g. http://127.0.0.1:8080/. */
    readonly url: string,
    /** The off-loopback warning, when bound to another address. */
    readonly warning: string | undefined,
    private readonly title: string,
    private readonly host: string,
  ) {
    this.keepalive = setInterval(() => this.broadcast(': keepalive\n\n'), KEEPALIVE_MS);
    this.keepalive.unref();
  }

  /**
   * Listens on --serve's port (0: a free one) and --serve-host; a port taken or an address that cannot be
   * bound is a usage error naming the option, before the run starts.
   */
  static async start(options: ServeOptions, title: string): Promise<ServedPage> {
    const server = createServer();
    const port = await listenLocally(server, options.host, options.port, {
      port: 'serve',
      host: 'serveHost',
    });
    const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
    const page = new ServedPage(
      server,
      `http://${shown}:${port}/`,
      offLoopbackWarning('the served page (--serve)', options.host, port),
      title,
      options.host,
    );
    server.on('request', (req, res) => page.answer(req, res));
    return page;
  }

  /** The run's events: each second of a step is sent as it arrives. */
  handle(event: RunEvent): void {
    if (event.type === 'step-start') this.seconds = [];
    if (event.type !== 'tick') return;
    const s: ServedSecond = {
      clients: event.clients,
      trial: event.trial,
      phase: event.tick.phase,
      second: event.tick.second,
      reads: event.tick.reads,
      writes: event.tick.writes,
      errors: event.tick.errors,
    };
    this.seconds.push(s);
    // A page loaded now is given what it shows: the last SHOWN_SECONDS.
    if (this.seconds.length > SHOWN_SECONDS) this.seconds.shift();
    this.send('second', s);
  }

  /** A step ended: the page at `/` has it now; open pages reload to show it. */
  stepDone(resultSoFar: ResultDocument): void {
    this.result = resultSoFar;
    this.seconds = [];
    this.lastStepAt = Date.now();
    this.send('step', { steps: resultSoFar.steps.length });
  }

  /**
   * The run ended: the whole result (none when no step ended) to every open page, and to pages opened from
   * now on. Each open page shows it at once, then reloads for the final page; not when `reload` is false
   * (Ctrl-C: the server closes at once, and a page reloading then would find nobody).
   */
  finish(
    result: ResultDocument | undefined,
    where: { indexHtml?: string; message?: string },
    reload = true,
  ): void {
    if (this.final) return;
    if (result) this.result = result;
    this.final = { ...where, ...(this.result ? { result: this.result } : {}) };
    if (reload) this.pendingReloads += this.streams.size;
    const text = sseEvent('result', { ...this.resultMessage(), reload });
    for (const res of this.streams) res.end(text);
    this.streams.clear();
  }

  /**
   * Closes the server: after `lingerSeconds` (--serve-linger), and after a page still reloading for the
   * last step has had its answer; at once when `signal` aborts (Ctrl-C). Every stream is ended and every
   * connection closed: nothing is left listening.
   */
  async close(lingerSeconds: number, signal: AbortSignal): Promise<void> {
    if (this.closed) return;
    await waitOrAbort(lingerSeconds * 1000, signal);
    if (this.pendingReloads > 0)
      await waitOrAbort(
        FINAL_RELOAD_MS,
        signal,
        new Promise<void>((resolve) => (this.reloadsDone = resolve)),
      );
    await waitOrAbort(Math.max(0, this.lastStepAt + RELOAD_GRACE_MS - Date.now()), signal);
    this.closed = true;
    clearInterval(this.keepalive);
    for (const res of this.streams) res.end();
    this.streams.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private resultMessage() {
    return {
      result: this.final?.result ?? null,
      ...(this.final?.indexHtml ? { indexHtml: this.final.indexHtml } : {}),
      ...(this.final?.message ? { message: this.final.message } : {}),
    };
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    if (!hostHeaderAllowed(req.headers.host, this.host)) {
      plain(res, 421, 'misdirected request: this server answers only to its own address\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      plain(res, 405, 'method not allowed\n');
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/') this.page(res);
    else if (path === '/events') this.stream(req, res);
    else if (path === '/index.html' && this.final?.indexHtml) void this.indexHtml(res);
    // Browsers ask for it by themselves: no icon, and no error in the page's console.
    else if (path === '/favicon.ico') res.writeHead(204).end();
    else plain(res, 404, 'not found\n');
  }

  private page(res: ServerResponse): void {
    if (this.final && this.pendingReloads > 0 && --this.pendingReloads === 0) this.reloadsDone?.();
    const state: ServedState = {
      seconds: this.final ? [] : this.seconds,
      ...(this.final
        ? {
            final: {
              ...(this.final.indexHtml ? { indexHtml: this.final.indexHtml } : {}),
              ...(this.final.message ? { message: this.final.message } : {}),
            },
          }
        : {}),
    };
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(renderServedPage(this.result, state, this.title));
  }

  private stream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    // A page that connects after the end gets the end at once; nothing would follow.
    if (this.final) {
      this.pendingReloads++;
      res.end(sseEvent('result', { ...this.resultMessage(), reload: true }));
      return;
    }
    res.write(': mongo-bench run\n\n');
    this.streams.add(res);
    req.on('close', () => this.streams.delete(res));
  }

  private async indexHtml(res: ServerResponse): Promise<void> {
    try {
      const html = await readFile(this.final!.indexHtml!);
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
      });
      res.end(html);
    } catch {
      plain(res, 404, 'index.html was not written\n');
    }
  }

  private send(event: string, data: unknown): void {
    this.broadcast(sseEvent(event, data));
  }

  private broadcast(text: string): void {
    for (const res of this.streams) res.write(text);
  }
}

function sseEvent(event: string, data: unknown): string {
  // JSON holds no raw newline, so the data is one `data:` line.
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** Resolves after `ms`, when `signal` aborts, or when `sooner` settles, whichever comes first. */
function waitOrAbort(ms: number, signal: AbortSignal, sooner?: Promise<void>): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
    void sooner?.then(done);
  });
}
