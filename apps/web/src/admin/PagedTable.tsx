/** A list the admin pages read page by page: its error, a line when empty, the table, and "Load more". */
import type { ComponentChildren, VNode } from 'preact';
import { ErrorMessage } from '../shared/components';
import { LoadMore } from './LoadMore';

interface Props<T> {
  testId: string;
  /** Column headings in order; `false` leaves a column out. */
  columns: (ComponentChildren | false)[];
  /** null while the first page is on its way. */
  items: T[] | null | undefined;
  emptyText: string;
  error: string | null;
  onDismissError?: () => void;
  nextCursor: string | null;
  onLoadMore: () => void;
  row: (item: T, index: number) => VNode;
}

export function PagedTable<T>({ testId, columns, items, emptyText, error, onDismissError, nextCursor, onLoadMore, row }: Props<T>) {
  return (
    <>
      <ErrorMessage message={error} onDismiss={onDismissError} />
      {items?.length === 0 && <p class="muted">{emptyText}</p>}
      {items && items.length > 0 && (
        <div class="table-scroll">
          <table data-testid={testId}>
            <thead>
              <tr>
                {columns.map((heading, i) => heading !== false && <th key={i} scope="col">{heading}</th>)}
              </tr>
            </thead>
            <tbody>{items.map(row)}</tbody>
          </table>
        </div>
      )}
      <LoadMore nextCursor={nextCursor} onLoadMore={onLoadMore} />
    </>
  );
}
