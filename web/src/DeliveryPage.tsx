import { api, when, whenExact, type DeliveryDetail } from './api.ts';
import { Link, type Shared } from './shared.tsx';
import { CodeBadge, CopyButton, LoadError, StatusBadge, useFlash, useLoad } from './ui.tsx';
import { announceNext } from './focus.ts';

/** One delivery: every attempt with its answer, and the exact request sent, to debug a receiver. */
export function DeliveryPage({ endpointId, deliveryId, navigate }: Shared & { endpointId: string; deliveryId: string }) {
  const {
    data: d,
    error,
    reload,
  } = useLoad(() => api<DeliveryDetail>('GET', `/webhook-endpoints/${endpointId}/deliveries/${deliveryId}`), [endpointId, deliveryId]);
  const flash = useFlash();
  const back = (
    <p>
      <Link to={`/portal/webhooks/${endpointId}`} navigate={navigate}>
        ← Endpoint and delivery log
      </Link>
    </p>
  );
  if (error)
    return (
      <>
        {back}
        <LoadError error={error} retry={reload} />
      </>
    );
  // The message regions come first in both trees, so that a message left by the page before (a
  // resend) goes into regions that exist, and stays while the delivery loads.
  if (!d)
    return (
      <section>
        {flash.view}
        <p className="muted">Loading…</p>
      </section>
    );
  const resend = async () => {
    flash.clear();
    try {
      const copy = await api<DeliveryDetail>('POST', `/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/resend`);
      announceNext(`Delivery queued again as ${copy.id.slice(0, 8)}; this is the new delivery.`);
      navigate(`/portal/webhooks/${endpointId}/deliveries/${copy.id}`);
    } catch (err) {
      flash.fail(err);
    }
  };
  // Said in the status region, so that a screen reader hears that the page changed (or did not).
  const refresh = async () => {
    flash.clear();
    const now = await reload();
    if (now) flash.ok(`Refreshed: ${now.status}, ${now.attempts_log.length === 1 ? '1 attempt' : `${now.attempts_log.length} attempts`}.`);
  };
  return (
    <section>
      {flash.view}
      {back}
      <div className="page-head">
        <div>
          <h1>
            Delivery <code>{d.id.slice(0, 8)}</code>
          </h1>
          <p className="muted break">
            {d.event_type} · event <code>{d.event_id}</code> · to {d.endpoint.url} · <StatusBadge status={d.status} />
            {d.next_attempt_at && <> · next retry {when(d.next_attempt_at)}</>}
          </p>
          {d.resent_from && (
            <p className="small">
              Resend of{' '}
              <Link to={`/portal/webhooks/${endpointId}/deliveries/${d.resent_from}`} navigate={navigate}>
                <code>{d.resent_from.slice(0, 8)}</code>
              </Link>
            </p>
          )}
        </div>
        <div className="buttons">
          <button onClick={resend}>Resend</button>
          <button onClick={refresh}>Refresh</button>
        </div>
      </div>
      {d.attempts_log.length === 0 ? (
        <div className="card">
          <p className="muted">No attempt yet: the worker sends it within seconds. Refresh to see it.</p>
        </div>
      ) : (
        d.attempts_log.map((a) => (
          <article className="card attempt" key={a.id} aria-label={`Attempt ${a.attempt}`}>
            <div className="attempt-head">
              <h2>Attempt {a.attempt}</h2>
              <CodeBadge code={a.status_code} />
              <span className="muted small">
                {whenExact(a.created_at)} · {a.duration_ms} ms
              </span>
            </div>
            {a.error && (
              <p className="error-text">
                <strong>Error:</strong> <code>{a.error}</code>
              </p>
            )}
            {a.response_excerpt !== null && (
              <>
                <h3>Response body (first 1 KiB)</h3>
                <pre className="code">{a.response_excerpt || '(empty)'}</pre>
              </>
            )}
            {a.request ? (
              <details>
                <summary>Request sent (headers and body, signature included)</summary>
                <pre className="code" id={`request-${a.id}`}>{`POST ${a.request.url}\n${Object.entries(a.request.headers)
                  .map(([k, v]) => `${k}: ${v}`)
                  .join('\n')}\n\n${a.request.body}`}</pre>
                <div className="buttons">
                  <CopyButton text={a.request.body} label="Copy body" />
                  <CopyButton text={a.request.headers['x-service-webhook-signature'] ?? ''} label="Copy signature" />
                </div>
              </details>
            ) : (
              <p className="muted small">The request of this attempt was not recorded.</p>
            )}
          </article>
        ))
      )}
    </section>
  );
}
