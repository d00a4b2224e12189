/**
 * A baseline belongs to one server: the same product, version and kind (MongoDB or a test double).
 * A result from another server is not a regression or an improvement of the code under test, so
 * the comparison is refused, and before the benchmark runs when the caller names the baseline.
 */
import { ResultDocument } from '../result';

/**
 * What identifies a server in a result. `product` is optional: results that name the product
 * (name, version) are compared by it as well; older results have only serverVersion and testDouble.
 */
export type ServerIdentity = Pick<ResultDocument['target'], 'serverVersion' | 'testDouble'> & {
  product?: { name?: string; version?: string };
};

function describe(t: ServerIdentity): string {
  const product = t.product?.name
    ? `${t.product.name}${t.product.version ? ` ${t.product.version}` : ''}, `
    : '';
  return `${product}${t.testDouble ? 'test double' : 'not a test double'}, reports ${t.serverVersion ?? 'no version'}`;
}

/**
 * How the candidate's server differs from the baseline's, in words, or undefined when it is the
 * same. A field absent on either side (an older result, a server that did not say) is not compared.
 */
export function serverDifference(
  baseline: ServerIdentity,
  candidate: ServerIdentity,
): string | undefined {
  const differences: string[] = [];
  const differ = (what: string, a: unknown, b: unknown) => {
    if (a !== undefined && b !== undefined && a !== b)
      differences.push(`${what} ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  };
  if ((baseline.testDouble === true) !== (candidate.testDouble === true)) {
    differences.push(
      `test double ${baseline.testDouble === true} vs ${candidate.testDouble === true}`,
    );
  }
  differ('product', baseline.product?.name, candidate.product?.name);
  differ('product version', baseline.product?.version, candidate.product?.version);
  differ('server version', baseline.serverVersion, candidate.serverVersion);
  if (differences.length === 0) return undefined;
  return `the baseline was measured on another server (${differences.join('; ')}): baseline ${describe(baseline)}; this one ${describe(candidate)}`;
}
