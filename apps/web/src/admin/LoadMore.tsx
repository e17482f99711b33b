export function LoadMore({ nextCursor, onLoadMore }: { nextCursor: string | null; onLoadMore: () => void }) {
  if (!nextCursor) return null;
  return (
    <button type="button" class="link" onClick={onLoadMore}>
      Load more
    </button>
  );
}
