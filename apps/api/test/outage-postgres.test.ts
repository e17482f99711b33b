import { useTestApi } from '@holdfast/test-kit';

// An API whose PostgreSQL is unreachable (nothing listens on the port).
const { api } = useTestApi({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5499/holdfast_nowhere' });

test('when PostgreSQL is unreachable, then requests that need it answer 503 SERVICE_UNAVAILABLE within 2 seconds', async () => {
  for (const [method, path, body, role] of [
    ['GET', '/v1/events', undefined, undefined],
    ['GET', '/v1/events/00000000-0000-4000-8000-000000000000', undefined, undefined],
    ['POST', '/v1/events/00000000-0000-4000-8000-000000000000/holds', { seatIds: ['x'] }, 'customer'],
    ['POST', '/v1/admin/events', { name: 'x', startsAt: '2027-01-01T00:00:00Z' }, 'admin'],
  ] as const) {
    const started = Date.now();
    const res = await api.call(method, path, { body, token: role ? api.token(role) : undefined });
    const ms = Date.now() - started;
    expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(res.body.error.details).toEqual({ dependency: 'PostgreSQL' });
    expect(ms).toBeLessThan(2000);
  }
});

test('when PostgreSQL is unreachable, then /readyz answers 503 naming it and /healthz still answers 200', async () => {
  const ready = await api.call('GET', '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body.error.details.down).toEqual(['PostgreSQL']);
  expect((await api.call('GET', '/healthz')).status).toBe(200);
});
