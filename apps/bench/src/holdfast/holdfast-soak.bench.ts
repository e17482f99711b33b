import { readFile } from 'node:fs/promises';

import { parseEventKey } from '@holdfast/hold-store';
import { paymentIntentEvent } from '@holdfast/test-kit';
import type Redis from 'ioredis';

import type { ChildServer } from '../baselines/child-server.launcher';
import { usedMemory } from '../bench-redis.service';
import { ConnectionPool, type ConnectionRequest } from '../http-connection.client';
import { round3 } from '../latency.histogram';
import { markdownTable, type Cell } from '../report/markdown-table.format';
import type { HoldfastFixture } from './holdfast.fixture';

/** The plan's `soak` part. */
export interface SoakOptions {
  /** How long holds are taken. */
  durationMs: number;
  /** Holds started per second (paced, not closed-loop: a sale's arrivals do not wait for answers). */
  holdsPerSec: number;
  /** Connections to the API (requests in flight at most). */
  connections: number;
  /** The event's hold time: holds left alone lapse after it, within the run. */
  holdTtlSeconds: number;
  /** Of every 20 holds: how many are paid by a confirm, by a webhook, and released; the rest lapse. */
  per20: { confirm: number; webhook: number; release: number };
  /** Seconds between samples of Redis memory and the API's resident memory. */
  sampleEverySec: number;
  /** Keys of each kind whose MEMORY USAGE is read (the kind's bytes are extrapolated from them). */
  keySamplesPerKind: number;
}

export interface SoakSample {
  tSec: number;
  /** INFO memory used_memory less the baseline taken before the sale, bytes. */
  redisDeltaBytes: number;
  apiRssMb: number | null;
  liveHolds: number;
}

/** One kind of key at one moment: how many, their bytes (MEMORY USAGE, sampled), and those left after another hour. */
export interface KeyKindCensus {
  kind: string;
  /** 'hold': one per hold or customer (the kinds a hold leaves); 'event': the event's own; 'other': BullMQ, idempotency, … */
  scope: 'hold' | 'event' | 'other';
  keys: number;
  bytes: number;
  /** Keys without a TTL or whose TTL exceeds an hour, and their bytes. */
  keysAfterHour: number;
  bytesAfterHour: number;
  /** TTLs seen (seconds; -1 none), min and max of the sample. */
  ttlSec: { min: number; max: number } | null;
  /** bytesAfterHour less that of the same kind before the sale (what the sale added that lasts). */
  addedBytesAfterHour?: number;
}

export interface SoakReport {
  durationSec: number;
  holdsPerSecAsked: number;
  holdTtlSeconds: number;
  holds: { ok: number; failed: number; statusCounts: Record<string, number> };
  confirmed: number;
  paidByWebhook: number;
  released: number;
  /** Holds that ended by time (the worker's expiry), counted in PostgreSQL. */
  expired: number;
  actionFailures: number;
  /** Up to five distinct failed requests (holds, payments, releases): the request, then the status and the start of the body (or the transport error). */
  failureSamples: string[];
  samples: SoakSample[];
  /** At the sale's end, holds still live. */
  peak: { liveHolds: number; redisDeltaBytes: number; bytesPerLiveHold: number | null; census: KeyKindCensus[]; holdKeyBytesPerLiveHold: number | null };
  /** Once every hold has ended (and the outbox drained). */
  ended: {
    holds: number;
    waitedSec: number;
    /** When the wait hit its deadline (hold time + 120 s) with holds not ended yet: what was left then, and measured anyway; null when every hold ended. */
    unfinished: { activeInPostgres: number; activeRecordsInRedis: number; outboxEntries: number } | null;
    redisDeltaBytes: number;
    bytesPerEndedHold: number | null;
    census: KeyKindCensus[];
    /** Bytes of the event's and the holds' keys the sale added that are still there an hour later, from the TTLs (nobody waits the hour), per ended hold. */
    bytesPerEndedHoldAfterHour: number | null;
    /** Bytes of other keys (BullMQ's jobs, idempotency answers) still there an hour later, all of them, not per hold: bounded by count or contract. */
    otherBytesAfterHour: number;
  };
  apiRssMb: { start: number | null; max: number | null; end: number | null };
  note: string;
}

const HOUR_MS = 3600_000;

/** The API process's resident memory, MB (VmRSS), or null without /proc. */
async function rssMb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return Number.isFinite(kb) ? round3(kb / 1024) : null;
  } catch {
    return null;
  }
}

/** Every key of the Redis database by kind: event keys by their kind (keys.ts), others by their first word. */
async function census(redis: Redis, eventId: string, samplesPerKind: number): Promise<KeyKindCensus[]> {
  const byKind = new Map<string, { scope: KeyKindCensus['scope']; keys: string[] }>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 2000);
    cursor = next;
    for (const key of keys) {
      const parsed = parseEventKey(key);
      if (parsed && parsed.eventId !== eventId) continue; // another event's (another part of the bench)
      const kind = parsed ? parsed.kind : key.split(':')[0] ?? key;
      const scope: KeyKindCensus['scope'] = parsed ? (parsed.id === null ? 'event' : 'hold') : 'other';
      const entry = byKind.get(kind) ?? { scope, keys: [] };
      entry.keys.push(key);
      byKind.set(kind, entry);
    }
  } while (cursor !== '0');
  // Hold records split by what they read: a live hold's whole record, or an ended hold's tombstone (its status alone).
  const holds = byKind.get('hold');
  if (holds) {
    byKind.delete('hold');
    for (let i = 0; i < holds.keys.length; i += 1000) {
      const chunk = holds.keys.slice(i, i + 1000);
      const p = redis.pipeline();
      for (const key of chunk) p.hget(key, 'status');
      const statuses = ((await p.exec()) ?? []).map(([, v]) => v as string | null);
      chunk.forEach((key, j) => {
        const kind = statuses[j] === 'active' ? 'hold record, live' : 'hold record, ended';
        const entry = byKind.get(kind) ?? { scope: 'hold' as const, keys: [] };
        entry.keys.push(key);
        byKind.set(kind, entry);
      });
    }
  }
  const out: KeyKindCensus[] = [];
  for (const [kind, { scope, keys }] of byKind) {
    // An even spread of the kind's keys, each read for its bytes and its TTL.
    const step = Math.max(1, keys.length / samplesPerKind);
    const sample: string[] = [];
    for (let i = 0; i < keys.length && sample.length < samplesPerKind; i += step) sample.push(keys[Math.floor(i)]!);
    const p = redis.pipeline();
    for (const key of sample) p.call('MEMORY', 'USAGE', key, 'SAMPLES', '0').pttl(key);
    const replies = ((await p.exec()) ?? []).map(([, v]) => Number(v));
    let bytes = 0;
    let bytesAfter = 0;
    let keysAfter = 0;
    let min = Infinity;
    let max = -Infinity;
    let read = 0;
    for (let i = 0; i < sample.length; i += 1) {
      const size = replies[2 * i]!;
      const ttl = replies[2 * i + 1]!;
      if (ttl === -2 || !Number.isFinite(size)) continue; // gone meanwhile
      read += 1;
      bytes += size;
      const lasts = ttl === -1 || ttl > HOUR_MS;
      if (lasts) {
        bytesAfter += size;
        keysAfter += 1;
      }
      const sec = ttl === -1 ? -1 : Math.round(ttl / 1000);
      min = Math.min(min, sec);
      max = Math.max(max, sec);
    }
    const scale = read > 0 ? keys.length / read : 0;
    out.push({
      kind, scope, keys: keys.length, bytes: Math.round(bytes * scale),
      keysAfterHour: Math.round(keysAfter * scale), bytesAfterHour: Math.round(bytesAfter * scale),
      ttlSec: read > 0 ? { min, max } : null,
    });
  }
  return out.sort((a, b) => b.bytes - a.bytes);
}

const total = (rows: KeyKindCensus[], pick: (r: KeyKindCensus) => number, scope?: KeyKindCensus['scope']) =>
  rows.filter((r) => !scope || r.scope === scope).reduce((t, r) => t + pick(r), 0);

/**
 * A sale held for minutes against the real API and worker: holds paced at a
 * rate, each then paid (a confirm or a Stripe webhook), released, or left to
 * lapse (the worker expires it), as the plan's shares say. Redis's used_memory
 * (against a baseline taken before the sale) and the API's resident memory are
 * sampled as it goes; at the sale's end and once every hold has ended, every
 * key of the Redis database is counted by kind with its bytes (MEMORY USAGE of
 * a sample) and its TTL. What is left an hour after the sale is computed from
 * those TTLs (keys without one, or with more than an hour left), not waited for.
 */
export async function soakSection(
  fixture: HoldfastFixture, api: ChildServer, options: SoakOptions, log: (line: string) => void,
): Promise<SoakReport> {
  const plannedHolds = Math.ceil((options.durationMs / 1000) * options.holdsPerSec);
  log(`soak: creating a ${plannedHolds}-seat event (hold time ${options.holdTtlSeconds} s), starting the worker`);
  const event = await fixture.createEvent({ name: 'bench soak', seats: plannedHolds, holdTtlSeconds: options.holdTtlSeconds, maxTicketsPerCustomer: 1000 });
  const worker = await fixture.startWorker();
  const pool = new ConnectionPool(api.baseUrl, options.connections);
  const redis = fixture.redis;
  const serviceToken = fixture.serviceToken();
  const tokens = new Map<number, string>();
  const customerOf = (i: number) => Math.floor(i / 20);
  const tokenOf = (i: number) => {
    let t = tokens.get(customerOf(i));
    if (!t) tokens.set(customerOf(i), (t = fixture.customerToken(`soak-${customerOf(i)}`)));
    return t;
  };
  const timers = new Set<NodeJS.Timeout>();
  try {
    // Prime the event (its first hold loads it into Redis), then take the baseline.
    const first = await pool.send({
      method: 'POST', path: `/v1/events/${event.eventId}/holds`, headers: { authorization: `Bearer ${tokenOf(0)}` },
      body: JSON.stringify({ seatIds: [event.seatIds[0]] }),
    });
    if (first.status !== 201) throw new Error(`soak: the first hold answered ${first.status}: ${first.body.toString().slice(0, 200)}`);
    const firstId = (JSON.parse(first.body.toString()) as { hold: { id: string } }).hold.id;
    await pool.send({ method: 'DELETE', path: `/v1/holds/${firstId}`, headers: { authorization: `Bearer ${tokenOf(0)}` } });
    await new Promise((r) => setTimeout(r, 500));
    const baseline = await usedMemory(redis);
    const baseCensus = await census(redis, event.eventId, options.keySamplesPerKind);
    const rssStart = await rssMb(api.pid);

    const statusCounts: Record<string, number> = {};
    let ok = 0;
    let failed = 0;
    let confirmed = 0;
    let paidByWebhook = 0;
    let released = 0;
    let actionFailures = 0;
    const failureSamples = new Set<string>();
    const sampleFailure = (request: ConnectionRequest, what: string) => {
      if (failureSamples.size < 5) failureSamples.add(`${request.method} ${request.path}: ${what}`.slice(0, 300));
    };
    const failedAction = (request: ConnectionRequest, what: string) => {
      actionFailures += 1;
      sampleFailure(request, what);
    };
    const liveUntil: number[] = []; // expiresAt of holds not yet paid or released
    const ended = new Set<number>();
    const samples: SoakSample[] = [];
    const started = Date.now();
    const liveNow = () => {
      const now = Date.now();
      let n = 0;
      for (let i = 0; i < liveUntil.length; i += 1) if (!ended.has(i) && liveUntil[i]! > now) n += 1;
      return n;
    };
    const inFlight = new Set<Promise<unknown>>();
    const track = (p: Promise<unknown>) => {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    const act = (i: number, holdId: string, hold: { totalCents: number; currency: string }) => {
      const slot = i % 20;
      const { confirm, webhook, release } = options.per20;
      let request: ConnectionRequest | null = null;
      let onOk = () => undefined as void;
      if (slot < confirm) {
        request = {
          method: 'POST', path: `/v1/holds/${holdId}/confirm`, headers: { authorization: `Bearer ${serviceToken}` },
          body: JSON.stringify({ paymentReference: `soak-${i}` }),
        };
        onOk = () => void (confirmed += 1);
      } else if (slot < confirm + webhook) {
        const payload = JSON.stringify(paymentIntentEvent({ holdId, amount: hold.totalCents, currency: hold.currency }));
        request = {
          method: 'POST', path: '/v1/webhooks/stripe',
          headers: { 'content-type': 'application/json', 'stripe-signature': fixture.signWebhook(payload) }, body: payload,
        };
        onOk = () => void (paidByWebhook += 1);
      } else if (slot < confirm + webhook + release) {
        request = { method: 'DELETE', path: `/v1/holds/${holdId}`, headers: { authorization: `Bearer ${tokenOf(i)}` } };
        onOk = () => void (released += 1);
      }
      if (!request) return; // left to lapse
      const sent = request;
      // Paid or released a little later, as a buyer would: 0.2–3 s after the hold.
      const timer = setTimeout(() => {
        timers.delete(timer);
        track(pool.send(sent).then((res) => {
          if (res.status >= 200 && res.status < 300) {
            ended.add(i);
            onOk();
          } else failedAction(sent, `${res.status} ${res.body.toString('utf8', 0, 200)}`);
        }, (err: unknown) => failedAction(sent, (err as Error).message)));
      }, 200 + Math.random() * 2800);
      timers.add(timer);
    };

    log(`soak: ${options.holdsPerSec} holds/s for ${options.durationMs / 1000} s; of 20: ${options.per20.confirm} confirmed, ` +
      `${options.per20.webhook} paid by webhook, ${options.per20.release} released, the rest lapse`);
    let next = 1; // seat 0 was the priming hold's
    let nextSample = started;
    while (Date.now() - started < options.durationMs && next < event.seatIds.length) {
      const due = Math.min(event.seatIds.length, 1 + Math.floor(((Date.now() - started) / 1000) * options.holdsPerSec));
      for (; next < due; next += 1) {
        const i = next;
        const holdRequest: ConnectionRequest = {
          method: 'POST', path: `/v1/events/${event.eventId}/holds`, headers: { authorization: `Bearer ${tokenOf(i)}` },
          body: JSON.stringify({ seatIds: [event.seatIds[i]] }),
        };
        track(pool.send(holdRequest).then((res) => {
          statusCounts[res.status] = (statusCounts[res.status] ?? 0) + 1;
          if (res.status !== 201) {
            failed += 1;
            return sampleFailure(holdRequest, `${res.status} ${res.body.toString('utf8', 0, 200)}`);
          }
          ok += 1;
          const hold = (JSON.parse(res.body.toString()) as { hold: { id: string; totalCents: number; currency: string; expiresAt: string } }).hold;
          liveUntil[i] = Date.parse(hold.expiresAt);
          act(i, hold.id, hold);
        }, (err: unknown) => {
          failed += 1;
          sampleFailure(holdRequest, (err as Error).message);
        }));
      }
      if (Date.now() >= nextSample) {
        nextSample += options.sampleEverySec * 1000;
        const [mem, rss] = await Promise.all([usedMemory(redis), rssMb(api.pid)]);
        samples.push({ tSec: round3((Date.now() - started) / 1000), redisDeltaBytes: mem - baseline, apiRssMb: rss, liveHolds: liveNow() });
        const last = samples[samples.length - 1]!;
        log(`  t=${Math.round(last.tSec)} s: ${ok} holds, ${last.liveHolds} live, Redis +${(last.redisDeltaBytes / 1e6).toFixed(1)} MB, API RSS ${last.apiRssMb} MB`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const durationSec = round3((Date.now() - started) / 1000);
    await Promise.all([...inFlight]);
    const peakLive = liveNow();
    const peakMem = (await usedMemory(redis)) - baseline;
    const peakCensus = await census(redis, event.eventId, options.keySamplesPerKind);
    // A live hold's own keys: its record, its seat keys, its claim, its customer's entries (not the tombstones of holds already over).
    const holdKeyBytes = total(peakCensus.filter((r) => r.kind !== 'hold record, ended'), (r) => r.bytes, 'hold');
    log(`soak: sale over: ${ok} holds (${failed} refused), ${peakLive} live; Redis +${(peakMem / 1e6).toFixed(1)} MB; waiting for every hold to end`);

    // Every hold ends: the last payments and releases, then the lapses (the worker's expiries).
    const waitStart = Date.now();
    while (timers.size > 0 || inFlight.size > 0) await new Promise((r) => setTimeout(r, 100));
    const deadline = Date.now() + options.holdTtlSeconds * 1000 + 120_000;
    let unfinished: SoakReport['ended']['unfinished'] = null;
    for (;;) {
      const [row] = await fixture.db.$queryRaw<{ active: bigint }[]>`
        SELECT count(*) AS active FROM holds WHERE event_id = ${event.eventId}::uuid AND status = 'ACTIVE'`;
      const records = await activeRecords(redis, event.eventId);
      const outbox = await fixture.ctx.store.outboxLength(event.eventId);
      if (Number(row?.active ?? 1) === 0 && records === 0 && outbox === 0) break;
      if (Date.now() > deadline) {
        log(`soak: still ${row?.active} holds ACTIVE in PostgreSQL, ${records} active records in Redis, ${outbox} outbox entries; measuring anyway`);
        unfinished = { activeInPostgres: Number(row?.active ?? 0), activeRecordsInRedis: records, outboxEntries: outbox };
        break;
      }
      if (Date.now() - nextSample >= 0) {
        nextSample = Date.now() + options.sampleEverySec * 1000;
        const [mem, rss] = await Promise.all([usedMemory(redis), rssMb(api.pid)]);
        samples.push({ tSec: round3((Date.now() - started) / 1000), redisDeltaBytes: mem - baseline, apiRssMb: rss, liveHolds: liveNow() });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const waitedSec = round3((Date.now() - waitStart) / 1000);
    const [counts] = await fixture.db.$queryRaw<{ holds: bigint; expired: bigint }[]>`
      SELECT count(*) AS holds, count(*) FILTER (WHERE status = 'EXPIRED') AS expired FROM holds WHERE event_id = ${event.eventId}::uuid`;
    const endedHolds = Number(counts?.holds ?? 0);
    const endMem = (await usedMemory(redis)) - baseline;
    const endCensus = await census(redis, event.eventId, options.keySamplesPerKind);
    // An hour on: the bytes of keys that will still be there (no TTL, or more than an hour left), beyond those before the sale.
    for (const row of endCensus) row.addedBytesAfterHour = row.bytesAfterHour - (baseCensus.find((b) => b.kind === row.kind)?.bytesAfterHour ?? 0);
    // Per ended hold: what the sale added to the event's keys and the holds' own that lasts. BullMQ's completed jobs and
    // idempotency answers are counted apart: bounded by count (1,000 expiry jobs) or kept by contract (24 h), whatever the sale's size.
    const afterHour = total(endCensus.filter((r) => r.scope !== 'other'), (r) => Math.max(0, r.addedBytesAfterHour ?? 0));
    const otherAfterHour = total(endCensus, (r) => r.bytesAfterHour, 'other');
    const rssEnd = await rssMb(api.pid);
    samples.push({ tSec: round3((Date.now() - started) / 1000), redisDeltaBytes: endMem, apiRssMb: rssEnd, liveHolds: 0 });
    const rssValues = samples.map((s) => s.apiRssMb).filter((v): v is number => v !== null);
    return {
      durationSec,
      holdsPerSecAsked: options.holdsPerSec,
      holdTtlSeconds: options.holdTtlSeconds,
      holds: { ok, failed, statusCounts },
      confirmed,
      paidByWebhook,
      released,
      expired: Number(counts?.expired ?? 0),
      actionFailures,
      failureSamples: [...failureSamples],
      samples,
      peak: {
        liveHolds: peakLive, redisDeltaBytes: peakMem, bytesPerLiveHold: peakLive > 0 ? Math.round(peakMem / peakLive) : null,
        census: peakCensus, holdKeyBytesPerLiveHold: peakLive > 0 ? Math.round(holdKeyBytes / peakLive) : null,
      },
      ended: {
        holds: endedHolds, waitedSec, unfinished, redisDeltaBytes: endMem,
        bytesPerEndedHold: endedHolds > 0 ? Math.round(endMem / endedHolds) : null,
        census: endCensus,
        bytesPerEndedHoldAfterHour: endedHolds > 0 ? Math.round(afterHour / endedHolds) : null,
        otherBytesAfterHour: otherAfterHour,
      },
      apiRssMb: { start: rssStart, max: rssValues.length ? Math.max(...rssValues) : null, end: rssEnd },
      note:
        'Redis used_memory is the whole server\'s (other databases and clients share it on a shared machine); the key census ' +
        '(MEMORY USAGE of sampled keys of this database, by kind) is this sale\'s own. "An hour after" is computed from the ' +
        'TTLs at the end (keys with no TTL or more than 3600 s left), not waited for.',
    };
  } finally {
    for (const t of timers) clearTimeout(t);
    pool.close();
    await worker.signal('SIGTERM').catch(() => undefined);
    await fixture.dropEvent(event.eventId);
  }
}

/** Hold records of the event that still read active (a hold not ended in Redis yet). */
async function activeRecords(redis: Redis, eventId: string): Promise<number> {
  let n = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `{ev:${eventId}}:hold:*`, 'COUNT', 2000);
    cursor = next;
    if (keys.length === 0) continue;
    const p = redis.pipeline();
    for (const key of keys) p.hget(key, 'status');
    for (const [, status] of (await p.exec()) ?? []) if (status === 'active') n += 1;
  } while (cursor !== '0');
  return n;
}

export function renderSoakSection(report: SoakReport | null | undefined): string[] {
  if (!report) return [];
  // used_memory is the whole server's: below its value before the sale, it counts other keys' removal, not the holds.
  const shrank = report.ended.redisDeltaBytes < 0;
  const kb = (b: number) => round3(b / 1024);
  const rows = (c: KeyKindCensus[]): Cell[][] => c.filter((r) => r.keys > 0).map((r) => [
    r.kind, r.scope, r.keys, kb(r.bytes), r.ttlSec ? `${r.ttlSec.min}–${r.ttlSec.max}` : null, r.keysAfterHour, kb(r.bytesAfterHour),
    r.addedBytesAfterHour === undefined ? null : kb(r.addedBytesAfterHour),
  ]);
  const headers = ['key kind', 'per', 'keys', 'KiB (MEMORY USAGE)', 'TTL s (sample)', 'keys left after 1 h', 'KiB left after 1 h', 'of which added by the sale, KiB'];
  return [
    '',
    `## Soak: ${report.holds.ok} holds over ${report.durationSec} s (${report.holdsPerSecAsked}/s asked, hold time ${report.holdTtlSeconds} s)`,
    '',
    `${report.confirmed} confirmed, ${report.paidByWebhook} paid by webhook, ${report.released} released, ${report.expired} expired ` +
      `(${report.holds.failed} holds refused, ${report.actionFailures} payments or releases failed); ` +
      (report.ended.unfinished
        ? `**not every hold had ended ${report.ended.waitedSec} s after the sale** (the wait's limit: hold time + 120 s): ` +
          `${report.ended.unfinished.activeInPostgres} holds still ACTIVE in PostgreSQL, ${report.ended.unfinished.activeRecordsInRedis} live records ` +
          `in Redis, ${report.ended.unfinished.outboxEntries} outbox entries (the worker's expiries behind); measured anyway, so the "ended" rows count them.`
        : `every hold ended ${report.ended.waitedSec} s after the sale.`),
    ...(report.failureSamples.length ? ['', 'Failed requests (up to five distinct):', '', ...report.failureSamples.map((f) => `- ${f}`)] : []),
    '',
    markdownTable(['Redis', 'holds', 'used_memory Δ MB', 'bytes per hold', 'bytes per hold, per-hold keys (census)', 'bytes per ended hold after 1 h (from TTLs)'], [
      ['live (sale end)', report.peak.liveHolds, round3(report.peak.redisDeltaBytes / 1e6), report.peak.bytesPerLiveHold, report.peak.holdKeyBytesPerLiveHold, null],
      ['ended (all)', report.ended.holds, round3(report.ended.redisDeltaBytes / 1e6), shrank ? null : report.ended.bytesPerEndedHold, null, report.ended.bytesPerEndedHoldAfterHour],
    ]),
    '',
    ...(shrank
      ? ['Redis\'s used_memory ended below where it was before the sale: keys that were there before it (BullMQ\'s jobs of earlier sections, say) ' +
          'were removed meanwhile, so the server-wide Δ says nothing per hold (–); the census and the TTLs below are this sale\'s own.', '']
      : []),
    `An hour after the sale (from the TTLs): ${report.ended.bytesPerEndedHoldAfterHour ?? '–'} bytes per ended hold in the event's and the holds' keys; ` +
      `besides, ${round3(report.ended.otherBytesAfterHour / 1e6)} MB in other keys (BullMQ's jobs, at most 1,000 completed expiry jobs; idempotency answers, 24 h), whatever the sale's size.`,
    '',
    `API resident memory: ${report.apiRssMb.start} MB before, ${report.apiRssMb.max} MB at most, ${report.apiRssMb.end} MB at the end.`,
    '',
    markdownTable(['t s', 'live holds', 'Redis Δ MB', 'API RSS MB'], report.samples.map((s) => [s.tSec, s.liveHolds, round3(s.redisDeltaBytes / 1e6), s.apiRssMb])),
    '',
    'Keys at the sale\'s end (holds live):',
    '',
    markdownTable(headers, rows(report.peak.census)),
    '',
    'Keys once every hold ended:',
    '',
    markdownTable(headers, rows(report.ended.census)),
    '',
    report.note,
  ];
}
