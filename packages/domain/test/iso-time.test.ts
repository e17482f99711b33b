// isoOfMs is Date's toISOString with the second's text kept: it must give the same text for every time.
import { isoOfMs } from '../src/iso-time';

test('when a time is formatted, then isoOfMs gives exactly toISOString’s text', () => {
  const now = Date.now();
  const edges = [0, 1, 9, 10, 99, 100, 999, 1000, now, now + 600_000, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1),
    Date.UTC(2028, 1, 29, 12), 253_402_300_799_999, 253_402_300_800_000, -1, -86_400_000, 1.5, 8.64e15];
  for (const ms of edges) expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
  // 20,000 times spread over -1e14 .. 8.64e15 ms (a fixed-seed generator: the same times every run).
  let seed = 0x2545f491;
  const random = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
  for (let i = 0; i < 20_000; i += 1) {
    const ms = Math.floor(-1e14 + random() * (8.64e15 + 1e14));
    expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
  }
  // Runs of times near each other, as holds ask (each second's text is kept and reused).
  for (let ms = now - 5_000; ms < now + 5_000; ms += 7) {
    expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
    expect(isoOfMs(ms + 600_000)).toBe(new Date(ms + 600_000).toISOString());
  }
});
