import ipaddr from 'ipaddr.js';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** One LARDER_OUTBOUND_ALLOW entry as a CIDR (an address is its own /32 or /128), or null. */
function cidrOf(entry: string): Cidr | null {
  const bare = entry.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.isValidCIDR(bare)) return ipaddr.parseCIDR(bare);
  if (ipaddr.isValid(bare)) {
    const address = ipaddr.process(bare);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  }
  return null;
}

/** Why an entry of LARDER_OUTBOUND_ALLOW is unusable, or null (for config.ts). */
export function invalidAllowEntry(entry: string): string | null {
  if (cidrOf(entry) || HOST_NAME.test(entry)) return null;
  return 'must list host names, addresses or CIDRs (192.168.1.0/24, fd00::/8), comma-separated';
}

/** Entries are host names (matched ignoring case), addresses or CIDRs. */
export function createAllowList(entries: readonly string[]) {
  const hosts = new Set<string>();
  const cidrs: Cidr[] = [];
  for (const entry of entries) {
    const cidr = cidrOf(entry);
    if (cidr) cidrs.push(cidr);
    else hosts.add(entry.toLowerCase());
  }
  return {
    host: (hostname: string) => hosts.has(hostname.toLowerCase()),
    address: (ip: ipaddr.IPv4 | ipaddr.IPv6) =>
      cidrs.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits)),
  };
}

export type AllowList = ReturnType<typeof createAllowList>;
