/** `run --agents N --control-uri URI [--agent-wait S] [--agent-timeout S]`: validated, each error naming its option. */
import { z } from 'zod';
import { UsageError } from '../config/errors';
import { intArg, numberArg } from '../config/validate';
import { option, TableValues } from '../config/option-table';
import { DEFAULT_CONTROL_DB } from './control';

export const AGENT_DEFAULTS = { waitSeconds: 120, lostAfterSeconds: 10 } as const;

/**
 * `run --agents N`: the clients run on agents coordinated through a control database (lib/agents).
 * run's agent options, one row each (flags, config-file keys), in --help's order.
 */
export const AGENT_RUN_OPTIONS = {
  agents: option({
    flag: '--agents <n>',
    help: "run every step's clients on n agents (mongo-bench agent on each load machine), coordinated through --control-uri",
    schema: z.number(),
    arg: intArg,
  }),
  controlUri: option({
    flag: '--control-uri <uri>',
    help: 'with --agents: the MongoDB deployment that coordinates the agents (default: --uri)',
    schema: z.string().min(1, 'must not be empty'),
  }),
  controlDb: option({
    flag: '--control-db <name>',
    help: 'with --agents: the control database',
    schema: z.string().min(1, 'must not be empty'),
    default: DEFAULT_CONTROL_DB,
  }),
  agentWait: option({
    flag: '--agent-wait <s>',
    help: 'with --agents: how long to wait for the agents to join',
    schema: z.number(),
    default: AGENT_DEFAULTS.waitSeconds,
    arg: numberArg,
  }),
  agentTimeout: option({
    flag: '--agent-timeout <s>',
    help: 'with --agents: an agent silent this long mid-step is lost and fails the step',
    schema: z.number(),
    default: AGENT_DEFAULTS.lostAfterSeconds,
    arg: numberArg,
  }),
};

export type AgentFlags = TableValues<typeof AGENT_RUN_OPTIONS>;

export const AGENT_FLAG_KEYS = Object.keys(AGENT_RUN_OPTIONS) as (keyof AgentFlags)[];

/** The flags and config-file keys, validated here. */
export type AgentRunFlags = AgentFlags;

export interface AgentRunOptions {
  agents: number;
  controlUri: string;
  controlDb: string;
  waitMs: number;
  lostAfterMs: number;
}

export const MAX_AGENTS = 1000;

/** Undefined when the run uses no agents; `targetUri`: the run's --uri (undefined: embedded or launched). */
export function resolveAgentRunOptions(
  flags: AgentRunFlags,
  targetUri: string | undefined,
): AgentRunOptions | undefined {
  if (flags.agents === undefined) {
    const stray = (['controlUri', 'controlDb', 'agentWait', 'agentTimeout'] as const).find(
      (k) => flags[k] !== undefined,
    );
    if (stray)
      throw new UsageError(
        `option --${stray.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: only with --agents N`,
      );
    return undefined;
  }
  if (!Number.isInteger(flags.agents) || flags.agents < 1 || flags.agents > MAX_AGENTS)
    throw new UsageError(
      `option --agents: expected a whole number from 1 to ${MAX_AGENTS}, got ${flags.agents}`,
    );
  if (targetUri === undefined)
    throw new UsageError(
      'option --agents: needs --uri: the agents load an existing deployment they can reach (not an embedded or launched one)',
    );
  const controlUri = flags.controlUri ?? targetUri;
  if (!/^mongodb(\+srv)?:\/\//.test(controlUri))
    throw new UsageError(
      'option --control-uri: expected a mongodb:// or mongodb+srv:// connection string',
    );
  for (const [key, value] of [
    ['agent-wait', flags.agentWait],
    ['agent-timeout', flags.agentTimeout],
  ] as const) {
    if (value !== undefined && (!Number.isFinite(value) || value <= 0))
      throw new UsageError(`option --${key}: expected seconds > 0, got ${value}`);
  }
  return {
    agents: flags.agents,
    controlUri,
    controlDb: flags.controlDb ?? DEFAULT_CONTROL_DB,
    waitMs: (flags.agentWait ?? AGENT_DEFAULTS.waitSeconds) * 1000,
    lostAfterMs: (flags.agentTimeout ?? AGENT_DEFAULTS.lostAfterSeconds) * 1000,
  };
}
