/** Parameter pieces the experiments share (errors name the parameter, e.g. `docs must be at least 1`). */
import { z } from 'zod';

export const positiveInt = (what: string) =>
  z
    .number({ error: `${what}: expected a number` })
    .int(`${what} must be an integer`)
    .min(1, `${what} must be at least 1`);

export const docSize = (max: number, tooBig: string) =>
  z
    .number()
    .int('docSize must be an integer')
    .min(64, 'docSize must be at least 64 bytes')
    .max(max, tooBig);

export const BSON_LIMIT = 16 * 1024 * 1024;

/** The seeds' random seed, so two runs write the same documents. */
export const SEED = 1314159265;
