import { useEffect, useState } from 'react';
import { api, percent, when, type DeliveryDetail, type EndpointWithHealth, type NewEndpoint, type PortalDelivery } from './api.ts';
import { Link, LocationChooser, locationChoiceError, locationNames, type Shared } from './shared.tsx';
import { escapeCancels, FormEnd, GroupCheckbox, PresetCheckboxes, TextField, toggled, useFormSubmit } from './forms.tsx';
import { announceNext, focusSoon } from './focus.ts';
import { useKeptIfSessionEnds, useRestoredDraft } from './drafts.ts';
import { DataTable, deliveryOutcomeColumns, EmptyCard, OlderButton, usePagedList, type Column } from './lists.tsx';
import { Card, Confirm, CopyButton, LoadedList, LoadError, PageHead, StatusBadge, useFlash, useLoad } from './ui.tsx';

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

/**
 * Why an endpoint is disabled, in words: a receiver's 410 Gone disables it by itself (contract §7),
 * and nothing else on the page would say why deliveries stopped.
 */
export function DisabledNote({ endpoint }: { endpoint: EndpointWithHealth }) {
  const d = endpoint.disabled;
  if (endpoint.status !== 'disabled') return null;
  if (d?.reason === 'gone') {
    return (
      <p className="danger-text small" data-testid="disabled-reason">
        Disabled automatically {when(d.at)}: a delivery was answered 410 Gone. Events raised while it is disabled are not sent to it; enable it once the
        receiver is back.
      </p>
    );
  }
  return (
    <p className="muted small" data-testid="disabled-reason">
      {d ? `Disabled by hand ${when(d.at)}.` : 'Disabled.'} Events raised while it is disabled are not sent to it.
    </p>
  );
}

export function WebhooksPage({ meta, locations, navigate }: Shared) {
  const endpoints = useLoad(() => api<EndpointWithHealth[]>('GET', '/webhook-endpoints'), []);
  // The form open when the session ended comes back open, with what was typed in it.
  const [draft, forgetDraft] = useRestoredDraft<EndpointDraft>('endpoint-create');
  const [creating, setCreating] = useState(draft !== null);
  // Says what the page before left to say ("Endpoint deleted"): this page had no message region,
  // and the message came up later on another page.
  const flash = useFlash();
  const columns: Column<EndpointWithHealth>[] = [
    {
      label: 'URL',
      className: 'break',
      cell: (e) => (
        <>
          <Link to={`/portal/webhooks/${e.id}`} navigate={navigate}>
            {e.url}
          </Link>
          {e.description && <div className="muted small">{e.description}</div>}
        </>
      ),
    },
    { label: 'Events', cell: (e) => `${e.events.length} event${e.events.length === 1 ? '' : 's'}` },
    { label: 'Locations', cell: (e) => locationNames(e.location_ids, locations) },
    {
      label: 'Status',
      cell: (e) => (
        <>
          <StatusBadge status={e.status} />
          {e.disabled?.reason === 'gone' && <div className="small danger-text">answered 410 Gone</div>}
        </>
      ),
    },
    { label: 'Health (24 h)', cell: (e) => <HealthLine health={e.health} /> },
  ];
  return (
    <section>
      <PageHead title="Webhook endpoints" intro="We POST signed events to these URLs when orders, fulfillments, inventory or your catalog change.">
        {!creating && (
          <button id="add-endpoint" className="primary" onClick={() => setCreating(true)}>
            Add endpoint
          </button>
        )}
      </PageHead>
      {flash.view}
      {creating && (
        <EndpointForm
          meta={meta}
          locations={locations}
          draft={draft}
          onCancel={() => {
            setCreating(false);
            forgetDraft();
            focusSoon('add-endpoint');
          }}
          onSaved={(e) => {
            announceNext('Endpoint added. Its signing secret is below; send a test event to try your receiver.');
            navigate(`/portal/webhooks/${e.id}`);
          }}
        />
      )}
      <LoadedList
        state={endpoints}
        empty={
          <EmptyCard title="No endpoints yet">
            Add the URL of your receiver. For a warehouse, use the Warehouse preset: order, fulfillment and inventory events.
          </EmptyCard>
        }
      >
        {(rows) => <DataTable card rows={rows} columns={columns} />}
      </LoadedList>
    </section>
  );
}

/** What the endpoint form keeps when the session ends under it (drafts.ts). */
interface EndpointDraft {
  url: string;
  description: string;
  events: string[];
  locationIds: string[] | null;
}

/**
 * Create (no `editing`) or edit an endpoint: the same fields, rules and errors. A `draft` (the form's
 * changes when the session ended) takes the place of the endpoint's values.
 */
function EndpointForm({
  meta,
  locations,
  editing,
  draft,
  onCancel,
  onSaved,
}: Pick<Shared, 'meta' | 'locations'> & {
  editing?: EndpointWithHealth;
  draft: EndpointDraft | null;
  onCancel: () => void;
  onSaved: (e: { id: string }) => void;
}) {
  const [url, setUrl] = useState(draft?.url ?? editing?.url ?? '');
  const [description, setDescription] = useState(draft?.description ?? editing?.description ?? '');
  const [events, setEvents] = useState<string[]>(draft?.events ?? editing?.events ?? []);
  const [locationIds, setLocationIds] = useState<string[] | null>(draft ? draft.locationIds : (editing?.location_ids ?? null));
  const { errors, formError, busy, submitWith, edits, field } = useFormSubmit({ restored: draft !== null });
  const editEvents = edits('events', setEvents);
  const dirty =
    url !== (editing?.url ?? '') ||
    description !== (editing?.description ?? '') ||
    events.join() !== (editing?.events ?? []).join() ||
    JSON.stringify(locationIds) !== JSON.stringify(editing?.location_ids ?? null);
  useKeptIfSessionEnds(editing ? 'endpoint-edit' : 'endpoint-create', (): EndpointDraft | undefined =>
    dirty ? { url, description, events, locationIds } : undefined,
  );
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
  return (
    <form
      className="card form"
      onSubmit={submit}
      onKeyDown={escapeCancels(onCancel, dirty)}
      noValidate
      aria-label={editing ? 'Edit webhook endpoint' : 'Add webhook endpoint'}
    >
      <h2>{editing ? 'Edit endpoint' : 'New endpoint'}</h2>
      <TextField
        className="field"
        label="URL"
        placeholder="https://warehouse.example.com/webhooks"
        autoFocus={draft === null}
        {...field('url', url, setUrl, { formMessage: true })}
      />
      <TextField className="field" label="Description (optional)" {...field('description', description, setDescription)} />
      <PresetCheckboxes legend="Events" name="events" onPreset={() => editEvents(meta.warehouse_events)} error={errors.events}>
        <div className="checks columns">
          {meta.event_types.map((t) => (
            <label key={t} className="inline">
              <GroupCheckbox name="event" value={t} checked={events.includes(t)} onChange={(e) => editEvents(toggled(events, t, e.target.checked))} /> {t}
            </label>
          ))}
        </div>
      </PresetCheckboxes>
      <LocationChooser name="endpoint" locations={locations} value={locationIds} onChange={edits('location_ids', setLocationIds)} error={errors.location_ids} />
      <FormEnd formError={formError} busy={busy} action={editing ? 'Save changes' : 'Add endpoint'} onCancel={onCancel} restored={draft !== null} />
    </form>
  );
}

export function EndpointPage({ id, meta, locations, navigate }: Shared & { id: string }) {
  const { data: endpoint, error, reload } = useLoad(() => api<EndpointWithHealth>('GET', `/webhook-endpoints/${id}`), [id]);
  const flash = useFlash();
  // Newest first, a page at a time (it stopped at 50: older failed deliveries could not be resent).
  const log = usePagedList<PortalDelivery>(`/webhook-endpoints/${id}/deliveries`, {}, (err) => flash.fail(err));
  const [secret, setSecret] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | null>(null);
  // The edit form open when the session ended comes back open, with its changes (this page's own
  // refresh is what usually finds the session gone, before any submit).
  const [draft, forgetDraft] = useRestoredDraft<EndpointDraft>('endpoint-edit');
  const [editing, setEditing] = useState(draft !== null);

  useEffect(() => {
    // The log and the health line follow deliveries as they happen; the log only while its older
    // pages are not open (a reload would drop them).
    const timer = setInterval(() => void Promise.all([reload(), log.olderLoaded ? null : log.reload()]), 3000);
    return () => clearInterval(timer);
  }, [reload, log.reload, log.olderLoaded]);

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
    if (await flash.run(fn, message)) await Promise.all([reload(), log.reload()]);
  };
  const resend = async (deliveryId: string) => {
    flash.clear();
    try {
      const copy = await api<DeliveryDetail>('POST', `/webhook-endpoints/${id}/deliveries/${deliveryId}/resend`);
      flash.ok(`Delivery queued again as ${copy.id.slice(0, 8)}.`);
      await log.reload();
    } catch (err) {
      flash.fail(err);
    }
  };
  const remove = async () => {
    setConfirm(null);
    if (await flash.run(() => api('DELETE', `/webhook-endpoints/${id}`))) {
      announceNext('Endpoint deleted, with its delivery log.');
      navigate('/portal/webhooks');
    }
  };
  const deliveryColumns: Column<PortalDelivery>[] = [
    {
      label: 'Delivery',
      cell: (d) => (
        <>
          <Link to={`/portal/webhooks/${id}/deliveries/${d.id}`} navigate={navigate}>
            <code>{d.id.slice(0, 8)}</code>
          </Link>
          {d.resent_from && (
            <div className="small muted">
              resend of <code>{d.resent_from.slice(0, 8)}</code>
            </div>
          )}
        </>
      ),
    },
    { label: 'Type', cell: (d) => d.event_type },
    ...deliveryOutcomeColumns<PortalDelivery>('Last response'),
    { label: 'Next retry', cell: (d) => when(d.next_attempt_at) },
    { label: 'Created', cell: (d) => when(d.created_at) },
    {
      label: '',
      className: 'actions',
      cell: (d) => (
        <button className="small" aria-label={`Resend delivery ${d.id.slice(0, 8)}`} onClick={() => resend(d.id)}>
          Resend
        </button>
      ),
    },
  ];
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
          <DisabledNote endpoint={endpoint} />
        </div>
        <div className="buttons">
          <button
            id="edit-endpoint"
            onClick={() => {
              flash.clear();
              setEditing(true);
            }}
          >
            Edit
          </button>
          {/* A disabled endpoint gets nothing raised while it is disabled: the server refuses the test and says so. */}
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
            <Confirm
              text="Delete this endpoint and its delivery log?"
              action="Delete endpoint"
              onConfirm={remove}
              onCancel={() => setConfirm(null)}
              opener="delete-endpoint"
            />
          ) : (
            <button
              id="delete-endpoint"
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
          draft={draft}
          onCancel={() => {
            setEditing(false);
            forgetDraft();
            focusSoon('edit-endpoint');
          }}
          onSaved={async () => {
            // The focused submit button goes with the form: focus moves to this message.
            setEditing(false);
            forgetDraft();
            flash.ok('Endpoint saved.', { focus: true });
            await reload();
          }}
        />
      )}
      <Card title="Signing secret">
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
              <button
                id="hide-secret"
                onClick={() => {
                  setSecret(null);
                  focusSoon('reveal-secret');
                }}
              >
                Hide
              </button>
            </>
          ) : (
            <button
              id="reveal-secret"
              onClick={async () => {
                if (await flash.run(async () => setSecret((await api<{ signing_secret: string }>('GET', `/webhook-endpoints/${id}/secret`)).signing_secret)))
                  focusSoon('hide-secret');
              }}
            >
              Reveal
            </button>
          )}
          {confirm === 'rotate' ? (
            <Confirm
              text="The current secret keeps signing beside the new one for 24 hours; an older one stops now."
              action="Rotate now"
              onConfirm={() =>
                act(async () => setSecret((await api<NewEndpoint>('POST', `/webhook-endpoints/${id}/rotate-secret`)).signing_secret), 'Secret rotated.')
              }
              onCancel={() => setConfirm(null)}
              opener="rotate-secret"
            />
          ) : (
            <button
              id="rotate-secret"
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
      </Card>
      <Card title="Delivery log">
        <LoadedList
          state={log}
          empty={<p className="muted empty-inline">No deliveries yet. Events appear here as they are sent; use “Send test event” to try your receiver.</p>}
        >
          {(deliveries) => (
            <DataTable className="deliveries" rows={deliveries} columns={deliveryColumns} row={(d) => ({ 'data-delivery': d.id })}>
              <OlderButton list={log}>Older deliveries</OlderButton>
            </DataTable>
          )}
        </LoadedList>
      </Card>
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
