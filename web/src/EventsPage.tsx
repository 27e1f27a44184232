import { useState } from 'react';
import { ApiError, whenExact, type LoggedEvent } from './api.ts';
import { Link, type Shared } from './shared.tsx';
import { EmptyCard, ListSummary, OlderButton, usePagedList } from './lists.tsx';
import { LoadedList, PageHead, StatusBadge } from './ui.tsx';

/** The merchant's recent events, the payload each carried and the endpoints it went to. */
export function EventsPage({ meta, navigate }: Shared) {
  const [type, setType] = useState('');
  const [moreError, setMoreError] = useState('');
  const events = usePagedList<LoggedEvent>('/events', { type }, (err) => setMoreError(err instanceof ApiError ? err.message : 'Could not load older events.'));
  return (
    <section>
      <PageHead
        title="Events"
        intro="Everything that happened in your store that integrations can hear about, newest first, with the deliveries each event made."
      />
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
      <ListSummary rows={events.data} noun={['event', 'events']} none="No events of this type." />
      {moreError && (
        <p className="error-banner" role="alert">
          {moreError}
        </p>
      )}
      <LoadedList state={events} empty={<EmptyCard title="No events">Events appear when orders, fulfillments, inventory or your catalog change.</EmptyCard>}>
        {(rows) => (
          <div className="event-list">
            {rows.map((e) => (
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
            <OlderButton list={events}>Older events</OlderButton>
          </div>
        )}
      </LoadedList>
    </section>
  );
}
