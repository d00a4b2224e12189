import {
  hostHeaderAllowed,
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
});
