import { useTestApi } from '@holdfast/test-kit';

// An API whose PostgreSQL is unreachable (nothing listens on the port). Its connect timeout is set
// far above the bound below, so a request that waited for it (or retried until it) cannot pass.
const CONNECT_TIMEOUT_MS = 10_000;
const { api } = useTestApi({
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5499/holdfast_nowhere',
  DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
});

test('when PostgreSQL refuses connections, then requests that need it answer 503 SERVICE_UNAVAILABLE at once, without waiting for the connect timeout', async () => {
  // The process's first PostgreSQL use loads code paths cold; on a loaded machine that alone took 2 s.
  expect((await api.call('GET', '/readyz')).status).toBe(503);
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
    expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS / 2);
  }
});

test('when PostgreSQL is unreachable, then /readyz answers 503 naming it and /healthz still answers 200', async () => {
  const ready = await api.call('GET', '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body.error.details.down).toEqual(['PostgreSQL']);
  expect((await api.call('GET', '/healthz')).status).toBe(200);
});
