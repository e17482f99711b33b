import * as hdr from 'hdr-histogram-js';

/**
 * The bench's former log-bucketed latency histogram (about 1 % relative
 * precision), kept to compare with HdrHistogram on the same samples (the
 * instrument section). Values are recorded in milliseconds.
 */
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
/** Values are kept in microseconds; anything below 1 µs lands in bucket 0. */
const MICROS_PER_MS = 1000;

export interface LatencySummary {
  count: number;
  minMs: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

interface HistogramBucket {
  /** Upper bound of the bucket, in milliseconds. */
  upToMs: number;
  count: number;
}

export class LogBucketHistogram {
  private readonly buckets = new Map<number, number>();
  private total = 0;
  private sumMs = 0;
  private min = Number.POSITIVE_INFINITY;
  private max = 0;

  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    const micros = ms * MICROS_PER_MS;
    const index = micros <= 1 ? 0 : Math.ceil(Math.log(micros) / LOG_GROWTH);
    this.buckets.set(index, (this.buckets.get(index) ?? 0) + 1);
    this.total += 1;
    this.sumMs += ms;
    if (ms < this.min) this.min = ms;
    if (ms > this.max) this.max = ms;
  }

  merge(other: LogBucketHistogram): void {
    for (const [index, count] of other.buckets) {
      this.buckets.set(index, (this.buckets.get(index) ?? 0) + count);
    }
    this.total += other.total;
    this.sumMs += other.sumMs;
    this.min = Math.min(this.min, other.min);
    this.max = Math.max(this.max, other.max);
  }

  get count(): number {
    return this.total;
  }

  /** The latency under which `fraction` of the samples fall (bucket upper bound, capped at the max seen). */
  percentile(fraction: number): number {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.ceil(fraction * this.total));
    let seen = 0;
    for (const index of [...this.buckets.keys()].sort((a, b) => a - b)) {
      seen += this.buckets.get(index) ?? 0;
      if (seen >= rank) return Math.min(this.max, bucketUpperMs(index));
    }
    return this.max;
  }

  summary(): LatencySummary {
    return {
      count: this.total,
      minMs: this.total === 0 ? 0 : round3(this.min),
      meanMs: this.total === 0 ? 0 : round3(this.sumMs / this.total),
      p50Ms: round3(this.percentile(0.5)),
      p90Ms: round3(this.percentile(0.9)),
      p99Ms: round3(this.percentile(0.99)),
      maxMs: round3(this.max),
    };
  }

  /** Non-empty buckets in ascending order, for the JSON report. */
  toBuckets(): HistogramBucket[] {
    return [...this.buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, count]) => ({ upToMs: round3(bucketUpperMs(index)), count }));
  }
}

function bucketUpperMs(index: number): number {
  return Math.pow(GROWTH, index) / MICROS_PER_MS;
}

/** The median (the mean of the middle two for an even count), unrounded; null for no values. */
export function medianOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Milliseconds elapsed since `start` (a value from `process.hrtime.bigint()`). */
export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * The latency histogram every part of the bench records into: HdrHistogram
 * (hdr-histogram-js, the field's histogram; 3 significant digits, values kept in
 * microseconds, bounded in memory whatever the number of samples), adopted after
 * the instrument section found its percentiles within 1 % of the bench's former
 * log buckets on the same samples, inside the runs' spread. Values are recorded
 * in milliseconds.
 */
export class LatencyHistogram {
  private readonly h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3, useWebAssembly: false });

  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.h.recordValue(Math.min(3_600_000_000, Math.max(1, Math.round(ms * MICROS_PER_MS))));
  }

  merge(other: LatencyHistogram): void {
    this.h.add(other.h);
  }

  get count(): number {
    return this.h.totalCount;
  }

  /** The latency under which `fraction` of the samples fall, ms. */
  percentile(fraction: number): number {
    return this.h.totalCount === 0 ? 0 : this.h.getValueAtPercentile(fraction * 100) / MICROS_PER_MS;
  }

  summary(): LatencySummary {
    const ms = (us: number) => round3(us / MICROS_PER_MS);
    const empty = this.h.totalCount === 0;
    return {
      count: this.h.totalCount,
      minMs: empty ? 0 : ms(this.h.minNonZeroValue),
      meanMs: empty ? 0 : ms(this.h.mean),
      p50Ms: empty ? 0 : ms(this.h.getValueAtPercentile(50)),
      p90Ms: empty ? 0 : ms(this.h.getValueAtPercentile(90)),
      p99Ms: empty ? 0 : ms(this.h.getValueAtPercentile(99)),
      maxMs: empty ? 0 : ms(this.h.maxValue),
    };
  }
}
