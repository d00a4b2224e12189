/**
 * The shortest run the write-plan and harm tests make: one client, 50 ops a step (no clock to wait on),
 * no warm-up, 20 small documents, one worker, no server sampler. What they test is what is written,
 * never a figure.
 */
export const QUICK_RUN = [
  '--clients',
  '1',
  '--ops',
  '50',
  '--warmup',
  '0',
  '--docs',
  '20',
  '--doc-size',
  '64',
  '--workers',
  '1',
  '--no-server-stats',
] as const;
