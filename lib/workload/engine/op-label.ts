/** What an op runs, for per-op figures: a command's name (aggregate, distinct, ...), else the op type. */
import type { OpSpec } from '../language/op-spec';

export function opLabel(spec: Pick<OpSpec, 'type' | 'command'>): string {
  if (spec.type !== 'command' || typeof spec.command !== 'object' || spec.command === null)
    return spec.type;
  return Object.keys(spec.command)[0] ?? spec.type;
}
