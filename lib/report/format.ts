/** Number formatting shared by chart ticks, summary.md and index.html (locale-independent). */

function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 12345.6 -> "12,346" */
export function formatOps(n: number): string {
  const rounded = Math.round(n);
  return (rounded < 0 ? '-' : '') + group(String(Math.abs(rounded)));
}

/** Milliseconds to the microsecond below 1 ms, else about three significant digits: 0.071, 1.25, 34.2, 1,329 */
export function formatMs(ms: number): string {
  if (ms === 0) return '0';
  const abs = Math.abs(ms);
  if (abs >= 100) return formatOps(ms);
  const decimals = abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return ms.toFixed(decimals);
}

/** Microseconds -> milliseconds text. */
export function formatMicrosAsMs(micros: number): string {
  return formatMs(micros / 1000);
}
