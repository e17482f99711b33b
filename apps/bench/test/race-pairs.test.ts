// The race lab's paired comparison (race-lab.runner.ts): each pair's ratio, their median and spread,
// which pair stands for the two strategies in the table, and their CPU per buyer over the sales.
import { medianCpu, medianIndex, pairRatio, ratioSpread, type RaceLabReport, type StrategyResult } from '../src/race-lab.runner';
import { raceConfirmBatchLines } from '../src/report/bench-report.format';
import type { SaleCpuPerBuyer } from '../src/race-lab.types';

const sale = (purchasesPerSec: number, skipped: string | null = null) => ({ purchasesPerSec, skipped });

test('when both strategies of a pair sold, then its ratio is the contender\'s purchases per second over the baseline\'s', () => {
  expect(pairRatio(sale(2000), sale(1800))).toBe(0.9);
  expect(pairRatio(sale(1500), sale(2000))).toBe(1.333);
});

test('when the baseline sold nothing or either did not run, then the pair has no ratio', () => {
  expect(pairRatio(sale(0), sale(1800))).toBeNull();
  expect(pairRatio(sale(2000, 'not here'), sale(1800))).toBeNull();
  expect(pairRatio(sale(2000), sale(1800, 'no confirm endpoint'))).toBeNull();
});

test('when the pairs are an odd count, then the median is the middle ratio and the spread their min and max, in round order kept', () => {
  expect(ratioSpread([1.05, 0.88, 1.3, 0.97, 1.01])).toEqual({ values: [1.05, 0.88, 1.3, 0.97, 1.01], median: 1.01, min: 0.88, max: 1.3 });
});

test('when the pairs are an even count, then the median is the mean of the middle two', () => {
  expect(ratioSpread([0.9, 1.2, 1.0, 0.8])).toEqual({ values: [0.9, 1.2, 1.0, 0.8], median: 0.95, min: 0.8, max: 1.2 });
});

test('when a pair has no ratio, then it is left out of the median and the spread; with none, all are null', () => {
  expect(ratioSpread([1.1, null, 0.9, 1.0])).toEqual({ values: [1.1, 0.9, 1.0], median: 1.0, min: 0.9, max: 1.1 });
  expect(ratioSpread([null, null])).toEqual({ values: [], median: null, min: null, max: null });
  expect(ratioSpread([])).toEqual({ values: [], median: null, min: null, max: null });
});

test('when the table needs one pair to stand for the two strategies, then it is the pair whose ratio is the median (the lower middle for an even count)', () => {
  expect(medianIndex([1.05, 0.88, 1.3, 0.97, 1.01])).toBe(4);
  expect(medianIndex([0.9, 1.2, 1.0, 0.8])).toBe(0);
  expect(medianIndex([null, 1.2, null])).toBe(1);
  expect(medianIndex([null])).toBeNull();
  // Equal ratios: the earlier round.
  expect(medianIndex([1.0, 1.0, 1.0])).toBe(1);
});

test('when sales read their CPU per buyer, then each process\'s is the median of its sales, unread sales and processes left out', () => {
  const cpu = (server: number | null, postgres: number, client: number, machine: number | null): SaleCpuPerBuyer => ({ server, redis: server === null ? null : 0.04, postgres, client, machine });
  expect(medianCpu([cpu(0.1, 0.06, 0.05, 0.3), null, cpu(0.12, 0.05, 0.04, 0.6), cpu(0.09, 0.07, 0.06, null)]))
    .toEqual({ server: 0.1, redis: 0.04, postgres: 0.06, client: 0.05, machine: 0.45 });
  expect(medianCpu([cpu(null, 0.2, 0.1, 0.4), cpu(null, 0.18, 0.12, 0.35)]))
    .toEqual({ server: null, redis: null, postgres: 0.19, client: 0.11, machine: 0.375 });
  expect(medianCpu([null, undefined])).toBeNull();
});

test('when holdfast\'s sales report their confirm batches, then the report gives the medians over its sales and the share of the clock the batch statement ran', () => {
  const holdfastSale = (wallMs: number, batches: number, meanSize: number, statementMs: number) =>
    ({ title: 'holdfast', wallMs, confirmBatches: { batches, meanSize, statementMs } }) as unknown as StrategyResult;
  const sqlSale = { title: 'SKIP LOCKED', wallMs: 700, confirmBatches: null } as unknown as StrategyResult;
  const rounds = [
    { baseline: sqlSale, contender: holdfastSale(800, 70, 21.4, 560) },
    { baseline: sqlSale, contender: holdfastSale(1000, 76, 19.7, 824) },
    { baseline: sqlSale, contender: holdfastSale(900, 72, 20.8, 709) },
  ];
  const lab = { results: [], pairs: { rounds } } as unknown as RaceLabReport;
  const [blank, line] = raceConfirmBatchLines(lab);
  expect(blank).toBe('');
  // Medians: 72 batches, 20.8 a batch, 709 of 900 ms; the share is the median of 0.70, 0.824, 0.788.
  expect(line).toContain('median over its 3 sale(s): 72 batches of 20.8 confirms on average');
  expect(line).toContain('709 ms of the sale\'s 900 ms clock (79 %)');
  // A lab whose sales have no batches (the SQL strategies alone) prints nothing.
  expect(raceConfirmBatchLines({ results: [sqlSale], pairs: null } as unknown as RaceLabReport)).toEqual([]);
});
