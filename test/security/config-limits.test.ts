import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#src/config.js';

describe('server limits and public URL in the configuration', () => {
  it('has defaults for every limit', () => {
    const config = loadConfig({}, '/tmp');
    expect(config.server).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 300_000,
      bodyMinRate: 500,
      bodyMinRateAfterMs: 20_000,
      keepAliveTimeoutMs: 10_000,
      maxRequestsPerSocket: 1000,
      maxConnections: 16_384,
    });
    expect(config.publicUrl).toBeNull();
  });

  it('reads durations and counts, and drops a trailing slash of the public URL', () => {
    const config = loadConfig(
      {
        LARDER_HEADERS_TIMEOUT: '5s',
        LARDER_REQUEST_TIMEOUT: '2m',
        LARDER_KEEP_ALIVE_TIMEOUT: '3',
        LARDER_BODY_MIN_RATE: '0',
        LARDER_BODY_MIN_RATE_AFTER: '1m',
        LARDER_MAX_REQUESTS_PER_SOCKET: '0',
        LARDER_MAX_CONNECTIONS: '50',
        LARDER_PUBLIC_URL: 'https://larder.example.org/app/',
      },
      '/tmp',
    );
    expect(config.server).toEqual({
      headersTimeoutMs: 5000,
      requestTimeoutMs: 120_000,
      bodyMinRate: 0,
      bodyMinRateAfterMs: 60_000,
      keepAliveTimeoutMs: 3000,
      maxRequestsPerSocket: 0,
      maxConnections: 50,
    });
    expect(config.publicUrl).toBe('https://larder.example.org/app');
  });

  it.each([
    ['LARDER_PUBLIC_URL', 'larder.example.org'],
    ['LARDER_PUBLIC_URL', 'ftp://larder.example.org'],
    ['LARDER_PUBLIC_URL', 'https://larder.example.org/?x=1'],
    ['LARDER_PUBLIC_URL', 'https://user:pw@larder.example.org'],
    ['LARDER_MAX_CONNECTIONS', '0'],
    ['LARDER_HEADERS_TIMEOUT', '0'],
    ['LARDER_REQUEST_TIMEOUT', '5'], // shorter than the 20 s headers timeout
    ['LARDER_BODY_MIN_RATE', '-1'],
    ['LARDER_BODY_MIN_RATE_AFTER', '0'],
  ])('refuses %s=%s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value }, '/tmp')).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value }, '/tmp')).toThrow(name);
  });
});
