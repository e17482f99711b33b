import { round3 } from './latency.histogram';
import { withProcessCpu } from './process-cpu.probe';
import { warmUpSettled } from './strategies/holdfast-hold-confirm.strategy';

/**
 * Unmeasured rounds before the clock, at most `maxRounds`, until a server's CPU per request has
 * settled (warmUpSettled, as the race lab's warm-up sales and the confirm section's warm-up
 * rounds): `round` runs one round and gives that CPU, or null where it cannot be read (then one
 * round is all, there being nothing to tell settling by). Returns each round's CPU per request.
 */
export async function warmUpRounds(maxRounds: number, round: (index: number) => Promise<number | null>): Promise<Array<number | null>> {
  const cpu: Array<number | null> = [];
  for (let index = 1; index <= maxRounds; index += 1) {
    cpu.push(await round(index));
    const known = cpu.filter((ms): ms is number => ms !== null);
    if (known.length !== cpu.length || warmUpSettled(known)) break;
  }
  return cpu;
}

/** Runs `load` (the requests it reports are all it sent) and gives the CPU milliseconds process `pid` spent per request meanwhile. */
export async function cpuPerRequest(pid: number, load: () => Promise<{ requests: number }>): Promise<number | null> {
  const { result, cpuMs } = await withProcessCpu(pid, load);
  return cpuMs === null || result.requests <= 0 ? null : round3(cpuMs / result.requests);
}
