/**
 * `--api-event-loop`: what stalls holdfast's API while it serves the hold rounds.
 * The bench sets API_EVENT_LOOP_ENV on the API child and sends it
 * API_EVENT_LOOP_SIGNAL before and after each holdfast hold round; between the two
 * the child samples its event-loop delay (perf_hooks.monitorEventLoopDelay, every
 * millisecond) and records its GC pauses, and after the second it prints one line
 * to stderr (the bench's progress log). The 1 ms timer is the measurement's own
 * cost, which is why it is off by default.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

export const API_EVENT_LOOP_ENV = 'BENCH_API_EVENT_LOOP';
export const API_EVENT_LOOP_SIGNAL = 'SIGUSR2';

interface Pause {
  kind: number;
  ms: number;
}

/** In the API child: installs the signal's handler when the bench asked for it. */
export function watchEventLoopWhenAsked(env: NodeJS.ProcessEnv, write: (line: string) => void): void {
  if (env[API_EVENT_LOOP_ENV] !== '1') return;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let pauses: Pause[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ kind: gcKind(entry), ms: entry.duration });
  });
  let since: number | null = null;
  process.on(API_EVENT_LOOP_SIGNAL, () => {
    if (since === null) {
      pauses = [];
      delay.reset();
      delay.enable();
      gc.observe({ entryTypes: ['gc'] });
      since = performance.now();
      return;
    }
    delay.disable();
    gc.disconnect();
    write(describeWindow(performance.now() - since, delay, pauses));
    since = null;
  });
}

function gcKind(entry: PerformanceEntry): number {
  return (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
}

function describeWindow(windowMs: number, delay: ReturnType<typeof monitorEventLoopDelay>, pauses: Pause[]): string {
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  const of = (label: string, kinds: number[]) => {
    const chosen = pauses.filter((p) => kinds.includes(p.kind));
    const total = chosen.reduce((sum, p) => sum + p.ms, 0);
    const longest = Math.max(0, ...chosen.map((p) => p.ms));
    return `${chosen.length} ${label} (${total.toFixed(0)} ms in all, longest ${longest.toFixed(1)})`;
  };
  return `  holdfast API over the round (${windowMs.toFixed(0)} ms): event-loop delay p50 ${ms(delay.percentile(50))} ms, ` +
    `p90 ${ms(delay.percentile(90))}, p99 ${ms(delay.percentile(99))}, max ${ms(delay.max)}; GC: ` +
    `${of('scavenges', [constants.NODE_PERFORMANCE_GC_MINOR])}, ` +
    `${of('mark-compacts', [constants.NODE_PERFORMANCE_GC_MAJOR])}, ` +
    `${of('incremental marking steps', [constants.NODE_PERFORMANCE_GC_INCREMENTAL])}\n`;
}
