import { useEffect, useState } from 'react';
import { api, percent, when, type DeliveryDetail, type EndpointWithHealth, type NewEndpoint, type PortalDelivery } from './api.ts';
import { Link, LocationChooser, locationChoiceError, locationNames, type Shared } from './shared.tsx';
import { Confirm, CopyButton, DataTable, DeliveryOutcomeCells, FieldMessage, LoadError, StatusBadge, useFlash, useFormSubmit, useLoad } from './ui.tsx';

type Health = EndpointWithHealth['health'];

export function HealthLine({ health }: { health: Health }) {
  const f = health.last_failure;
  return (
    <div className="health small" data-testid="health">
      <span>
        {health.deliveries_24h} {health.deliveries_24h === 1 ? 'delivery' : 'deliveries'} in 24 h
      </span>
      <span>success {percent(health.success_rate)}</span>
      {f ? (
        <span className="danger-text">
          last failure {when(f.at)}: {f.status_code !== null ? `HTTP ${f.status_code}` : f.error}
        </span>
      ) : (
        <span>no failures</span>
      )}
    </div>
  );
}

export function WebhooksPage({ meta, locations, navigate }: Shared) {
  const { data: endpoints, error, reload } = useLoad(() => api<EndpointWithHealth[]>('GET', '/webhook-endpoints'), []);
  const [creating, setCreating] = useState(false);
  return (
    <section>
      <div className="page-head">
        <div>
          <h1>Webhook endpoints</h1>
          <p className="muted">We POST signed events to these URLs when orders, fulfillments, inventory or your catalog change.</p>
        </div>
        {!creating && (
          <button className="primary" onClick={() => setCreating(true)}>
            Add endpoint
          </button>
        )}
      </div>
      {creating && <EndpointForm meta={meta} locations={locations} onCancel={() => setCreating(false)} onSaved={(e) => navigate(`/portal/webhooks/${e.id}`)} />}
      {error ? (
        <LoadError error={error} retry={reload} />
      ) : endpoints === null ? (
        <p className="muted">Loading…</p>
      ) : endpoints.length === 0 ? (
        <div className="empty card">
          <h2>No endpoints yet</h2>
          <p>Add the URL of your receiver. For a warehouse, use the Warehouse preset: order, fulfillment and inventory events.</p>
        </div>
      ) : (
        <div className="table-wrap card">
          <table>
            <thead>
              <tr>
                <th>URL</th>
                <th>Events</th>
                <th>Locations</th>
                <th>Status</th>
                <th>Health (24 h)</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((e) => (
                <tr key={e.id}>
                  <td data-label="URL" className="break">
                    <Link to={`/portal/webhooks/${e.id}`} navigate={navigate}>
                      {e.url}
                    </Link>
                    {e.description && <div className="muted small">{e.description}</div>}
                  </td>
                  <td data-label="Events">
                    {e.events.length} event{e.events.length === 1 ? '' : 's'}
                  </td>
                  <td data-label="Locations">{locationNames(e.location_ids, locations)}</td>
                  <td data-label="Status">
                    <StatusBadge status={e.status} />
                  </td>
                  <td data-label="Health (24 h)">
                    <HealthLine health={e.health} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Create (no `editing`) or edit an endpoint: the same fields, rules and errors. */
function EndpointForm({
  meta,
  locations,
  editing,
  onCancel,
  onSaved,
}: Pick<Shared, 'meta' | 'locations'> & { editing?: EndpointWithHealth; onCancel: () => void; onSaved: (e: { id: string }) => void }) {
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [events, setEvents] = useState<string[]>(editing?.events ?? []);
  const [locationIds, setLocationIds] = useState<string[] | null>(editing?.location_ids ?? null);
  const { errors, setErrors, setFormError, formError, busy, submitWith } = useFormSubmit();
  const submit = submitWith(
    () => ({
      url: !url.trim() && 'Enter the https URL of your receiver.',
      events: events.length === 0 && 'Choose at least one event.',
      location_ids: locationChoiceError(locationIds),
    }),
    async () => {
      const body = { url: url.trim(), events, description: description.trim() || null, location_ids: locationIds };
      onSaved(
        editing ? await api<EndpointWithHealth>('PATCH', `/webhook-endpoints/${editing.id}`, body) : await api<NewEndpoint>('POST', '/webhook-endpoints', body),
      );
    },
    'Could not save the endpoint. Try again.',
  );
  const action = editing ? 'Save changes' : 'Add endpoint';
  return (
    <form className="card form" onSubmit={submit} noValidate aria-label={editing ? 'Edit webhook endpoint' : 'Add webhook endpoint'}>
      <h2>{editing ? 'Edit endpoint' : 'New endpoint'}</h2>
      <label className="field">
        URL
        <input
          name="url"
          value={url}
          aria-invalid={!!errors.url}
          aria-describedby="url-error"
          onChange={(e) => {
            setUrl(e.target.value);
            setErrors({ ...errors, url: '' });
            setFormError('');
          }}
          placeholder="https://warehouse.example.com/webhooks"
        />
        <FieldMessage id="url-error" text={errors.url} />
      </label>
      <label className="field">
        Description (optional)
        <input
          name="description"
          value={description}
          aria-invalid={!!errors.description}
          aria-describedby="description-error"
          onChange={(e) => setDescription(e.target.value)}
        />
        <FieldMessage id="description-error" text={errors.description} />
      </label>
      <fieldset className="field" aria-describedby="events-error">
        <legend>
          Events{' '}
          <button
            type="button"
            className="small"
            onClick={() => {
              setEvents(meta.warehouse_events);
              setErrors({ ...errors, events: '' });
            }}
          >
            Warehouse preset
          </button>
        </legend>
        <div className="checks columns">
          {meta.event_types.map((t) => (
            <label key={t} className="inline">
              <input
                type="checkbox"
                name="event"
                value={t}
                checked={events.includes(t)}
                onChange={(e) => {
                  setEvents(e.target.checked ? [...events, t] : events.filter((x) => x !== t));
                  setErrors({ ...errors, events: '' });
                }}
              />{' '}
              {t}
            </label>
          ))}
        </div>
        <FieldMessage id="events-error" text={errors.events} />
      </fieldset>
      <LocationChooser
        name="endpoint"
        locations={locations}
        value={locationIds}
        onChange={(v) => {
          setLocationIds(v);
          setErrors({ ...errors, location_ids: '' });
        }}
        error={errors.location_ids}
      />
      {formError && (
        <p className="error" role="alert">
          {formError}
        </p>
      )}
      <div className="buttons">
        <button className="primary" type="submit" disabled={busy}>
          {action}
        </button>
        <button type="button" className="link" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function EndpointPage({ id, meta, locations, navigate }: Shared & { id: string }) {
  const { data: endpoint, error, reload } = useLoad(() => api<EndpointWithHealth>('GET', `/webhook-endpoints/${id}`), [id]);
  const { data: deliveries, error: logError, reload: reloadLog } = useLoad(() => api<PortalDelivery[]>('GET', `/webhook-endpoints/${id}/deliveries`), [id]);
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);
  const [editing, setEditing] = useState(false);
  const flash = useFlash();

  useEffect(() => {
    // The log and the health line follow deliveries as they happen.
    const timer = setInterval(() => void Promise.all([reload(), reloadLog()]), 3000);
    return () => clearInterval(timer);
  }, [reload, reloadLog]);

  if (error)
    return (
      <>
        <BackLink navigate={navigate} />
        <LoadError error={error} retry={reload} />
      </>
    );
  if (!endpoint) return <p className="muted">Loading…</p>;

  const act = async (fn: () => Promise<unknown>, message: string) => {
    setConfirm(null);
    if (await flash.run(fn, message)) await Promise.all([reload(), reloadLog()]);
  };
  const resend = async (deliveryId: string) => {
    flash.clear();
    try {
      const copy = await api<DeliveryDetail>('POST', `/webhook-endpoints/${id}/deliveries/${deliveryId}/resend`);
      flash.ok(`Delivery queued again as ${copy.id.slice(0, 8)}.`);
      await reloadLog();
    } catch (err) {
      flash.fail(err);
    }
  };
  const remove = async () => {
    setConfirm(null);
    if (await flash.run(() => api('DELETE', `/webhook-endpoints/${id}`))) navigate('/portal/webhooks');
  };
  return (
    <section>
      <BackLink navigate={navigate} />
      <div className="page-head">
        <div>
          <h1 className="url-title">{endpoint.url}</h1>
          <p className="muted">
            {endpoint.description ?? 'No description'} · {locationNames(endpoint.location_ids, locations)} · <StatusBadge status={endpoint.status} />
          </p>
          <HealthLine health={endpoint.health} />
        </div>
        <div className="buttons">
          <button
            onClick={() => {
              flash.clear();
              setEditing(true);
            }}
          >
            Edit
          </button>
          <button onClick={() => act(() => api('POST', `/webhook-endpoints/${id}/test`), 'Test event queued.')}>Send test event</button>
          <button
            onClick={() =>
              act(
                () => api('PATCH', `/webhook-endpoints/${id}`, { status: endpoint.status === 'enabled' ? 'disabled' : 'enabled' }),
                endpoint.status === 'enabled' ? 'Endpoint disabled.' : 'Endpoint enabled.',
              )
            }
          >
            {endpoint.status === 'enabled' ? 'Disable' : 'Enable'}
          </button>
          {confirm === 'delete' ? (
            <Confirm text="Delete this endpoint and its delivery log?" action="Delete endpoint" onConfirm={remove} onCancel={() => setConfirm(null)} />
          ) : (
            <button
              className="danger-text"
              onClick={() => {
                flash.clear();
                setConfirm('delete');
              }}
            >
              Delete…
            </button>
          )}
        </div>
      </div>
      {flash.view}
      {editing && (
        <EndpointForm
          meta={meta}
          locations={locations}
          editing={endpoint}
          onCancel={() => setEditing(false)}
          onSaved={async () => {
            setEditing(false);
            flash.ok('Endpoint saved.');
            await reload();
          }}
        />
      )}
      <div className="card">
        <h2>Signing secret</h2>
        <p className="muted">
          Verify every delivery: HMAC-SHA256 of <code>timestamp.body</code> with this secret must match <code>X-Service-Webhook-Signature</code>.
        </p>
        <div className="secret-row">
          <code className="secret" id="signing-secret" data-testid="signing-secret">
            {secret ?? 'whsec_••••••••••••••••••••••••'}
          </code>
          {secret ? (
            <>
              <CopyButton text={secret} targetId="signing-secret" />
              <button onClick={() => setSecret(null)}>Hide</button>
            </>
          ) : (
            <button
              onClick={() => flash.run(async () => setSecret((await api<{ signing_secret: string }>('GET', `/webhook-endpoints/${id}/secret`)).signing_secret))}
            >
              Reveal
            </button>
          )}
          {confirm === 'rotate' ? (
            <Confirm
              text="The old secret keeps signing for 24 hours."
              action="Rotate now"
              onConfirm={() =>
                act(async () => setSecret((await api<NewEndpoint>('POST', `/webhook-endpoints/${id}/rotate-secret`)).signing_secret), 'Secret rotated.')
              }
              onCancel={() => setConfirm(null)}
            />
          ) : (
            <button
              onClick={() => {
                flash.clear();
                setConfirm('rotate');
              }}
            >
              Rotate…
            </button>
          )}
        </div>
        <p className="small muted">Events: {endpoint.events.join(', ')}</p>
      </div>
      <div className="card">
        <h2>Delivery log</h2>
        {logError ? (
          <LoadError error={logError} retry={reloadLog} />
        ) : deliveries === null ? (
          <p className="muted">Loading…</p>
        ) : deliveries.length === 0 ? (
          <p className="muted empty-inline">No deliveries yet. Events appear here as they are sent; use “Send test event” to try your receiver.</p>
        ) : (
          <DataTable className="deliveries" head={['Delivery', 'Type', 'Status', 'Attempts', 'Last response', 'Next retry', 'Created', '']}>
            {deliveries.map((d) => (
              <tr key={d.id} data-delivery={d.id}>
                <td data-label="Delivery">
                  <Link to={`/portal/webhooks/${id}/deliveries/${d.id}`} navigate={navigate}>
                    <code>{d.id.slice(0, 8)}</code>
                  </Link>
                  {d.resent_from && (
                    <div className="small muted">
                      resend of <code>{d.resent_from.slice(0, 8)}</code>
                    </div>
                  )}
                </td>
                <td data-label="Type">{d.event_type}</td>
                <DeliveryOutcomeCells delivery={d} answerLabel="Last response" />
                <td data-label="Next retry">{when(d.next_attempt_at)}</td>
                <td data-label="Created">{when(d.created_at)}</td>
                <td className="actions">
                  <button className="small" onClick={() => resend(d.id)}>
                    Resend
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </div>
    </section>
  );
}

function BackLink({ navigate }: { navigate: (to: string) => void }) {
  return (
    <p>
      <Link to="/portal/webhooks" navigate={navigate}>
        ← Webhook endpoints
      </Link>
    </p>
  );
}
