/**
 * The buyer's waiting-list entries on this event: joined when a tier or ticket
 * type is sold out, read again every few seconds while one waits or holds an
 * offer. An offer is a hold of the buyer's (the seats that came back): the
 * page takes it up as its hold, with its countdown and Pay button.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../shared/api';

export type WaitlistEntry = Awaited<ReturnType<Api['myWaitlist']>>[number];
export type WaitlistRequest = { tier: string; quantity: number } | { ticketTypeId: string; quantity: number };

/** How often the page asks again while an entry waits. */
const POLL_MS = 2_000;

export function useWaitlist(api: Api, eventId: string, onOffer: (holdId: string) => void, onError: (e: unknown) => void) {
  const [entries, setEntries] = useState<WaitlistEntry[]>([]);
  const seen = useRef(new Set<string>());
  const offer = useRef(onOffer);
  offer.current = onOffer;

  const read = useCallback(async () => {
    try {
      const mine = await api.myWaitlist(eventId);
      setEntries(mine);
      for (const e of mine) {
        if (e.state === 'offered' && e.offer && !seen.current.has(e.offer.holdId)) {
          seen.current.add(e.offer.holdId);
          offer.current(e.offer.holdId);
        }
      }
    } catch (e) {
      onError(e);
    }
  }, [api, eventId, onError]);

  useEffect(() => {
    void read();
  }, [read]);

  const waiting = entries.some((e) => e.state === 'waiting' || e.state === 'offered');
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => void read(), POLL_MS);
    return () => clearInterval(timer);
  }, [waiting, read]);

  const join = async (request: WaitlistRequest) => {
    await api.joinWaitlist(eventId, request);
    await read();
  };
  const leave = async (entryId: string) => {
    await api.leaveWaitlist(eventId, entryId);
    await read();
  };
  return { entries: entries.filter((e) => e.state === 'waiting' || e.state === 'offered'), join, leave, read };
}
