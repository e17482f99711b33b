import { createHoldfastClient, isHoldfastError } from '@holdfast/client';

const baseUrl = 'https://tickets.example.com';
// In the buyer's browser: your login gave them a holdfast customer token.
const shop = createHoldfastClient({ baseUrl, getToken: () => sessionStorage.getItem('holdfast-token') ?? undefined });
// On your backend, after your payment provider captured the payment: a service token.
const backend = createHoldfastClient({ baseUrl, token: process.env.HOLDFAST_SERVICE_TOKEN });

export async function buy(eventId: string, capturePayment: (cents: number) => Promise<string>) {
  const seat = (await shop.listSeats(eventId)).find((s) => s.status === 'available');
  if (!seat) return 'sold out';
  try {
    const hold = await shop.hold(eventId, { seatIds: [seat.id] }); // Idempotency-Key and Retry-After handled
    const paymentReference = await capturePayment(hold.totalCents);
    const { order } = await backend.confirm(hold.id, paymentReference);
    return `order ${order.number}: ${hold.items.map((i) => ('label' in i ? i.label : i.name)).join(', ')}`;
  } catch (error) {
    if (isHoldfastError(error, 'SEATS_UNAVAILABLE', 'SOLD_OUT')) return 'taken a moment ago, pick another';
    throw error; // HoldfastError: status, code (a union of the documented codes), details, requestId
  }
}
