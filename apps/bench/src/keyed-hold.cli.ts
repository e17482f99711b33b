/**
 * `npx tsx apps/bench/src/keyed-hold.cli.ts [--rounds 6] [--holds 4000] [--concurrency 50]`
 *
 * Holds with an `Idempotency-Key`, as the typed client and the storefront send
 * every hold, on two holdfast APIs of this checkout started alike (npm start's
 * node flags, the bench's database and Redis): one with the lean path on (the
 * default: it serves a keyed hold since it takes the key itself), one with
 * `HTTP_FAST_PATH=false`, whose Express steps served every keyed hold before.
 * Each round, each API holds `--holds` distinct seats of a new event (one seat
 * a hold, a new key each, 50 holds a customer), in alternating order, after a
 * warm-up of its own; plain holds (no key) on the lean path beside them. It
 * prints holds a second, p99 and the API's CPU a hold (its process, /proc),
 * medians over the rounds with their ranges, and each ratio to the Express
 * steps' keyed holds.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { ChildServer } from './baselines/child-server.launcher';
import { runHttpLoad, type LoadRequest } from './http-load.generator';
import { medianOf } from './latency.histogram';
import { withProcessCpu } from './process-cpu.probe';
import { SeatCursor } from './holdfast/holdfast-holds.bench';
import { openHoldfastFixture, type HoldfastFixture } from './holdfast/holdfast.fixture';
import { startNodeFlags } from './holdfast/start-node-flags';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '6' }, holds: { type: 'string', default: '4000' }, concurrency: { type: 'string', default: '50' } },
});
const rounds = Number(values.rounds);
const holds = Number(values.holds);
const concurrency = Number(values.concurrency);
const WARMUP_HOLDS = 2000;

interface Variant { name: string; api: () => ChildServer; keyed: boolean }
interface Sample { perSec: number; p99Ms: number; cpuMsPerHold: number }

/** `count` holds of distinct seats of a new event on `api`, each with a new Idempotency-Key when `keyed`. */
async function holdRound(fixture: HoldfastFixture, api: ChildServer, count: number, keyed: boolean, tag: string): Promise<Sample> {
  const event = await fixture.createEvent({ name: `keyed-hold ${tag}`, seats: count });
  try {
    const take = new SeatCursor(event, fixture, `keyed-${tag}-${randomUUID().slice(0, 8)}`).take(count);
    const keys = Array.from({ length: count }, () => randomUUID());
    const makeRequest = (i: number): LoadRequest => {
      const r = take(i);
      return keyed ? { ...r, headers: { ...r.headers, 'idempotency-key': keys[i]! } } : r;
    };
    const { result, cpuMs } = await withProcessCpu(api.pid, () => runHttpLoad({
      baseUrl: api.baseUrl, concurrency, maxRequests: count, warmupRequests: 0, maxDurationMs: 120_000, makeRequest,
    }));
    if (result.ok !== count) throw new Error(`${tag}: ${result.ok} of ${count} holds answered 2xx (${result.failureSamples.join('; ')})`);
    return { perSec: result.okPerSec, p99Ms: result.okLatency.p99Ms, cpuMsPerHold: (cpuMs ?? NaN) / count };
  } finally {
    await fixture.dropEvent(event.eventId);
  }
}

const median = (xs: number[]) => medianOf(xs) ?? NaN;
const fmt = (xs: number[], digits: number) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const fixture = await openHoldfastFixture();
  const nodeArgs = startNodeFlags();
  const lean = await fixture.startApi({ nodeArgs });
  const express = await fixture.startApi({ nodeArgs, env: { HTTP_FAST_PATH: 'false' } });
  try {
    const variants: Variant[] = [
      { name: 'keyed, Express steps (HTTP_FAST_PATH=false)', api: () => express, keyed: true },
      { name: 'keyed, lean path', api: () => lean, keyed: true },
      { name: 'plain, lean path', api: () => lean, keyed: false },
    ];
    out(`${rounds} rounds of ${holds} holds each, ${concurrency} in flight, node ${process.version}, API flags ${nodeArgs.join(' ')}`);
    for (const v of variants) await holdRound(fixture, v.api(), WARMUP_HOLDS, v.keyed, `warm-${v.name}`);
    const samples = variants.map(() => [] as Sample[]);
    for (let round = 0; round < rounds; round += 1) {
      const order = variants.map((_, i) => i);
      if (round % 2 === 1) order.reverse();
      for (const i of order) samples[i]!.push(await holdRound(fixture, variants[i]!.api(), holds, variants[i]!.keyed, `r${round}-${i}`));
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
    const base = samples[0]!;
    out('variant\tholds/s\tp99 ms\tAPI CPU ms/hold\tholds/s ÷ Express keyed\tp99 ÷\tCPU ÷');
    variants.forEach((v, i) => {
      const s = samples[i]!;
      const ratio = (pick: (x: Sample) => number) => (median(s.map(pick)) / median(base.map(pick))).toFixed(2);
      out([
        v.name, fmt(s.map((x) => x.perSec), 0), fmt(s.map((x) => x.p99Ms), 1), fmt(s.map((x) => x.cpuMsPerHold), 3),
        ratio((x) => x.perSec), ratio((x) => x.p99Ms), ratio((x) => x.cpuMsPerHold),
      ].join('\t'));
    });
  } finally {
    await lean.stop();
    await express.stop();
    await fixture.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
