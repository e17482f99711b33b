import { useEffect, useState } from 'preact/hooks';
import { serverNow } from './clock';

/** The server's clock, re-read every `intervalMs` while `active`. */
export function useServerNow(active: boolean, intervalMs = 250): number {
  const [now, setNow] = useState(serverNow);
  useEffect(() => {
    if (!active) return;
    setNow(serverNow());
    const timer = setInterval(() => setNow(serverNow()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
