import { api, percent, when, type Overview } from './api.ts';
import { Link, type Shared } from './shared.tsx';
import { HealthLine } from './WebhooksPage.tsx';
import { DataTable, DeliveryOutcomeCells, LoadError, StatusBadge, useLoad } from './ui.tsx';

export function OverviewPage({ navigate }: Shared) {
  const { data, error, reload } = useLoad(() => api<Overview>('GET', '/overview'), []);
  if (error) return <LoadError error={error} retry={reload} />;
  if (!data) return <p className="muted">Loading…</p>;
  const { requests } = data;
  return (
    <section>
      <div className="page-head">
        <div>
          <h1>Overview</h1>
          <p className="muted">How your integrations are doing: API traffic, keys, webhook endpoints and deliveries that need attention.</p>
        </div>
      </div>
      <div className="grid-2">
        <div className="card">
          <h2>API requests, last 24 hours</h2>
          <div className="stats">
            <div>
              <span className="stat" data-testid="requests-total">
                {requests.total}
              </span>
              <span className="muted small">requests</span>
            </div>
            <div>
              <span className="stat" data-testid="requests-errors">
                {requests.errors}
              </span>
              <span className="muted small">errors (4xx, 5xx)</span>
            </div>
            <div>
              <span className={`stat ${requests.error_rate > 0.05 ? 'danger-text' : ''}`} data-testid="error-rate">
                {percent(requests.total ? requests.error_rate : null)}
              </span>
              <span className="muted small">error rate</span>
            </div>
          </div>
          <RequestChart hours={requests.hours} />
          <p className="small">
            <Link to="/portal/requests?status_class=errors" navigate={navigate}>
              See failed requests →
            </Link>
          </p>
        </div>
        <div className="card">
          <h2>API keys</h2>
          {data.keys.length === 0 ? (
            <p className="muted">
              No active keys.{' '}
              <Link to="/portal/keys" navigate={navigate}>
                Create one
              </Link>
              .
            </p>
          ) : (
            <ul className="plain">
              {data.keys.map((k) => (
                <li key={k.id}>
                  <strong>{k.label}</strong> <code className="muted">{k.prefix}…</code>
                  <span className="muted small"> · last used {k.last_used_at ? when(k.last_used_at) : 'never'}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
      <div className="card">
        <h2>Webhook endpoints</h2>
        {data.endpoints.length === 0 ? (
          <p className="muted">
            No endpoints.{' '}
            <Link to="/portal/webhooks" navigate={navigate}>
              Add one
            </Link>
            .
          </p>
        ) : (
          <ul className="plain">
            {data.endpoints.map((e) => (
              <li key={e.id}>
                <Link to={`/portal/webhooks/${e.id}`} navigate={navigate} className="break">
                  {e.url}
                </Link>{' '}
                <StatusBadge status={e.status} />
                <HealthLine health={e.health} />
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="card">
        <h2>Failing deliveries</h2>
        {data.failing_deliveries.length === 0 ? (
          <p className="muted">None: every recent delivery succeeded or is still on its first try.</p>
        ) : (
          <DataTable head={['Delivery', 'Type', 'Endpoint', 'Status', 'Attempts', 'Last answer']}>
            {data.failing_deliveries.map((d) => (
              <tr key={d.id}>
                <td data-label="Delivery">
                  <Link to={`/portal/webhooks/${d.endpoint.id}/deliveries/${d.id}`} navigate={navigate}>
                    <code>{d.id.slice(0, 8)}</code>
                  </Link>
                </td>
                <td data-label="Type">{d.event_type}</td>
                <td data-label="Endpoint" className="break">
                  {d.endpoint.url}
                </td>
                <DeliveryOutcomeCells delivery={d} answerLabel="Last answer" />
              </tr>
            ))}
          </DataTable>
        )}
      </div>
    </section>
  );
}

/** 24 bars, one per hour: all requests, with the errors in red. */
function RequestChart({ hours }: { hours: Overview['requests']['hours'] }) {
  const max = Math.max(1, ...hours.map((h) => h.total));
  const w = 240;
  const h = 40;
  const bar = w / hours.length;
  return (
    <svg className="chart" viewBox={`0 0 ${w} ${h + 12}`} role="img" aria-label={`Requests per hour over the last 24 hours; most in one hour: ${max}`}>
      {hours.map((x, i) => {
        const th = (x.total / max) * h;
        const eh = (x.errors / max) * h;
        return (
          <g key={x.hour}>
            <title>{`${new Date(x.hour).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}: ${x.total} requests, ${x.errors} errors`}</title>
            <rect x={i * bar + 1} y={h - th} width={bar - 2} height={th} className="bar" />
            <rect x={i * bar + 1} y={h - eh} width={bar - 2} height={eh} className="bar-error" />
          </g>
        );
      })}
      <line x1="0" x2={w} y1={h + 0.5} y2={h + 0.5} className="axis" />
      <text x="0" y={h + 11} className="axis-label">
        24 h ago
      </text>
      <text x={w} y={h + 11} className="axis-label" textAnchor="end">
        now
      </text>
    </svg>
  );
}
