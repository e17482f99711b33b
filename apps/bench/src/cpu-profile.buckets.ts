/**
 * A V8 CPU profile's busy time within some windows of the process's clock,
 * split into what the process was doing (buckets), each sample counted once:
 * in the first bucket whose rule matches its stack (see BucketRule.scope). The hold
 * path's report uses it to say where holdfast's API spends the CPU a hold
 * costs beyond the bare node:http server's request (hold-profile.cli.ts).
 */
import { areaOf, type CallFrame, type CpuProfile } from './cpu-profile.summary';

export interface BucketRule {
  name: string;
  /**
   * Which frames of a sample's stack the rule looks at: any ('stack': the
   * sample ran under such a frame), or only the innermost one with a script
   * ('running': the JavaScript function that was running, or that called the
   * native code that was; a sample with no script on its stack, such as the
   * garbage collector's, is its own leaf).
   */
  scope: 'stack' | 'running';
  /** True when the frame belongs to this bucket. */
  matches(frame: CallFrame, area: string): boolean;
}

/** A window of the profiled process's monotonic clock, microseconds (process.hrtime in another process reads the same clock). */
export interface ClockWindow {
  startUs: number;
  endUs: number;
}

export interface Buckets {
  /** Busy microseconds in the windows (idle left out). */
  busyUs: number;
  /** Microseconds by bucket name, in the rules' order, then 'other'. */
  byBucket: Array<{ name: string; us: number }>;
  /** Samples inside the windows. */
  samples: number;
}

export const OTHER_BUCKET = 'the rest: the server\'s own code (routing, request ids, JSON, promises), the runtime';

/**
 * Splits the profile's busy time within `windows` into `rules`' buckets; a
 * sample that none matches goes to OTHER_BUCKET. Sample timestamps are the
 * profile's startTime plus the running sum of timeDeltas; each sample counts the
 * time to the next one.
 */
export function bucketProfile(profile: CpuProfile, windows: ClockWindow[], rules: BucketRule[]): Buckets {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const bucketOfNode = new Map<number, number>(); // node id -> rule index, rules.length for other, -1 for idle
  const bucketOf = (id: number): number => {
    const known = bucketOfNode.get(id);
    if (known !== undefined) return known;
    const leaf = byId.get(id)?.callFrame;
    let found = rules.length;
    if (leaf?.functionName === '(idle)') found = -1;
    else {
      const frames: Array<{ frame: CallFrame; area: string }> = [];
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = byId.get(at)?.callFrame;
        if (frame && frame.functionName !== '(root)') frames.push({ frame, area: areaOf(frame) });
      }
      const running = frames.find(({ frame }) => frame.url !== '') ?? frames[0];
      const index = rules.findIndex((rule) => (rule.scope === 'stack'
        ? frames.some(({ frame, area }) => rule.matches(frame, area))
        : running !== undefined && rule.matches(running.frame, running.area)));
      if (index >= 0) found = index;
    }
    bucketOfNode.set(id, found);
    return found;
  };
  const us = new Array<number>(rules.length + 1).fill(0);
  let samples = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (!windows.some((w) => at >= w.startUs && at < w.endUs)) return;
    samples += 1;
    const bucket = bucketOf(id);
    if (bucket >= 0) us[bucket]! += profile.timeDeltas[index + 1] ?? 0;
  });
  const byBucket = [...rules.map((rule, i) => ({ name: rule.name, us: us[i]! })), { name: OTHER_BUCKET, us: us[rules.length]! }];
  return { busyUs: us.reduce((a, b) => a + b, 0), byBucket, samples };
}

/**
 * What a server of the hold path does for a request. A sample goes to the first
 * bucket that claims it: Redis's client before all (a socket write under
 * ioredis is Redis's), the parts of a hold by what they ran under, then HTTP by
 * the function running (everything of a request runs under node:http's
 * callbacks), and the rest, the server's own code among it, last.
 */
export const HOLD_PATH_BUCKETS: BucketRule[] = [
  {
    name: 'Redis client (ioredis: commands out, replies in)', scope: 'stack',
    matches: (frame, area) => ['ioredis', 'redis-parser', 'standard-as-callback', 'cluster-key-slot'].includes(area) || /hold-store\/src\/scripts\.ts$/.test(frame.url),
  },
  {
    name: 'persisting holds in PostgreSQL (the outbox drain)', scope: 'stack',
    matches: (frame, area) => /hold-persister\.ts$/.test(frame.url) || ['pg', 'pg-pool', 'pg-protocol', '@prisma/client', '@prisma/adapter-pg', 'packages/db'].includes(area),
  },
  { name: 'expiry jobs (BullMQ)', scope: 'stack', matches: (_frame, area) => ['bullmq', 'packages/jobs'].includes(area) },
  {
    name: 'authentication (the bearer token)', scope: 'stack',
    matches: (frame, area) => /middleware\/(auth|token-verifier)\.ts$/.test(frame.url) || ['fast-jwt', 'jose'].includes(area),
  },
  {
    name: 'metrics, logs and traces', scope: 'stack',
    matches: (frame, area) => ['prom-client', 'pino', 'packages/telemetry'].includes(area) || area.startsWith('@opentelemetry/') || /(metrics|telemetry)[^/]*\.ts$/.test(frame.url),
  },
  { name: 'the request body and its validation', scope: 'stack', matches: (frame, area) => /middleware\/body\.ts$/.test(frame.url) || area === 'zod' },
  { name: 'the hold itself (domain rules, the hold store)', scope: 'stack', matches: (_frame, area) => ['packages/domain', 'packages/hold-store'].includes(area) },
  { name: 'garbage collection', scope: 'running', matches: (frame) => frame.functionName === '(garbage collector)' },
  {
    name: 'HTTP: reading requests, writing answers (node:http, sockets)', scope: 'running',
    matches: (frame) => /^node:(_http_|net$|stream$|internal\/(stream|streams|http|stream_base_commons)\b)/.test(frame.url),
  },
];
