/**
 * Ctrl-C and SIGTERM during a run: the first one aborts (the clients stop, the partial result and
 * its report are written, every process we started is stopped, exit 130 / 143); a second one while
 * that cleanup runs exits at once, and the launcher's exit hook SIGKILLs the children still there.
 */
import { EXIT } from '../config/errors';

export interface Interrupt {
  signal: AbortSignal;
  dispose(): void;
}

export interface InterruptOptions {
  /** Told once per signal, e.g. "stopping: ... (Ctrl-C again to quit at once)". */
  onSignal(name: NodeJS.Signals, first: boolean): void;
  /** The forced exit on a second signal (process.exit by default). */
  forceExit?: (code: number) => void;
  target?: NodeJS.EventEmitter;
}

export function installInterrupt(options: InterruptOptions): Interrupt {
  const controller = new AbortController();
  const target = options.target ?? process;
  const handler = (name: NodeJS.Signals) => {
    const first = !controller.signal.aborted;
    options.onSignal(name, first);
    if (first) controller.abort(name);
    else
      (options.forceExit ?? ((code: number) => process.exit(code)))(
        name === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint,
      );
  };
  const onInt = () => handler('SIGINT');
  const onTerm = () => handler('SIGTERM');
  target.on('SIGINT', onInt);
  target.on('SIGTERM', onTerm);
  return {
    signal: controller.signal,
    dispose: () => {
      target.removeListener('SIGINT', onInt);
      target.removeListener('SIGTERM', onTerm);
    },
  };
}
