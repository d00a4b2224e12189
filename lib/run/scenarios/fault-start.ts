/**
 * Before a run with fault events measures: its Toxiproxy answers and has every proxy its events name
 * (else the run stops there, before anything is measured); the toxics a killed run left
 * (`mongo-bench-*`) are removed, and each removal said; a proxy found disabled, or a balancer found
 * stopped, is said (a killed run may have left it so: what is measured then is not what was asked).
 */
import type { MongoClient } from 'mongodb';
import { RunError } from '../../config/errors';
import type { BackgroundEventSpec } from './event-spec';
import { Toxiproxy, TOXIC_PREFIX } from './toxiproxy';

/** Checks the run's Toxiproxy and cleans what a killed run left; returns the lines to say. */
export async function checkFaultsAtStart(
  toxiproxy: Toxiproxy | undefined,
  events: readonly BackgroundEventSpec[],
  client: MongoClient,
): Promise<string[]> {
  const lines: string[] = [];
  if (toxiproxy) lines.push(...(await checkToxiproxy(toxiproxy, events)));
  lines.push(...(await balancerStopped(client)));
  return lines;
}

async function checkToxiproxy(
  toxiproxy: Toxiproxy,
  events: readonly BackgroundEventSpec[],
): Promise<string[]> {
  const lines: string[] = [];
  let proxies;
  try {
    const version = await toxiproxy.version();
    proxies = await toxiproxy.proxies();
    lines.push(
      `Toxiproxy ${version} at ${toxiproxy.url}, proxies ${proxies.map((p) => `${p.name} (${p.listen} -> ${p.upstream})`).join(', ') || 'none'}`,
    );
  } catch (err) {
    throw new RunError(
      `option --toxiproxy: ${err instanceof Error ? err.message : String(err)}; nothing was measured (start toxiproxy-server, or give its API's URL)`,
    );
  }
  const named = new Set(events.flatMap((e) => ('proxy' in e ? [e.proxy] : [])));
  const missing = [...named].filter((name) => !proxies.some((p) => p.name === name));
  if (missing.length > 0)
    throw new RunError(
      `option --event: Toxiproxy at ${toxiproxy.url} has no proxy ${missing.map((m) => `"${m}"`).join(', ')} (it has ${proxies.map((p) => `"${p.name}"`).join(', ') || 'none'}); nothing was measured`,
    );
  for (const proxy of proxies) {
    if (!proxy.enabled)
      lines.push(
        `warning: proxy ${proxy.name} is disabled at the run's start (a run killed before it could enable it again may have left it so; enable it with POST ${toxiproxy.url}/proxies/${proxy.name} {"enabled": true})`,
      );
    for (const toxic of proxy.toxics ?? []) {
      if (!toxic.name.startsWith(TOXIC_PREFIX)) continue;
      try {
        await toxiproxy.removeToxic(proxy.name, toxic.name);
        lines.push(
          `removed toxic ${toxic.name} (${toxic.type}) from proxy ${proxy.name}: a killed run's, left behind`,
        );
      } catch (err) {
        lines.push(
          `warning: a killed run's toxic ${toxic.name} on proxy ${proxy.name} could not be removed: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
  }
  return lines;
}

/** A mongos whose balancer is off (balancerStatus mode "off"): said, as a killed run may have stopped it. */
async function balancerStopped(client: MongoClient): Promise<string[]> {
  const status = await client
    .db('admin')
    .command({ balancerStatus: 1 })
    .catch(() => undefined);
  if (status?.mode !== 'off') return [];
  return [
    "warning: the balancer is stopped at the run's start (balancerStatus mode off; a run killed during a stopBalancer event may have left it so: sh.startBalancer() starts it)",
  ];
}
