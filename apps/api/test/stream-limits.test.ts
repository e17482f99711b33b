// The event stream is bounded: streams per client address and in all (503
// STREAM_LIMIT_REACHED past either), and a reader that does not keep up is
// closed rather than buffered without end.
import http from 'node:http';
import net from 'node:net';
import { Redis } from 'ioredis';
import { eventKeys } from '@holdfast/hold-store';
import { createTestEvent, dropTestEvent, seatGrid, useTestApi, type TestApi, waitFor } from '@holdfast/test-kit';

interface OpenStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The JSON body of a refusal. */
  body: { error?: { code: string; details?: Record<string, unknown> } } | null;
  close(): void;
}

/** Opens a stream over its own connection, from `localAddress` (another loopback address is another client). */
function openStream(api: TestApi, eventId: string, localAddress = '127.0.0.1'): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${api.url}/v1/events/${eventId}/stream`, { localAddress, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      const close = () => res.destroy();
      res.on('data', (chunk: string) => {
        text += chunk;
        if (res.statusCode === 200 && text.includes(': connected')) resolve({ status: 200, headers: res.headers, body: null, close });
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null, close }));
      res.on('error', () => undefined);
    });
    req.on('error', reject);
  });
}

async function metric(api: TestApi, line: RegExp): Promise<number> {
  const text = await api.rt.metrics.registry.metrics();
  const found = text.split('\n').find((l) => line.test(l));
  return found ? Number(found.split(' ').pop()) : 0;
}

describe('connection caps', () => {
  const { api } = useTestApi({ STREAM_MAX_CONNECTIONS_PER_CLIENT: '2', STREAM_MAX_CONNECTIONS: '3' });

  test('when a client address has as many streams open as allowed, or the server does, then one more answers 503 STREAM_LIMIT_REACHED, and a closed stream frees its place', async () => {
    const { event } = await createTestEvent(api, { seats: seatGrid(['S'], 1, 2) });
    const open: OpenStream[] = [];
    try {
      const a1 = await openStream(api, event.id);
      const a2 = await openStream(api, event.id);
      open.push(a1, a2);
      expect([a1.status, a2.status]).toEqual([200, 200]);
      const a3 = await openStream(api, event.id);
      expect(a3.status).toBe(503);
      expect(a3.body!.error).toMatchObject({ code: 'STREAM_LIMIT_REACHED', details: { scope: 'client', limit: 2 } });
      expect(a3.headers['retry-after']).toBe('5');

      // Another address still gets one, up to the server's total of 3.
      const b1 = await openStream(api, event.id, '127.0.0.2');
      open.push(b1);
      expect(b1.status).toBe(200);
      const b2 = await openStream(api, event.id, '127.0.0.2');
      expect(b2.status).toBe(503);
      expect(b2.body!.error).toMatchObject({ code: 'STREAM_LIMIT_REACHED', details: { scope: 'total', limit: 3 } });
      expect(await metric(api, /^holdfast_stream_connections /)).toBe(3);

      // Closing a stream gives its place back.
      a1.close();
      await waitFor('the closed stream to leave the count', async () => (await metric(api, /^holdfast_stream_connections /)) === 2, { timeoutMs: 5000, intervalMs: 20 });
      const b3 = await openStream(api, event.id, '127.0.0.2');
      open.push(b3);
      expect(b3.status).toBe(200);
    } finally {
      for (const s of open) s.close();
      await dropTestEvent(api, event.id);
    }
  });
});

describe('slow readers', () => {
  let publisher: Redis;
  // Declared before useTestApi's own afterAll (which stops the Redis it publishes to), so it runs first.
  afterAll(() => publisher?.disconnect());
  const { api, redis } = useTestApi({ STREAM_MAX_BUFFER_BYTES: '65536' }, { privateRedis: true });
  beforeAll(() => { publisher = new Redis(redis.url); });

  test('when a reader stops reading while changes pour in, then the server closes its stream once 64 KiB wait for it, and a new reader still hears live changes', async () => {
    const { event, seats } = await createTestEvent(api, { seats: seatGrid(['S'], 1, 2) });
    const slow = net.connect(Number(new URL(api.url).port), '127.0.0.1');
    try {
      let closed = false;
      slow.on('error', () => undefined); // a reset is one way the server may close it
      slow.once('close', () => (closed = true));
      await new Promise((r) => slow.once('connect', r));
      slow.write(`GET /v1/events/${event.id}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      let head = '';
      await new Promise<void>((resolve) => {
        const onData = (d: Buffer) => {
          head += d.toString();
          if (head.includes(': connected')) {
            slow.off('data', onData);
            resolve();
          }
        };
        slow.on('data', onData);
      });
      expect(head).toMatch(/^HTTP\/1\.1 200/);
      slow.pause(); // reads nothing more

      // Changes as the hold scripts publish them: a thousand seats a message, about 75 kB of frames.
      const message = JSON.stringify({ seatIds: Array.from({ length: 1000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`), status: 'held' });
      let published = 0;
      // Ten messages at a time until the server refuses the reader (or 300 are out).
      await waitFor('the server to refuse the slow reader', async () => {
        if ((await metric(api, /^holdfast_stream_refused_total\{reason="slow_reader"\}/)) > 0 || published >= 300) return true;
        for (let i = 0; i < 10; i++) await publisher.publish(eventKeys(event.id).channel, message);
        published += 10;
        return false;
      }, { timeoutMs: 60_000, intervalMs: 10 });
      process.stdout.write(`\n[stream slow reader] closed after ${published} messages (~${Math.round((published * message.length * 1.4) / 1e6)} MB of frames)\n`);

      // The server has closed that connection (the reader, reading again, finds its end), and its place is free.
      slow.resume();
      await waitFor('the server to close the slow reader\'s connection', () => closed, { timeoutMs: 20_000, intervalMs: 50 });
      expect(closed).toBe(true);
      expect(await metric(api, /^holdfast_stream_connections /)).toBe(0);

      // Others are served as before.
      const fresh = await openStream(api, event.id);
      expect(fresh.status).toBe(200);
      fresh.close();
      const live = await fetch(`${api.url}/v1/events/${event.id}/stream`);
      const reader = live.body!.getReader();
      const hold = await api.call('POST', `/v1/events/${event.id}/holds`, { token: api.token('customer'), body: { seatIds: [seats[0]!.id] } });
      expect(hold.status).toBe(201);
      let text = '';
      while (!text.includes(seats[0]!.id)) text += new TextDecoder().decode((await reader.read()).value);
      expect(text).toContain(`"seatId":"${seats[0]!.id}","status":"held"`);
      await reader.cancel();
    } finally {
      slow.destroy();
      await dropTestEvent(api, event.id);
    }
  }, 120_000);
});
