import type { TestApi } from './test-api';
import { sleep } from './wait';

export interface Sample {
  at: number;
  ms: number;
  kind: 'hold' | 'release';
  status: number;
  code?: string;
}

/**
 * Buyers in a loop: hold a random seat, release it when held. Every request
 * is timed; the loops stop when `stop()` is called.
 */
export function startTraffic(api: TestApi, eventId: string, seatIds: string[], buyers = 6) {
  const samples: Sample[] = [];
  let running = true;
  const timed = async (kind: Sample['kind'], fn: () => Promise<{ status: number; body: { hold?: { id: string }; error?: { code?: string } } | null }>) => {
    const at = Date.now();
    const res = await fn();
    samples.push({ at, ms: Date.now() - at, kind, status: res.status, code: res.body?.error?.code });
    return res;
  };
  const loops = Array.from({ length: buyers }, async (_, i) => {
    const token = api.token('customer', `traffic-${i}-${Math.random().toString(36).slice(2)}`);
    while (running) {
      const seatId = seatIds[Math.floor(Math.random() * seatIds.length)]!;
      const res = await timed('hold', () => api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds: [seatId] } }));
      if (res.status === 201) await timed('release', () => api.call('DELETE', `/v1/holds/${res.body!.hold!.id}`, { token }));
      await sleep(20); // each buyer's pace
    }
  });
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}
