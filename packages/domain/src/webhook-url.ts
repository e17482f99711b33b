// A webhook's URL is checked when it is registered and again at each delivery: https only
// outside demo mode, and no host that resolves to a loopback, link-local or private address
// (a receiver must not be a way into holdfast's own network), unless WEBHOOK_ALLOW_PRIVATE.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Which receivers are allowed (config.webhooks). */
export interface WebhookUrlPolicy {
  allowPrivate: boolean;
  allowHttp: boolean;
}

const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32],
] as const) BLOCKED.addSubnet(net, bits, 'ipv6');

/** The IPv4 address an IPv4-mapped (::ffff:a.b.c.d or ::ffff:xxxx:xxxx) IPv6 address carries, else null. */
function mappedIpv4(address: string): string | null {
  const a = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a) ?? /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  if (dotted) return dotted[1]!;
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** Loopback, link-local, private, CGNAT, unique-local, unspecified, multicast or reserved: not a public receiver. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const v4 = mappedIpv4(address);
    if (v4) return BLOCKED.check(v4, 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return true;
}

export type UrlVerdict = { ok: true; addresses: string[] } | { ok: false; reason: string };

/** Every address the host resolves to (an IP literal is its own). */
export async function resolveHost(hostname: string): Promise<string[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return [host];
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/**
 * Checks a receiver's URL against the policy, resolving its host: refused when the scheme is
 * not allowed, the host does not resolve, or any address it resolves to is private.
 */
export async function checkWebhookUrl(url: string, policy: WebhookUrlPolicy): Promise<UrlVerdict> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && policy.allowHttp)) {
    return { ok: false, reason: policy.allowHttp ? 'must be an http(s) URL' : 'must be an https URL (plain http only in demo mode or with WEBHOOK_ALLOW_PRIVATE=true)' };
  }
  let addresses: string[];
  try {
    addresses = await resolveHost(u.hostname);
  } catch {
    return { ok: false, reason: `its host ${u.hostname} does not resolve` };
  }
  if (!addresses.length) return { ok: false, reason: `its host ${u.hostname} does not resolve` };
  if (!policy.allowPrivate) {
    const bad = addresses.find(isPrivateAddress);
    if (bad) {
      return { ok: false, reason: `its host resolves to ${bad}, a loopback, link-local or private address (allowed only with WEBHOOK_ALLOW_PRIVATE=true)` };
    }
  }
  return { ok: true, addresses };
}
