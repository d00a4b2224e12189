/**
 * What a matrix run tells as it goes (the CLI prints it), and the hooks that carry it out and an
 * interrupt in.
 */
import { ResultDocument } from '../result';
import { TargetCapabilities } from './target-probe';
import { MatrixRow } from './types';

export type MatrixEvent =
  | {
      type: 'planned';
      name: string;
      experiment: string;
      configurations: number;
      scale: number;
      scaleNote: string;
      parameters: Record<string, unknown>;
      outDir: string;
    }
  | { type: 'connected'; target: ResultDocument['target']; capabilities: TargetCapabilities }
  | { type: 'note'; text: string }
  | {
      type: 'config-start';
      index: number;
      total: number;
      label: string;
      settings: string;
      trial?: number;
      trials?: number;
    }
  | { type: 'config-progress'; index: number; text: string }
  | {
      type: 'config-done';
      index: number;
      total: number;
      row: MatrixRow;
      trial?: number;
      trials?: number;
    }
  | { type: 'written'; files: string[] };

export interface MatrixHooks {
  onEvent?: (event: MatrixEvent) => void;
  signal?: AbortSignal;
}
