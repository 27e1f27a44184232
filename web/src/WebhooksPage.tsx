import { useEffect, useState } from 'react';
import { api, ApiError, when, type Delivery, type Endpoint } from './api.ts';
import { LocationChooser, locationNames, type Shared } from './App.tsx';

export function WebhooksPage({ meta, locations, navigate }: Shared) {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [creating, setCreating] = useState(false);
  useEffect(() => void api<Endpoint[]>('GET', '/webhook-endpoints').then(setEndpoints), []);
  return (
    <section>
      <div className="page-head">
        <div>
          <h1>Webhook endpoints</h1>
          <p className="muted">We POST signed events to these URLs when orders, fulfillments, inventory or your catalog change.</p>
        </div>
        {!creating && <button className="primary" onClick={() => setCreating(true)}>Add endpoint</button>}
      </div>
      {creating && <EndpointForm meta={meta} locations={locations} onCancel={() => setCreating(false)} onCreated={(e) => navigate(`/portal/webhooks/${e.id}`)} />}
      {endpoints === null ? (
        <p className="muted">Loading…</p>
      ) : endpoints.length === 0 ? (
        <div className="empty card">
          <h2>No endpoints yet</h2>
          <p>Add the URL of your receiver. For a warehouse, use the Warehouse preset: order, fulfillment and inventory events.</p>
        </div>
      ) : (
        <div className="table-wrap card">
          <table>
            <thead><tr><th>URL</th><th>Events</th><th>Locations</th><th>Status</th><th>Created</th></tr></thead>
            <tbody>
              {endpoints.map((e) => (
                <tr key={e.id} className="clickable" onClick={() => navigate(`/portal/webhooks/${e.id}`)}>
                  <td data-label="URL"><a href={`/portal/webhooks/${e.id}`} onClick={(ev) => { ev.preventDefault(); navigate(`/portal/webhooks/${e.id}`); }}>{e.url}</a>{e.description && <div className="muted small">{e.description}</div>}</td>
                  <td data-label="Events">{e.events.length} event{e.events.length === 1 ? '' : 's'}</td>
                  <td data-label="Locations">{locationNames(e.location_ids, locations)}</td>
                  <td data-label="Status"><span className={`badge ${e.status === 'enabled' ? 'green' : 'grey'}`}>{e.status}</span></td>
                  <td data-label="Created">{when(e.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function EndpointForm({ meta, locations, onCancel, onCreated }: Pick<Shared, 'meta' | 'locations'> & { onCancel: () => void; onCreated: (e: Endpoint) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [locationIds, setLocationIds] = useState<string[] | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const local: Record<string, string> = {};
    if (!url.trim()) local.url = 'Enter the https URL of your receiver.';
    if (events.length === 0) local.events = 'Choose at least one event.';
    if (locationIds !== null && locationIds.length === 0) local.location_ids = 'Choose at least one location, or All locations.';
    setErrors(local);
    if (Object.keys(local).length) return;
    try {
      onCreated(await api<Endpoint>('POST', '/webhook-endpoints', { url: url.trim(), events, ...(description ? { description } : {}), ...(locationIds ? { location_ids: locationIds } : {}) }));
    } catch (err) {
      if (err instanceof ApiError) setErrors(Object.keys(err.fields).length ? err.fields : { url: err.message });
    }
  };
  return (
    <form className="card form" onSubmit={submit} noValidate aria-label="Add webhook endpoint">
      <h2>New endpoint</h2>
      <label className="field">URL<input name="url" value={url} onChange={(e) => { setUrl(e.target.value); setErrors({ ...errors, url: '' }); }} placeholder="https://warehouse.example.com/webhooks" />
        {errors.url && <span className="field-error">{errors.url}</span>}
      </label>
      <label className="field">Description (optional)<input name="description" value={description} onChange={(e) => setDescription(e.target.value)} /></label>
      <fieldset className="field">
        <legend>Events <button type="button" className="small" onClick={() => { setEvents(meta.warehouse_events); setErrors({ ...errors, events: '' }); }}>Warehouse preset</button></legend>
        <div className="checks columns">
          {meta.event_types.map((t) => (
            <label key={t} className="inline"><input type="checkbox" name="event" value={t} checked={events.includes(t)} onChange={(e) => setEvents(e.target.checked ? [...events, t] : events.filter((x) => x !== t))} /> {t}</label>
          ))}
        </div>
        {errors.events && <span className="field-error">{errors.events}</span>}
      </fieldset>
      <LocationChooser name="endpoint" locations={locations} value={locationIds} onChange={setLocationIds} error={errors.location_ids} />
      <div className="buttons"><button className="primary" type="submit">Add endpoint</button><button type="button" className="link" onClick={onCancel}>Cancel</button></div>
    </form>
  );
}

export function EndpointPage({ id, locations, navigate }: Shared & { id: string }) {
  const [endpoint, setEndpoint] = useState<Endpoint | null>(null);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [notice, setNotice] = useState('');
  const [missing, setMissing] = useState(false);

  const load = async () => {
    try {
      const list = await api<Endpoint[]>('GET', '/webhook-endpoints');
      const found = list.find((e) => e.id === id) ?? null;
      setEndpoint(found);
      if (!found) return setMissing(true);
      setDeliveries(await api<Delivery[]>('GET', `/webhook-endpoints/${id}/deliveries`));
    } catch {
      setMissing(true);
    }
  };
  useEffect(() => {
    void load();
    const timer = setInterval(load, 3000);
    return () => clearInterval(timer);
  }, [id]);

  if (missing) return <div className="empty card"><h2>Endpoint not found</h2><p><a href="/portal/webhooks" onClick={(e) => { e.preventDefault(); navigate('/portal/webhooks'); }}>Back to webhook endpoints</a></p></div>;
  if (!endpoint) return <p className="muted">Loading…</p>;

  const act = async (fn: () => Promise<unknown>, message: string) => {
    await fn();
    setNotice(message);
    await load();
  };
  return (
    <section>
      <p><a href="/portal/webhooks" onClick={(e) => { e.preventDefault(); navigate('/portal/webhooks'); }}>← Webhook endpoints</a></p>
      <div className="page-head">
        <div>
          <h1 className="url-title">{endpoint.url}</h1>
          <p className="muted">{endpoint.description ?? 'No description'} · {locationNames(endpoint.location_ids, locations)} · <span className={`badge ${endpoint.status === 'enabled' ? 'green' : 'grey'}`}>{endpoint.status}</span></p>
        </div>
        <div className="buttons">
          <button onClick={() => act(() => api('POST', `/webhook-endpoints/${id}/test`), 'Test event queued.')}>Send test event</button>
          <button onClick={() => act(() => api('PATCH', `/webhook-endpoints/${id}`, { status: endpoint.status === 'enabled' ? 'disabled' : 'enabled' }), endpoint.status === 'enabled' ? 'Endpoint disabled.' : 'Endpoint enabled.')}>
            {endpoint.status === 'enabled' ? 'Disable' : 'Enable'}
          </button>
        </div>
      </div>
      {notice && <p className="notice" role="status">{notice}</p>}
      <div className="card">
        <h2>Signing secret</h2>
        <p className="muted">Verify every delivery: HMAC-SHA256 of <code>timestamp.body</code> with this secret must match <code>X-Service-Webhook-Signature</code>.</p>
        <div className="secret-row">
          <code className="secret" data-testid="signing-secret">{secret ?? 'whsec_••••••••••••••••••••••••'}</code>
          {secret ? <button onClick={() => setSecret(null)}>Hide</button> : <button onClick={async () => setSecret((await api<{ signing_secret: string }>('GET', `/webhook-endpoints/${id}/secret`)).signing_secret)}>Reveal</button>}
          {confirmRotate ? (
            <span className="confirm">The old secret keeps signing for 24 hours.{' '}
              <button className="danger" onClick={async () => { const r = await api<{ signing_secret: string }>('POST', `/webhook-endpoints/${id}/rotate-secret`); setSecret(r.signing_secret); setConfirmRotate(false); setNotice('Secret rotated.'); }}>Rotate now</button>
              <button className="link" onClick={() => setConfirmRotate(false)}>Cancel</button>
            </span>
          ) : (
            <button onClick={() => setConfirmRotate(true)}>Rotate…</button>
          )}
        </div>
        <p className="small muted">Events: {endpoint.events.join(', ')}</p>
      </div>
      <div className="card">
        <h2>Delivery log</h2>
        {deliveries === null ? <p className="muted">Loading…</p> : deliveries.length === 0 ? (
          <p className="muted empty-inline">No deliveries yet. Events appear here as they are sent; use “Send test event” to try your receiver.</p>
        ) : (
          <div className="table-wrap">
            <table className="deliveries">
              <thead><tr><th>Event</th><th>Type</th><th>Status</th><th>Attempts</th><th>Last response</th><th>Next retry</th><th>Created</th><th /></tr></thead>
              <tbody>
                {deliveries.map((d) => (
                  <tr key={d.id}>
                    <td data-label="Event"><code title={d.event_id}>{d.event_id.slice(0, 8)}</code></td>
                    <td data-label="Type">{d.event_type}</td>
                    <td data-label="Status"><span className={`badge ${d.status === 'delivered' ? 'green' : d.status === 'failed' ? 'red' : 'amber'}`}>{d.status}</span></td>
                    <td data-label="Attempts">{d.attempts}</td>
                    <td data-label="Last response">{d.last_status_code ?? '—'}</td>
                    <td data-label="Next retry">{when(d.next_attempt_at)}</td>
                    <td data-label="Created">{when(d.created_at)}</td>
                    <td className="actions"><button className="small" onClick={() => act(() => api('POST', `/webhook-endpoints/${id}/deliveries/${d.id}/resend`), 'Delivery queued again.')}>Resend</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}
