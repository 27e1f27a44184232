import { useEffect, useRef, useState } from 'react';
import { api, ApiError, whenExact, withQuery, type ApiKey, type LoggedRequest } from './api.ts';
import { Link, type Shared } from './shared.tsx';
import { FieldMessage } from './forms.tsx';
import { DataTable, EmptyCard, ListSummary, OlderButton, usePagedList, type Column } from './lists.tsx';
import { focusSoon, focusStatic } from './focus.ts';
import { CodeBadge, CopyButton, LoadedList, PageHead, useLoad } from './ui.tsx';

const CLASSES = [
  ['', 'All statuses'],
  ['2xx', '2xx success'],
  ['4xx', '4xx client errors'],
  ['5xx', '5xx server errors'],
  ['errors', 'All errors'],
] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The API request log: what the merchant's keys did, newest first, with the problem body on click. */
export function RequestsPage({ meta, navigate, requestId, search }: Shared & { requestId: string | null; search: string }) {
  const params = new URLSearchParams(search);
  const filters = { key_id: params.get('key_id') ?? '', status_class: params.get('status_class') ?? '', path: params.get('path') ?? '' };
  const { data: keys } = useLoad(() => api<ApiKey[]>('GET', '/api-keys'), []);
  const [find, setFind] = useState('');
  const [findError, setFindError] = useState('');
  const requests = usePagedList<LoggedRequest>('/request-log', filters, (err) =>
    setFindError(err instanceof ApiError ? err.message : 'Could not load older requests.'),
  );
  const go = (next: Partial<typeof filters>) => navigate(withQuery('/portal/requests', { ...filters, ...next }));
  const submitFind = (e: React.FormEvent) => {
    e.preventDefault();
    const id = find.trim();
    if (!UUID.test(id)) return setFindError('Paste a request id: 36 characters like 3f2b8c1e-…, from the X-Request-Id header or the request_id of an error.');
    setFindError('');
    navigate(`/portal/requests/${id.toLowerCase()}`);
  };
  const columns: Column<LoggedRequest>[] = [
    { label: 'Time', cell: (r) => whenExact(r.created_at) },
    { label: 'Key', cell: (r) => r.api_key.label },
    {
      label: 'Request',
      className: 'break',
      cell: (r) => (
        <code>
          {r.method} {r.path}
          {r.query ? `?${r.query}` : ''}
        </code>
      ),
    },
    { label: 'Status', cell: (r) => <CodeBadge code={r.status} /> },
    { label: 'Error', cell: (r) => r.error_code ?? '—' },
    { label: 'Duration', cell: (r) => `${r.duration_ms} ms` },
    {
      label: 'Request id',
      cell: (r) => (
        <Link id={`request-${r.request_id}`} to={`/portal/requests/${r.request_id}${search ? `?${search}` : ''}`} navigate={navigate}>
          {/* The end of the id: its start is a timestamp (UUIDv7), the same for every request of a minute. */}
          <code title={r.request_id}>…{r.request_id.slice(-12)}</code>
        </Link>
      ),
    },
  ];

  return (
    <section>
      <PageHead
        title="Request log"
        intro={`Requests your API keys made in the last ${meta.request_log_retention_days} days, newest first. Click a request for its details and error body.`}
      />
      <form className="card find" onSubmit={submitFind} noValidate aria-label="Find a request">
        <label className="field">
          Find a request by its X-Request-Id
          <span className="find-row">
            <input
              name="request_id"
              value={find}
              placeholder="e.g. 3f2b8c1e-5d4a-4c1b-9e7f-0a1b2c3d4e5f"
              aria-invalid={!!findError}
              aria-describedby="find-error"
              onChange={(e) => {
                setFind(e.target.value);
                setFindError('');
              }}
            />
            <button className="primary" type="submit">
              Find
            </button>
          </span>
          <FieldMessage id="find-error" text={findError} />
        </label>
      </form>
      {requestId && <RequestDetail requestId={requestId} navigate={navigate} search={search} />}
      <div className="filters" role="group" aria-label="Filters">
        <label>
          Key
          <select value={filters.key_id} onChange={(e) => go({ key_id: e.target.value })}>
            <option value="">All keys</option>
            {(keys ?? []).map((k) => (
              <option key={k.id} value={k.id}>
                {k.label} ({k.prefix}…)
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={filters.status_class} onChange={(e) => go({ status_class: e.target.value })}>
            {CLASSES.map(([v, t]) => (
              <option key={v} value={v}>
                {t}
              </option>
            ))}
          </select>
        </label>
        {/* Keyed by the filter in the address: Back to another filter shows that one, not the text typed before. */}
        <PathFilter
          key={filters.path}
          value={filters.path}
          onChange={(path) => {
            go({ path });
            // The box is made anew for the new filter (keyed by it): focus goes with it.
            focusSoon('path-filter');
          }}
        />
      </div>
      <ListSummary rows={requests.data} noun={['request', 'requests']} none="No request matches these filters." />
      <LoadedList
        state={requests}
        empty={
          <EmptyCard title="No requests">
            {Object.values(filters).some((v) => v)
              ? 'No request matches these filters.'
              : 'Requests made with your API keys appear here within a second or two.'}
          </EmptyCard>
        }
      >
        {(rows) => (
          <DataTable card className="requests" rows={rows} columns={columns} row={(r) => ({ className: r.request_id === requestId ? 'selected' : '' })}>
            <OlderButton list={requests}>Older requests</OlderButton>
          </DataTable>
        )}
      </LoadedList>
    </section>
  );
}

function PathFilter({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const [text, setText] = useState(value);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onChange(text.trim());
      }}
      className="path-filter"
    >
      <label>
        Path contains
        <span className="find-row">
          <input id="path-filter" name="path" value={text} placeholder="/orders" onChange={(e) => setText(e.target.value)} />
          <button type="submit">Filter</button>
        </span>
      </label>
    </form>
  );
}

function RequestDetail({ requestId, navigate, search }: { requestId: string; navigate: (to: string) => void; search: string }) {
  const { data: r, error } = useLoad(() => api<LoggedRequest>('GET', `/request-log/${requestId}`), [requestId]);
  // Closed, focus goes back to the request's row (when the list shows it).
  const close = () => {
    navigate(`/portal/requests${search ? `?${search}` : ''}`);
    focusSoon(`request-${requestId}`);
  };
  // Opened, focus moves to the detail (the list stays as it was, with its place).
  const heading = useRef<HTMLHeadingElement | null>(null);
  useEffect(() => {
    if (r) focusStatic(heading.current);
  }, [r]);
  if (error) {
    const missing = error instanceof ApiError && error.status === 404;
    return (
      <div className="card" role="alert">
        <p className="error-text">
          {missing
            ? `No request ${requestId} in your log. It may be older than the retention period, made by another merchant's key, or not made with an API key.`
            : 'Could not load the request. Try again.'}
        </p>
        <button className="link" onClick={close}>
          Close
        </button>
      </div>
    );
  }
  if (!r) return <p className="muted">Loading…</p>;
  return (
    <article className="card request-detail" aria-label="Request details">
      <div className="attempt-head">
        <h2 ref={heading}>
          <code>
            {r.method} {r.path}
          </code>
        </h2>
        <CodeBadge code={r.status} />
        <button className="link" onClick={close}>
          Close
        </button>
      </div>
      <dl className="facts">
        <dt>Request id</dt>
        <dd>
          <code id="detail-request-id">{r.request_id}</code> <CopyButton text={r.request_id} targetId="detail-request-id" />
        </dd>
        <dt>Time</dt>
        <dd>{whenExact(r.created_at)}</dd>
        <dt>Key</dt>
        <dd>
          {r.api_key.label} (<code>{r.api_key.prefix}…</code>)
        </dd>
        <dt>Query</dt>
        <dd>
          <code>{r.query ?? '—'}</code>
        </dd>
        <dt>Duration</dt>
        <dd>{r.duration_ms} ms</dd>
        <dt>Error code</dt>
        <dd>{r.error_code ?? '—'}</dd>
      </dl>
      {r.problem ? (
        <>
          <h3>Problem body returned</h3>
          <pre className="code" data-testid="problem-body">
            {JSON.stringify(r.problem, null, 2)}
          </pre>
        </>
      ) : (
        <p className="muted">The request succeeded; only errors keep their body.</p>
      )}
    </article>
  );
}
