import type { ReactNode } from 'react';
import { api, percent, when, type FailingDelivery, type Overview } from './api.ts';
import { Link, type Shared } from './shared.tsx';
import { HealthLine } from './WebhooksPage.tsx';
import { DataTable, deliveryOutcomeColumns, type Column } from './lists.tsx';
import { Card, LoadError, PageHead, StatusBadge, useLoad } from './ui.tsx';

export function OverviewPage({ navigate }: Shared) {
  const { data, error, reload } = useLoad(() => api<Overview>('GET', '/overview'), []);
  if (error) return <LoadError error={error} retry={reload} />;
  if (!data) return <p className="muted">Loading…</p>;
  const { requests } = data;
  return (
    <section>
      <PageHead title="Overview" intro="How your integrations are doing: API traffic, keys, webhook endpoints and deliveries that need attention." />
      <div className="grid-2">
        <Card title="API requests, last 24 hours">
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
          <RequestTable hours={requests.hours} />
          <p className="small">
            <Link to="/portal/requests?status_class=errors" navigate={navigate}>
              See failed requests →
            </Link>
          </p>
        </Card>
        <Card title="API keys">
          <ShortList items={data.keys} empty={<Invite text="No active keys." to="/portal/keys" action="Create one" navigate={navigate} />}>
            {(k) => <KeyLine apiKey={k} />}
          </ShortList>
        </Card>
      </div>
      <Card title="Webhook endpoints">
        <ShortList items={data.endpoints} empty={<Invite text="No endpoints." to="/portal/webhooks" action="Add one" navigate={navigate} />}>
          {(e) => <EndpointLine endpoint={e} navigate={navigate} />}
        </ShortList>
      </Card>
      <Card title={data.failing_total === 0 ? 'Failing deliveries' : `Failing deliveries (${countText(data.failing_total)})`}>
        {data.failing_deliveries.length === 0 ? (
          <p className="muted">None: every recent delivery succeeded or is still on its first try.</p>
        ) : (
          <>
            {data.failing_total > data.failing_deliveries.length && (
              <p className="small muted" data-testid="failing-count">
                The latest {data.failing_deliveries.length} of {countText(data.failing_total)} failed or retrying; each endpoint's delivery log has them all.
              </p>
            )}
            <DataTable rows={data.failing_deliveries} columns={failingColumns(navigate)} />
          </>
        )}
      </Card>
    </section>
  );
}

/** A count the server stops at 1000: "1000 or more" there. */
const countText = (n: number) => (n >= 1000 ? '1000 or more' : String(n));

const failingColumns = (navigate: Shared['navigate']): Column<FailingDelivery>[] => [
  {
    label: 'Delivery',
    cell: (d) => (
      <Link to={`/portal/webhooks/${d.endpoint.id}/deliveries/${d.id}`} navigate={navigate}>
        <code>{d.id.slice(0, 8)}</code>
      </Link>
    ),
  },
  { label: 'Type', cell: (d) => d.event_type },
  { label: 'Endpoint', className: 'break', cell: (d) => d.endpoint.url },
  ...deliveryOutcomeColumns<FailingDelivery>('Last answer'),
];

function KeyLine({ apiKey: k }: { apiKey: Overview['keys'][number] }) {
  return (
    <>
      <strong>{k.label}</strong> <code className="muted">{k.prefix}…</code>
      <span className="muted small"> · last used {k.last_used_at ? when(k.last_used_at) : 'never'}</span>
    </>
  );
}

function EndpointLine({ endpoint: e, navigate }: { endpoint: Overview['endpoints'][number]; navigate: Shared['navigate'] }) {
  return (
    <>
      <Link to={`/portal/webhooks/${e.id}`} navigate={navigate} className="break">
        {e.url}
      </Link>{' '}
      <StatusBadge status={e.status} />
      <HealthLine health={e.health} />
    </>
  );
}

/** A card's short list, or what to do while it is empty. */
function ShortList<T extends { id: string }>({ items, empty, children }: { items: T[]; empty: ReactNode; children: (item: T) => ReactNode }) {
  if (items.length === 0) return empty;
  return (
    <ul className="plain">
      {items.map((item) => (
        <li key={item.id}>{children(item)}</li>
      ))}
    </ul>
  );
}

/** An empty list's line: what is missing and a link to add it. */
function Invite({ text, to, action, navigate }: { text: string; to: string; action: string; navigate: Shared['navigate'] }) {
  return (
    <p className="muted">
      {text}{' '}
      <Link to={to} navigate={navigate}>
        {action}
      </Link>
      .
    </p>
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

/** The chart's numbers as a table for screen readers (the bars say them by height and colour only). */
function RequestTable({ hours }: { hours: Overview['requests']['hours'] }) {
  return (
    <table className="sr-only">
      <caption>Requests per hour over the last 24 hours</caption>
      <thead>
        <tr>
          <th>Hour</th>
          <th>Requests</th>
          <th>Errors</th>
        </tr>
      </thead>
      <tbody>
        {hours.map((x) => (
          <tr key={x.hour}>
            <td>{new Date(x.hour).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}</td>
            <td>{x.total}</td>
            <td>{x.errors}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
