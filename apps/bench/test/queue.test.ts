import type { ChildServer } from '../src/baselines/child-server.launcher';
import { benchPlan } from '../src/bench-plan.config';
import type { BenchReport } from '../src/bench-report.types';
import { queueSection, type QueueReport } from '../src/holdfast/holdfast-queue.bench';
import { openHoldfastFixture, type HoldfastFixture } from '../src/holdfast/holdfast.fixture';
import { benchJson } from '../src/report/bench-json.format';
import { renderMarkdown } from '../src/report/bench-report.format';

// The fixture and the API child on the test database and Redis of this run (not the bench's own).
process.env.BENCH_API_DATABASE_URL = process.env.DATABASE_URL;
process.env.BENCH_API_REDIS_URL = process.env.REDIS_URL;

const BUYERS = 60;
const SEATS = 8;

describe('queue section (the waiting room under a crowd, tiny sizes)', () => {
  let fixture: HoldfastFixture;
  let api: ChildServer;
  let report: QueueReport;

  beforeAll(async () => {
    fixture = await openHoldfastFixture();
    api = await fixture.startApi();
    report = await queueSection(fixture, api, process.env.REDIS_URL!, {
      buyers: BUYERS, concurrency: 4, seats: SEATS, admitPerMinute: 600, holdTtlSeconds: 2, payPer5: 4, maxSaleMs: 60_000,
    }, () => undefined);
  }, 180_000);

  afterAll(async () => {
    await api?.stop();
    await fixture?.close();
  });

  it('when the buyers join, then each join is answered and the room has a place for each, with its bytes measured', () => {
    expect(report.joins.ok).toBe(BUYERS);
    expect(report.joins.failed).toBe(0);
    expect(report.redisBenchmarkZadd.command).toMatch(/^ZADD bench:rb:/);
    // As many ZADDs as buyers, or ten, a hundred or a thousand times as many: a run of a few dozen
    // requests can end within redis-benchmark's millisecond clock (its rate "inf"), and the runner
    // then runs it again ten times longer (redis-benchmark.runner.ts).
    expect([1, 10, 100, 1000].map((times) => BUYERS * times)).toContain(report.redisBenchmarkZadd.requests);
    expect(report.memory.queueKeysBytes).toBeGreaterThan(0);
    expect(report.memory.bytesPerWaitingBuyer).toBe(Math.round(report.memory.queueKeysBytes / BUYERS));
  });

  it('when the sale runs through the room and without it, then each sells at most its seats, every seat sold was paid, and the room admitted places', () => {
    const { withRoom, withoutRoom } = report.sale;
    for (const s of [withRoom, withoutRoom]) {
      expect(s.sold).toBeLessThanOrEqual(SEATS);
      expect(s.holdStatusCounts['201'] ?? 0).toBe(s.sold + s.lapsedUnpaid);
      expect(Object.keys(s.holdStatusCounts).filter((k) => !['201', '409'].includes(k))).toEqual([]);
    }
    expect(withRoom.room).toBe(true);
    expect(withRoom.admitted).toBeGreaterThan(0);
    expect(withRoom.admitted! + withRoom.waitingAtEnd!).toBe(BUYERS);
    expect(withoutRoom.room).toBe(false);
    expect(withoutRoom.admitted).toBeNull();
  });

  it('when the section is in a report, then the Markdown has its tables and the JSON its numbers', () => {
    const bench = {
      meta: {
        mode: 'quick', startedAt: '', finishedAt: '', durationSec: 0, gitCommit: null, node: process.version, cpus: 2, cpuModel: 'test',
        loadAverageAtStart: [0, 0, 0], loadAverageAtEnd: [0, 0, 0], postgres: 'test', redis: 'test', databaseUrl: '', redisUrl: '',
        holdfastRedisUrl: '',
      },
      plan: benchPlan(true), raceLab: null, holdPath: null, growth: null, confirmPath: null, best: null, queue: report,
    } satisfies BenchReport;
    const markdown = renderMarkdown(bench);
    expect(markdown).toContain(`## Waiting room: ${BUYERS} buyers join, then a flash sale of ${SEATS} seats`);
    expect(markdown).toContain('| through the room');
    expect(markdown).toContain('| without a room');
    expect(JSON.parse(JSON.stringify(benchJson(bench))).queue.sale.withRoom.sold).toBe(report.sale.withRoom.sold);
  });
});
