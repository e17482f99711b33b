/**
 * One event's waiting room, live: places waiting, admitted so far and per
 * minute (measured between readings), buyers in now, the median wait; pause or resume it and
 * change its rate or its most buyers in at once (each change audited).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from '../shared/api';
import { ErrorMessage } from '../shared/components';
import { describeError } from '../shared/messages';

const READ_EVERY_MS = 2000;

type Room = Awaited<ReturnType<Api['adminQueue']>>;

export function QueueControls({ api, eventId }: { api: Api; eventId: string }) {
  const [room, setRoom] = useState<Room | null>(null);
  const [perMinute, setPerMinute] = useState<number | null>(null);
  const [rate, setRate] = useState('');
  const [max, setMax] = useState('');
  const [error, setError] = useState<string | null>(null);
  const last = useRef<{ at: number; admitted: number } | null>(null);

  const read = useCallback(async () => {
    try {
      const now = await api.adminQueue(eventId);
      const at = Date.now();
      const before = last.current;
      if (before && at > before.at) setPerMinute(Math.round(((now.admitted - before.admitted) * 60_000) / (at - before.at)));
      last.current = { at, admitted: now.admitted };
      setRoom(now);
    } catch (e) {
      setError(describeError(e));
    }
  }, [api, eventId]);

  useEffect(() => {
    void read();
    const timer = setInterval(() => void read(), READ_EVERY_MS);
    return () => clearInterval(timer);
  }, [read]);

  const change = async (patch: { paused?: boolean; admitPerMinute?: number; maxActive?: number }) => {
    setError(null);
    try {
      setRoom(await api.adminUpdateQueue(eventId, patch));
    } catch (e) {
      setError(describeError(e));
    }
  };

  if (!room) return <ErrorMessage message={error} />;
  return (
    <section class="card queue-controls" data-testid="queue-controls">
      <div class="card-head">
        <h2>Waiting room</h2>
        <button type="button" data-testid="queue-pause" onClick={() => void change({ paused: !room.paused })}>
          {room.paused ? 'Resume' : 'Pause'}
        </button>
      </div>
      <ErrorMessage message={error} onDismiss={() => setError(null)} />
      <p data-testid="queue-numbers">
        <strong>{room.waiting.toLocaleString('en-US')}</strong> waiting · <strong>{room.admitted.toLocaleString('en-US')}</strong> admitted
        {perMinute !== null && <> ({perMinute.toLocaleString('en-US')} in the last minute's pace)</>} · <strong>{room.active}</strong> in now
        {room.medianWaitSeconds !== null && <> · median wait {room.medianWaitSeconds < 60 ? `${room.medianWaitSeconds} s` : `${Math.round(room.medianWaitSeconds / 60)} min`}</>}
        {room.paused && <span class="warning"> · paused</span>}
      </p>
      <form
        class="field-row"
        onSubmit={(e) => {
          e.preventDefault();
          void change({ ...(rate ? { admitPerMinute: Number(rate) } : {}), ...(max ? { maxActive: Number(max) } : {}) });
          setRate('');
          setMax('');
        }}
      >
        <label>
          Admit per minute
          <input data-testid="queue-rate" type="number" min={1} max={1_000_000} placeholder={String(room.admitPerMinute)} value={rate} onInput={(e) => setRate(e.currentTarget.value)} />
        </label>
        <label>
          Most in at once
          <input data-testid="queue-max" type="number" min={1} max={1_000_000} placeholder={String(room.maxActive)} value={max} onInput={(e) => setMax(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={!rate && !max}>
          Apply
        </button>
      </form>
    </section>
  );
}
