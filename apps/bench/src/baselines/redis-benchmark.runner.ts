import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { deleteKeys, redisTarget } from '../bench-redis.service';

const run = promisify(execFile);

interface RedisBenchmarkOptions {
  redisUrl: string;
  requests: number;
  concurrency: number;
  /** The command (redis-benchmark's `__rand_int__` placeholders allowed; keys under `bench:rb:`); the hold path's SET NX EX unless told. */
  command?: string[];
}

export interface RedisBenchmarkResult {
  command: string;
  requests: number;
  concurrency: number;
  requestsPerSec: number;
  avgMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * `redis-benchmark` issuing the hold path's one Redis write (or `command`), `SET key val NX EX 600`,
 * on random keys under `bench:rb:`, one command per round trip (-P 1) at the given concurrency.
 */
export async function runRedisBenchmark(options: RedisBenchmarkOptions): Promise<RedisBenchmarkResult> {
  const target = redisTarget(options.redisUrl);
  const command = options.command ?? ['SET', 'bench:rb:__rand_int__', 'v', 'NX', 'EX', '600'];
  if (!command[1]?.startsWith('bench:rb:')) throw new Error(`redis-benchmark's key must be under bench:rb: (${command.join(' ')})`);
  // A run shorter than redis-benchmark's millisecond clock prints its rate as "inf" (seen with a few
  // hundred requests): it is run again with ten times the requests, at most three times more.
  let requests = options.requests;
  try {
    for (let attempt = 0; ; attempt++) {
      const args = [
        '-h', target.host, '-p', String(target.port), '--dbnum', String(target.db),
        '-n', String(requests), '-c', String(options.concurrency), '-P', '1',
        '-r', '100000000', '--csv', ...command,
      ];
      const { stdout } = await run('redis-benchmark', args, { timeout: 300_000, maxBuffer: 1 << 20 });
      const row = stdout.trim().split('\n').pop() ?? '';
      const raw = row.split(',').map((cell) => cell.replace(/"/g, ''));
      if (raw[1] === 'inf' && attempt < 3) {
        requests *= 10;
        continue;
      }
      const [, rps, avg, , p50, p95, p99, max] = raw.map(Number);
      if (rps === undefined || !Number.isFinite(rps)) throw new Error(`unexpected redis-benchmark output: ${stdout}`);
      return {
        command: command.join(' '),
        requests,
        concurrency: options.concurrency,
        requestsPerSec: rps,
        avgMs: avg ?? 0,
        p50Ms: p50 ?? 0,
        p95Ms: p95 ?? 0,
        p99Ms: p99 ?? 0,
        maxMs: max ?? 0,
      };
    }
  } finally {
    await deleteKeys(options.redisUrl, 'bench:rb:*');
  }
}
