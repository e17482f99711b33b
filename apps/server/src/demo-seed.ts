import { createEvent, listEvents, type DomainContext } from '@holdfast/domain';

/** Demo mode: an event with a seat map and general admission, when there is no event yet. */
export async function seedDemoEvent(ctx: DomainContext): Promise<string | null> {
  const existing = await listEvents(ctx, 1);
  if (existing.items.length) return null;
  const seats = [];
  for (const [section, tier, priceCents] of [['A', 'premium', 12000], ['B', 'standard', 6500]] as const) {
    for (let row = 1; row <= 6; row++) {
      for (let number = 1; number <= 12; number++) seats.push({ section, row: String(row), number, tier, priceCents });
    }
  }
  const event = await createEvent(ctx, {
    name: 'holdfast demo night',
    startsAt: new Date(Date.now() + 30 * 24 * 3600 * 1000),
    currency: 'USD',
    holdTtlSeconds: 600,
    maxTicketsPerCustomer: 10,
    seats,
    ticketTypes: [{ name: 'General Admission', priceCents: 4000, capacity: 300 }],
  });
  return event.id;
}
