/** The client counts of a sweep: 1, 2, 4, ... up to the maximum (the maximum itself included). */
export function clientCountsUpTo(maxClients: number): number[] {
  if (!Number.isInteger(maxClients) || maxClients < 1)
    throw new RangeError(`maxClients must be an integer >= 1, got ${maxClients}`);
  const counts: number[] = [];
  for (let c = 1; c < maxClients; c *= 2) counts.push(c);
  counts.push(maxClients);
  return counts;
}
