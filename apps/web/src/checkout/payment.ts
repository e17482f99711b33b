/** Demo payment: ask the API to pay the hold, then find the order it became. */
import { HoldfastError, PurchaseError, type Api } from '../shared/api';
import type { Order } from '../shared/types';

const POLL_MS = 500;
const GIVE_UP_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pays through the demo endpoint; if the answer carries no order yet, polls the hold until it has one. */
export async function payAndGetOrder(api: Api, holdId: string): Promise<Order> {
  const order = await api.demoPay(holdId);
  if (order) return order;
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline) {
    const hold = await api.getHold(holdId);
    if (hold.orderId) return api.getOrder(hold.orderId);
    if (hold.status === 'expired') throw new HoldfastError(409, 'HOLD_EXPIRED', 'The hold expired.');
    if (hold.status === 'released') throw new HoldfastError(409, 'HOLD_NOT_ACTIVE', 'The hold was released.');
    await sleep(POLL_MS);
  }
  throw new PurchaseError('PAYMENT_PENDING', 'The payment has not been confirmed yet.');
}
