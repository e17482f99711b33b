/** Setting up test data through the public API, as an admin would. */
export async function demoToken(baseUrl: string, customerId: string, role: 'customer' | 'admin'): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/auth/demo-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ customerId, role }),
  });
  if (!response.ok) throw new Error(`demo-token answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/** One API call with a bearer token: its status and its JSON answer. */
export async function apiCall(baseUrl: string, method: string, url: string, token: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${url}`, {
    method, headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read any field of any answer
  return { status: res.status, body: (await res.json()) as any };
}

export interface CreatedEvent {
  id: string;
  name: string;
}

export async function createEvent(
  baseUrl: string,
  adminToken: string,
  options: { name: string; holdTtlSeconds: number },
): Promise<CreatedEvent> {
  const seats = [];
  for (const section of ['A', 'B'])
    for (let row = 1; row <= 3; row++)
      for (let number = 1; number <= 8; number++)
        seats.push({
          section,
          row: String(row),
          number,
          tier: row === 1 ? 'premium' : 'standard',
          priceCents: row === 1 ? 12000 : 6500,
        });
  const response = await fetch(`${baseUrl}/v1/admin/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({
      name: options.name,
      startsAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      currency: 'USD',
      holdTtlSeconds: options.holdTtlSeconds,
      maxTicketsPerCustomer: 6,
      seats,
      ticketTypes: [{ name: 'General Admission', priceCents: 5000, capacity: 100 }],
    }),
  });
  if (response.status !== 201) throw new Error(`create event answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { event: CreatedEvent }).event;
}
