import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { createAllowList, type AllowList } from './allow-list.js';

/** Why an outbound request was not made or failed; its message never carries the URL. */
export class OutboundError extends Error {}

export interface OutboundRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** the start of the answer, at most `maxResponseBytes` */
  body: Buffer;
}

/**
 * The only way Larder makes requests that users cause (webhooks, push deliveries), in the
 * policy of docs/security.md "Outbound requests": http(s) only, no userinfo, no redirects followed, a
 * deadline and a bounded answer, and every address it connects to checked when it connects (a
 * name resolving to a refused address is refused even when it resolved elsewhere before: no DNS
 * rebinding). Loopback, private, link-local (cloud metadata), multicast, unspecified and other
 * special-purpose addresses are refused unless `allow` (LARDER_OUTBOUND_ALLOW) names the host,
 * the address or a CIDR holding it.
 */
export function createOutbound(options: {
  allow: readonly string[];
  timeoutMs?: number;
  maxResponseBytes?: number;
}) {
  const allow: AllowList = createAllowList(options.allow);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;

  /** Why `address` may not be reached (its range, e.g. "loopback"), or null. */
  function refusedRange(address: string, host: string): string | null {
    if (allow.host(host)) return null;
    const ip = ipaddr.process(address);
    if (allow.address(ip)) return null;
    const range = ip.range();
    return range === 'unicast' ? null : range;
  }

  /** The parsed target, or OutboundError saying what is wrong with it (for a 400). */
  function checkUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw.trim());
    } catch {
      throw new OutboundError('must be an absolute http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OutboundError(`must use http or https (got ${url.protocol.replace(':', '')})`);
    }
    if (url.username !== '' || url.password !== '') {
      throw new OutboundError('must not carry a user name or password (user:password@)');
    }
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (ipaddr.isValid(literal)) {
      const range = refusedRange(literal, url.hostname);
      if (range) throw refused(literal, range);
    }
    return url;
  }

  const refused = (address: string, range: string) =>
    new OutboundError(
      `${address} is a ${range} address, refused for outbound requests unless ` +
        'LARDER_OUTBOUND_ALLOW allows it',
    );

  /** net's lookup, resolving as usual and refusing the answer when an address is refused. */
  const checkedLookup =
    (host: string): LookupFunction =>
    (hostname, lookupOptions, callback) => {
      dns.lookup(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 4);
        for (const { address } of addresses) {
          const range = refusedRange(address, host);
          if (range) return callback(refused(address, range), '', 4);
        }
        if (lookupOptions.all) return callback(null, addresses);
        const first = addresses[0]!;
        return callback(null, first.address, first.family);
      });
    };

  return {
    checkUrl,

    /** Sends the request; resolves with any answer (3xx included: redirects are not followed). */
    send(request: OutboundRequest): Promise<OutboundResponse> {
      const url = checkUrl(request.url);
      const client = url.protocol === 'https:' ? https : http;
      return new Promise((resolve, reject) => {
        const req = client.request(url, {
          method: request.method,
          headers: request.headers,
          lookup: checkedLookup(url.hostname),
          agent: false,
        });
        const deadline = setTimeout(
          () => req.destroy(new OutboundError(`timed out after ${timeoutMs} ms`)),
          timeoutMs,
        );
        req.on('error', (err) => {
          clearTimeout(deadline);
          reject(err instanceof OutboundError ? err : new OutboundError(describe(err)));
        });
        req.on('response', (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const finish = () => {
            clearTimeout(deadline);
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            });
            response.destroy();
          };
          response.on('data', (chunk: Buffer) => {
            chunks.push(chunk.subarray(0, maxResponseBytes - size));
            size += chunk.length;
            if (size >= maxResponseBytes) finish();
          });
          response.on('end', finish);
          response.on('error', () => finish());
        });
        req.end(request.body);
      });
    },
  };
}

/** A network error as a short message: its code and address, never the URL. */
function describe(err: Error & { code?: string; address?: string; port?: number }): string {
  if (err.code && err.address) return `${err.code} ${err.address}:${err.port ?? ''}`;
  return err.code ?? 'request failed';
}

export type Outbound = ReturnType<typeof createOutbound>;
