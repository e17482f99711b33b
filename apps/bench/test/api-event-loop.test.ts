import { API_EVENT_LOOP_ENV, API_EVENT_LOOP_SIGNAL, watchEventLoopWhenAsked } from '../src/holdfast/api-event-loop.monitor';

afterEach(() => {
  process.removeAllListeners(API_EVENT_LOOP_SIGNAL);
});

test('when the bench did not ask for it, then the API child installs no handler', () => {
  const lines: string[] = [];
  watchEventLoopWhenAsked({}, (line) => lines.push(line));
  expect(process.listenerCount(API_EVENT_LOOP_SIGNAL)).toBe(0);
});

test('when the loop is blocked between the two signals, then the line reports that delay', async () => {
  const lines: string[] = [];
  watchEventLoopWhenAsked({ [API_EVENT_LOOP_ENV]: '1' }, (line) => lines.push(line));
  process.emit(API_EVENT_LOOP_SIGNAL, API_EVENT_LOOP_SIGNAL);
  for (let i = 0; i < 20; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    const until = Date.now() + 30;
    while (Date.now() < until) { /* a 30 ms task */ }
  }
  expect(lines).toEqual([]);
  process.emit(API_EVENT_LOOP_SIGNAL, API_EVENT_LOOP_SIGNAL);
  expect(lines).toHaveLength(1);
  const max = Number(/max ([\d.]+)/.exec(lines[0]!)?.[1]);
  expect(max).toBeGreaterThanOrEqual(25);
  expect(lines[0]).toMatch(/event-loop delay p50 [\d.]+ ms, p90 [\d.]+, p99 [\d.]+, max [\d.]+; GC: \d+ scavenges/);
});
