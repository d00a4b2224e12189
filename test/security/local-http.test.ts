import { createServer } from 'node:http';
import { UsageError } from '../../lib/config/errors';
import {
  hostHeaderAllowed,
  listenLocally,
  isLoopbackHost,
  offLoopbackWarning,
} from '../../lib/security/local-http';

describe('local-http', () => {
  it('knows loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '10.0.0.1', '::', 'example.com', '128.0.0.1'])
      expect(isLoopbackHost(host)).toBe(false);
  });

  it('answers only Host headers naming the bound address, localhost or 127.0.0.1', () => {
    expect(hostHeaderAllowed('127.0.0.1:9100', '127.0.0.1')).toBe(true);
    expect(hostHeaderAllowed('localhost:9100', '127.0.0.1')).toBe(true);
    expect(hostHeaderAllowed('LocalHost', '127.0.0.1')).toBe(true);
    expect(hostHeaderAllowed('10.1.2.3:9100', '10.1.2.3')).toBe(true);
    expect(hostHeaderAllowed('[::1]:9100', '::1')).toBe(true);
    // DNS rebinding: the attacker's name resolves to 127.0.0.1, the header still names it.
    expect(hostHeaderAllowed('evil.example:9100', '127.0.0.1')).toBe(false);
    expect(hostHeaderAllowed('127.0.0.1.evil.example', '127.0.0.1')).toBe(false);
    expect(hostHeaderAllowed(undefined, '127.0.0.1')).toBe(false);
    expect(hostHeaderAllowed('', '127.0.0.1')).toBe(false);
  });

  it('warns only off loopback', () => {
    expect(offLoopbackWarning('the metrics endpoint', '127.0.0.1', 9100)).toBeUndefined();
    expect(offLoopbackWarning('the metrics endpoint', '0.0.0.0', 9100)).toContain('0.0.0.0:9100');
  });

  it('listens on a free port, and names the option of a taken port or a foreign address', async () => {
    const names = { port: 'metricsPort', host: 'metricsHost' };
    const first = createServer();
    const port = await listenLocally(first, '127.0.0.1', 0, names);
    expect(port).toBeGreaterThan(0);
    try {
      const taken = listenLocally(createServer(), '127.0.0.1', port, names);
      await expect(taken).rejects.toBeInstanceOf(UsageError);
      await expect(taken).rejects.toMatchObject({ option: 'metricsPort' });
      const foreign = listenLocally(createServer(), '192.0.2.1', 0, names);
      await expect(foreign).rejects.toMatchObject({ option: 'metricsHost' });
    } finally {
      await new Promise<void>((resolve) => first.close(() => resolve()));
    }
  });
});
