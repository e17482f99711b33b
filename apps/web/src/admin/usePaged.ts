import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Page } from '../shared/api';
import { describeError } from '../shared/messages';

/**
 * A list endpoint shown as a table: the first page, reloaded every `pollMs`
 * (unless the user has loaded further pages), and "load more" via `nextCursor`.
 */
export function usePaged<T>(load: (cursor?: string) => Promise<Page<T>>, pollMs: number) {
  const [items, setItems] = useState<T[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pages = useRef(1);

  const reload = useCallback(async () => {
    try {
      const page = await load();
      pages.current = 1;
      setItems(page.items);
      setNextCursor(page.nextCursor);
      setError(null);
    } catch (e) {
      setError(describeError(e));
    }
  }, [load]);

  useEffect(() => {
    void reload();
    const timer = setInterval(() => {
      if (pages.current === 1) void reload();
    }, pollMs);
    return () => clearInterval(timer);
  }, [reload, pollMs]);

  const loadMore = async () => {
    if (!nextCursor) return;
    try {
      const page = await load(nextCursor);
      pages.current += 1;
      setItems((current) => [...(current ?? []), ...page.items]);
      setNextCursor(page.nextCursor);
    } catch (e) {
      setError(describeError(e));
    }
  };

  return { items, nextCursor, error, reload, loadMore };
}
