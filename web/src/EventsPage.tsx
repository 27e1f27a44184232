import { useState } from 'react';
import { apiPage, ApiError, whenExact, type LoggedEvent } from './api.ts';
import { Link, type Shared } from './shared.tsx';
import { LoadError, StatusBadge, useLoad } from './ui.tsx';

/** The merchant's recent events, the payload each carried and the endpoints it went to. */
export function EventsPage({ meta, navigate }: Shared) {
  const [type, setType] = useState('');
  const [older, setOlder] = useState<LoggedEvent[]>([]);
  const [moreError, setMoreError] = useState('');
  const {
    data: page,
    error,
    reload,
    setData,
  } = useLoad(async () => {
    setOlder([]);
    return apiPage<LoggedEvent>(`/events${type ? `?type=${type}` : ''}`);
  }, [type]);
  const loadOlder = async () => {
    if (!page?.next_before) return;
    try {
      const more = await apiPage<LoggedEvent>(`/events?${type ? `type=${type}&` : ''}before=${encodeURIComponent(page.next_before)}`);
      setOlder([...older, ...more.data]);
      setData({ ...page, next_before: more.next_before });
    } catch (err) {
      setMoreError(err instanceof ApiError ? err.message : 'Could not load older events.');
    }
  };
  const events = [...(page?.data ?? []), ...older];
  return (
    <section>
      <div className="page-head">
        <div>
          <h1>Events</h1>
          <p className="muted">Everything that happened in your store that integrations can hear about, newest first, with the deliveries each event made.</p>
        </div>
      </div>
      <div className="filters" role="group" aria-label="Filters">
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">All types</option>
            {[...meta.event_types, 'ping'].map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      {moreError && (
        <p className="error-banner" role="alert">
          {moreError}
        </p>
      )}
      {error ? (
        <LoadError error={error} retry={reload} />
      ) : page === null ? (
        <p className="muted">Loading…</p>
      ) : events.length === 0 ? (
        <div className="empty card">
          <h2>No events</h2>
          <p>Events appear when orders, fulfillments, inventory or your catalog change.</p>
        </div>
      ) : (
        <div className="event-list">
          {events.map((e) => (
            <details className="card event" key={e.id}>
              <summary>
                <span className="chip">{e.type}</span>
                <span className="muted small">{whenExact(e.created_at)}</span>
                <span className="small">
                  {e.deliveries.length === 0 ? 'no endpoint' : `${e.deliveries.length} deliver${e.deliveries.length === 1 ? 'y' : 'ies'}`}
                </span>
                <code className="small muted">{e.id}</code>
              </summary>
              {e.deliveries.length > 0 && (
                <ul className="delivery-list">
                  {e.deliveries.map((d) => (
                    <li key={d.id}>
                      <StatusBadge status={d.status} />{' '}
                      <Link to={`/portal/webhooks/${d.endpoint_id}/deliveries/${d.id}`} navigate={navigate}>
                        {d.endpoint_url}
                      </Link>
                      <span className="muted small">
                        {' '}
                        · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
                        {d.last_status_code !== null ? ` · last HTTP ${d.last_status_code}` : ''}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
              <pre className="code">{JSON.stringify(e.payload, null, 2)}</pre>
            </details>
          ))}
          {page.next_before && (
            <div className="more">
              <button onClick={loadOlder}>Older events</button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
