/** Reads Prometheus's text exposition format (what /metrics serves) into samples, for tests. */

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the sample with exactly these labels; undefined when there is none. */
export function sampleValue(
  samples: readonly MetricSample[],
  name: string,
  labels: Record<string, string>,
): number | undefined {
  const keys = Object.keys(labels);
  return samples.find(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === keys.length &&
      keys.every((k) => s.labels[k] === labels[k]),
  )?.value;
}
