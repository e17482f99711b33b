/**
 * The buyer's hold on this event and what becomes of it: held, paid (an
 * order), or ended (expired on the clock, released by the box office). The
 * active hold is remembered per event so a reload picks it up again.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { HoldfastError, PurchaseError, type Api } from '../shared/api';
import { msUntil } from '../shared/clock';
import type { Hold, HoldRequest, SeatStatus } from '../shared/types';
import { payAndGetOrder } from './payment';
import { rememberedHold, seatIdsOf, type Purchase } from './purchase';

interface Deps {
  markSeats: (ids: ReadonlySet<string>, status: SeatStatus) => void;
  refresh: () => Promise<void>;
  onError: (error: unknown) => void;
  /** The waiting room's pass to hold with, while the event has a waiting room. */
  queuePass?: () => string | undefined;
}

export function usePurchase(api: Api, eventId: string, { markSeats, refresh, onError, queuePass }: Deps) {
  const [purchase, setPurchase] = useState<Purchase>({ stage: 'none' });
  const current = useRef(purchase);
  current.current = purchase;

  useEffect(() => {
    const holdId = rememberedHold.get(eventId);
    if (!holdId) return;
    api.getHold(holdId).then(
      (hold) => {
        if (hold.status === 'active' && msUntil(hold.expiresAt) > 0) setPurchase({ stage: 'held', hold });
        else rememberedHold.clear(eventId);
      },
      () => rememberedHold.clear(eventId),
    );
  }, [api, eventId]);

  /** Its seats are free for others now (the contract: as soon as `expiresAt` has passed, or at once on release). */
  const end = useCallback(
    (hold: Hold, why: 'expired' | 'released') => {
      rememberedHold.clear(hold.eventId);
      markSeats(seatIdsOf(hold), 'available');
      setPurchase({ stage: 'ended', hold, why });
    },
    [markSeats],
  );

  /** The server may have ended the hold (an admin released it) or confirmed it elsewhere: ask it. */
  const recheck = useCallback(async () => {
    if (current.current.stage !== 'held') return;
    try {
      const hold = await api.getHold(current.current.hold.id);
      if (current.current.stage !== 'held') return;
      if (hold.status === 'released') end(hold, 'released');
      else if (hold.status === 'expired') end(hold, 'expired');
      else if (hold.status === 'confirmed' && hold.orderId) {
        const order = await api.getOrder(hold.orderId);
        rememberedHold.clear(hold.eventId);
        setPurchase({ stage: 'paid', hold, order });
      }
    } catch (e) {
      onError(e);
    }
  }, [api, end, onError]);

  /** A hold made for the buyer elsewhere (a waiting-list offer) becomes the page's hold. */
  const adopt = useCallback(async (holdId: string) => {
    if (current.current.stage === 'held' || current.current.stage === 'paying') return;
    const held = await api.getHold(holdId);
    if (held.status !== 'active' || msUntil(held.expiresAt) <= 0) return;
    rememberedHold.set(eventId, held.id);
    markSeats(seatIdsOf(held), 'held');
    setPurchase({ stage: 'held', hold: held });
  }, [api, eventId, markSeats]);

  /** Throws the API's refusal for the caller to explain. */
  const hold = async (request: HoldRequest) => {
    const created = await api.createHold(eventId, request, queuePass?.());
    rememberedHold.set(eventId, created.id);
    markSeats(seatIdsOf(created), 'held');
    setPurchase({ stage: 'held', hold: created });
  };

  const pay = async () => {
    if (purchase.stage !== 'held') return;
    const held = purchase.hold;
    setPurchase({ stage: 'paying', hold: held });
    try {
      const order = await payAndGetOrder(api, held.id);
      rememberedHold.clear(eventId);
      markSeats(seatIdsOf(held), 'sold');
      setPurchase({ stage: 'paid', hold: held, order });
    } catch (e) {
      const code = e instanceof HoldfastError ? e.code : '';
      if (code === 'HOLD_EXPIRED') {
        // Its seats went to someone else: read the map again rather than guess.
        end(held, 'expired');
        void refresh();
      } else if (code === 'HOLD_NOT_ACTIVE') end(held, 'released');
      else setPurchase({ stage: 'held', hold: held });
      const demoMissing = e instanceof HoldfastError && e.status === 404 && code !== 'HOLD_NOT_FOUND';
      onError(demoMissing ? new PurchaseError('DEMO_PAY_UNAVAILABLE', 'No demo payment here.') : e);
    }
  };

  const release = async () => {
    if (purchase.stage !== 'held') return;
    try {
      const released = await api.releaseHold(purchase.hold.id);
      rememberedHold.clear(eventId);
      markSeats(seatIdsOf(released), 'available');
      setPurchase({ stage: 'none' });
    } catch (e) {
      onError(e);
    }
  };

  /** More time: the server moves expiresAt; the countdown follows the hold it answers. */
  const extend = async () => {
    if (purchase.stage !== 'held') return;
    const held = purchase.hold;
    try {
      const extended = await api.extendHold(held.id);
      if (current.current.stage === 'held' && current.current.hold.id === held.id) setPurchase({ stage: 'held', hold: extended });
    } catch (e) {
      const code = e instanceof HoldfastError ? e.code : '';
      if (code === 'HOLD_EXPIRED') end(held, 'expired');
      else if (code === 'HOLD_NOT_ACTIVE') end(held, 'released');
      onError(e);
    }
  };

  const expire = useCallback(() => {
    if (current.current.stage === 'held') end(current.current.hold, 'expired');
  }, [end]);

  const dismiss = () => setPurchase({ stage: 'none' });

  return { purchase, current, hold, adopt, pay, release, extend, expire, recheck, dismiss };
}
