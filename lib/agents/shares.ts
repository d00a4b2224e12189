/**
 * Which clients each agent runs in a step: contiguous ranges, as even as can be, in the agents'
 * join order. Client i keeps index i (and seed + i) whichever agent runs it, as on one machine.
 */
export interface AgentShare {
  agent: string;
  /** The first client's index, and how many clients from there (0: this agent idles this step). */
  first: number;
  count: number;
}

export function shareClients(clients: number, agents: readonly string[]): AgentShare[] {
  return agents.map((agent, k) => {
    const first = Math.floor((k * clients) / agents.length);
    const next = Math.floor(((k + 1) * clients) / agents.length);
    return { agent, first, count: next - first };
  });
}
