/**
 * What differs between the servers of A and B (product, version, storage engine, WiredTiger cache,
 * the server's host): each difference is a warning beside the ratios, since it, not the change under
 * test, may explain them. Facts a result did not record are not compared.
 */
import { ResultDocument, ServerProcessFacts } from '../result';

function first(result: ResultDocument): ServerProcessFacts | undefined {
  return result.target.processes?.[0];
}

function hostLine(p: ServerProcessFacts | undefined): string | undefined {
  const h = p?.hostInfo;
  if (!h) return undefined;
  return (
    [
      h.cores !== undefined ? `${h.cores} cores` : '',
      h.memoryMB !== undefined ? `${h.memoryMB} MB` : '',
      h.os ?? '',
    ]
      .filter(Boolean)
      .join(', ') || undefined
  );
}

export function serverDifferences(a: ResultDocument, b: ResultDocument): string[] {
  const out: string[] = [];
  const differ = (what: string, x: string | undefined, y: string | undefined) => {
    if (x !== undefined && y !== undefined && x !== y) out.push(`${what}: A ${x}, B ${y}`);
  };
  const pa = a.target.product;
  const pb = b.target.product;
  differ(
    'product',
    pa ? `${pa.name}${pa.edition ? ` ${pa.edition}` : ''}` : undefined,
    pb ? `${pb.name}${pb.edition ? ` ${pb.edition}` : ''}` : undefined,
  );
  differ('version', pa?.version ?? a.target.serverVersion, pb?.version ?? b.target.serverVersion);
  if (pa?.name !== 'MongoDB' || pb?.name !== 'MongoDB')
    differ('reported MongoDB version', pa?.reportedMongoDBVersion, pb?.reportedMongoDBVersion);
  differ('storage engine', first(a)?.storageEngine, first(b)?.storageEngine);
  const cache = (p: ServerProcessFacts | undefined) =>
    p?.cacheBytes !== undefined
      ? `${Math.round((p.cacheBytes / 1024 ** 3) * 100) / 100} GiB`
      : undefined;
  differ('WiredTiger cache', cache(first(a)), cache(first(b)));
  differ('server host', hostLine(first(a)), hostLine(first(b)));
  return out;
}
