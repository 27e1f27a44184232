// Lists a page shows: a table built from column definitions (each cell labelled with its heading,
// so the rows can stack on a phone), an empty list's card, and a newest-first list read a page at
// a time.
import { useState, type ComponentProps, type ReactNode } from 'react';
import { apiPage, withQuery } from './api.ts';
import { StatusBadge, useLoad } from './ui.tsx';

export interface Column<T> {
  /** The heading, and the cell's label where rows stack on a phone; '' for a column of actions. */
  label: string;
  cell: (row: T) => ReactNode;
  className?: string;
}

type RowAttributes = ComponentProps<'tr'> & { [data: `data-${string}`]: string };

/** A scrollable table, a row per item; `children` go under the table (a button for more rows). */
export function DataTable<T extends { id: string }>({
  rows,
  columns,
  className,
  card = false,
  row,
  children,
}: {
  rows: T[];
  columns: Column<T>[];
  className?: string;
  /** The table is a card of its own (not inside one). */
  card?: boolean;
  /** Attributes of an item's row. */
  row?: (item: T) => RowAttributes;
  children?: ReactNode;
}) {
  return (
    <div className={card ? 'table-wrap card' : 'table-wrap'}>
      <table className={className}>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i}>{c.label || <span className="sr-only">Actions</span>}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((item) => (
            <tr key={item.id} {...row?.(item)}>
              {columns.map((c, i) => (
                <td key={i} data-label={c.label || undefined} className={c.className}>
                  {c.cell(item)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {children}
    </div>
  );
}

type DeliveryOutcome = { status: string; attempts: number; last_status_code: number | null; last_error: string | null };

/** A delivery's status, attempts and last answer (status code, else error), as three columns. */
export const deliveryOutcomeColumns = <T extends DeliveryOutcome>(answerLabel: string): Column<T>[] => [
  { label: 'Status', cell: (d) => <StatusBadge status={d.status} /> },
  { label: 'Attempts', cell: (d) => d.attempts },
  { label: answerLabel, cell: (d) => d.last_status_code ?? d.last_error ?? '—', className: 'break' },
];

/** What a page's list shows while it has nothing: why, and how to get something. */
export function EmptyCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="empty card">
      <h2>{title}</h2>
      <p>{children}</p>
    </div>
  );
}

/**
 * A newest-first list read a page at a time: the first page loads again whenever the path or a
 * filter changes (dropping the older pages), `loadOlder` appends the next page.
 */
export function usePagedList<T>(path: string, filters: Record<string, string>, onOlderFailed: (err: unknown) => void) {
  const first = withQuery(path, filters);
  const [older, setOlder] = useState<T[]>([]);
  const {
    data: page,
    error,
    reload,
    setData,
  } = useLoad(async () => {
    setOlder([]);
    return apiPage<T>(first);
  }, [first]);
  const loadOlder = async () => {
    if (!page?.next_before) return;
    try {
      const more = await apiPage<T>(withQuery(path, { ...filters, before: page.next_before }));
      setOlder([...older, ...more.data]);
      setData({ ...page, next_before: more.next_before });
    } catch (err) {
      onOlderFailed(err);
    }
  };
  // olderLoaded: a page that refreshes itself leaves the list alone then (a reload drops the older rows).
  return { data: page && [...page.data, ...older], error, reload, hasOlder: !!page?.next_before, loadOlder, olderLoaded: older.length > 0 };
}

/** The button under a paged list that loads its older rows, while there are any. */
export function OlderButton({ list, children }: { list: { hasOlder: boolean; loadOlder: () => void }; children: ReactNode }) {
  if (!list.hasOlder) return null;
  return (
    <div className="more">
      <button onClick={list.loadOlder}>{children}</button>
    </div>
  );
}

/**
 * What a filtered list now holds, said by a live region that stays on the page (a filter replaced
 * the list with nothing said): "12 requests shown", "No request matches".
 */
export function ListSummary({ rows, noun, none }: { rows: unknown[] | null; noun: [string, string]; none: string }) {
  const text =
    rows === null
      ? ''
      : rows.length === 0
        ? none
        : `${rows.length} ${rows.length === 1 ? noun[0] : noun[1]} shown${rows.length >= 50 ? ' (older ones on request)' : ''}.`;
  return (
    <p className="sr-only" role="status">
      {text}
    </p>
  );
}
