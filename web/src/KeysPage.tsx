import { useState } from 'react';
import { api, when, type ApiKey, type NewApiKey } from './api.ts';
import { LocationChooser, locationChoiceError, locationNames, type Shared } from './shared.tsx';
import { escapeCancels, FormEnd, GroupCheckbox, PresetCheckboxes, TextField, toggled, useFormSubmit } from './forms.tsx';
import { focusSoon } from './focus.ts';
import { useKeptIfSessionEnds, useRestoredDraft } from './drafts.ts';
import { DataTable, EmptyCard, type Column } from './lists.tsx';
import { Confirm, CopyButton, LoadedList, PageHead, useFlash, useLoad } from './ui.tsx';

export function KeysPage({ meta, locations }: Shared) {
  const keys = useLoad(() => api<ApiKey[]>('GET', '/api-keys'), []);
  // The form open when the session ended comes back open, with what was typed in it.
  const [draft, forgetDraft] = useRestoredDraft<KeyDraft>('api-key');
  const [creating, setCreating] = useState(draft !== null);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const flash = useFlash();

  // Revoked, the key's Revoke button goes: focus moves to the message (read once, not announced);
  // refused, the button stays with focus and the failure is announced.
  const revoke = async (k: ApiKey) => {
    setConfirming(null);
    if (await flash.run(() => api('POST', `/api-keys/${k.id}/revoke`), `Key “${k.label}” revoked.`, { focus: true })) await keys.reload();
  };

  const columns: Column<ApiKey>[] = [
    { label: 'Label', cell: (k) => <strong>{k.label}</strong> },
    { label: 'Key', cell: (k) => <code>{k.prefix}…</code> },
    {
      label: 'Scopes',
      className: 'scopes',
      cell: (k) =>
        k.scopes.map((s) => (
          <span key={s} className="chip" title={meta.scope_descriptions[s]}>
            {s}
          </span>
        )),
    },
    { label: 'Locations', cell: (k) => locationNames(k.location_ids, locations) },
    { label: 'Created', cell: (k) => when(k.created_at) },
    { label: 'Last used', cell: (k) => (k.last_used_at ? when(k.last_used_at) : 'Never') },
    {
      label: 'Status',
      cell: (k) => (k.revoked_at ? <span className="badge red">Revoked {when(k.revoked_at)}</span> : <span className="badge green">Active</span>),
    },
    {
      label: '',
      className: 'actions',
      cell: (k) =>
        !k.revoked_at &&
        (confirming === k.id ? (
          <Confirm
            text="Revoke? It stops working at once."
            action="Revoke key"
            onConfirm={() => revoke(k)}
            onCancel={() => setConfirming(null)}
            opener={`revoke-${k.id}`}
          />
        ) : (
          <button
            id={`revoke-${k.id}`}
            aria-label={`Revoke key ${k.label}`}
            className="link danger-text"
            onClick={() => {
              flash.clear();
              setConfirming(k.id);
            }}
          >
            Revoke
          </button>
        )),
    },
  ];

  return (
    <section>
      <PageHead
        title="API keys"
        intro="Keys let your warehouse, 3PL or other systems call the integration API. Each key has scopes and may be limited to some locations."
      >
        {!creating && !created && (
          <button
            id="create-key"
            className="primary"
            onClick={() => {
              flash.clear();
              setCreating(true);
            }}
          >
            Create key
          </button>
        )}
      </PageHead>
      {flash.view}

      {created && (
        <div className="card secret-card">
          <h2>Key “{created.label}” created</h2>
          <p className="warning">Copy this secret now. It is shown only once; we keep only a hash of it.</p>
          <div className="secret-row">
            <code className="secret" id="new-secret" data-testid="new-secret">
              {created.secret}
            </code>
            <CopyButton text={created.secret} targetId="new-secret" />
          </div>
          <button
            className="link"
            onClick={() => {
              setCreated(null);
              focusSoon('create-key');
            }}
          >
            I have stored it — close
          </button>
        </div>
      )}
      {creating && (
        <KeyForm
          meta={meta}
          locations={locations}
          draft={draft}
          onCancel={() => {
            setCreating(false);
            forgetDraft();
            focusSoon('create-key');
          }}
          onCreated={(k) => {
            setCreating(false);
            forgetDraft();
            setCreated(k);
            // The focused submit button goes with the form: focus moves to this message.
            flash.ok(`Key “${k.label}” created. Copy its secret now: it is shown only once.`, { focus: true });
            void keys.reload();
          }}
        />
      )}

      <LoadedList
        state={keys}
        empty={
          <EmptyCard title="No API keys yet">
            Create a key for each system that integrates with your store. For a warehouse, use the Warehouse preset and limit it to the locations it ships from.
          </EmptyCard>
        }
      >
        {(rows) => <DataTable card rows={rows} columns={columns} row={(k) => ({ className: k.revoked_at ? 'revoked' : '' })} />}
      </LoadedList>
    </section>
  );
}

/** What the scope aliases include, so a person grants only what a system needs. */
function ScopeHelp({ aliases }: { aliases: Shared['meta']['scope_aliases'] }) {
  return (
    <>
      Give each system only what it needs.{' '}
      {Object.entries(aliases).map(([alias, grants]) => (
        <span key={alias}>
          <code>{alias}</code> includes{' '}
          {grants.map((g, i) => (
            <span key={g}>
              {i ? ' and ' : ''}
              <code>{g}</code>
            </span>
          ))}
          .{' '}
        </span>
      ))}
    </>
  );
}

/** What the key form says before sending (the server checks the same and more). */
const keyFormErrors = (label: string, scopes: string[], locationIds: string[] | null) => ({
  label: !label.trim() && 'Give the key a label, e.g. the system that uses it.',
  scopes: scopes.length === 0 && 'Choose at least one scope.',
  location_ids: locationChoiceError(locationIds),
});

/** What the key form keeps when the session ends under it (drafts.ts). */
interface KeyDraft {
  label: string;
  scopes: string[];
  locationIds: string[] | null;
}

function KeyForm({
  meta,
  locations,
  draft,
  onCancel,
  onCreated,
}: Pick<Shared, 'meta' | 'locations'> & { draft: KeyDraft | null; onCancel: () => void; onCreated: (k: NewApiKey) => void }) {
  const [label, setLabel] = useState(draft?.label ?? '');
  const [scopes, setScopes] = useState<string[]>(draft?.scopes ?? []);
  const [locationIds, setLocationIds] = useState<string[] | null>(draft?.locationIds ?? null);
  const { errors, formError, busy, submitWith, edits, field } = useFormSubmit({ restored: draft !== null });
  const editScopes = edits('scopes', setScopes);
  const dirty = label !== '' || scopes.length > 0 || locationIds !== null;
  useKeptIfSessionEnds('api-key', (): KeyDraft | undefined => (dirty ? { label, scopes, locationIds } : undefined));

  const submit = submitWith(
    () => keyFormErrors(label, scopes, locationIds),
    async () => onCreated(await api<NewApiKey>('POST', '/api-keys', { label: label.trim(), scopes, ...(locationIds ? { location_ids: locationIds } : {}) })),
    'Could not create the key. Try again.',
  );
  const groups = [...new Set(meta.scopes.map((s) => s.split('.')[0]))];
  // Scopes an alias already grants are shown as included.
  const implied = new Set(scopes.flatMap((s) => meta.scope_aliases[s] ?? []));
  return (
    <form className="card form" onSubmit={submit} onKeyDown={escapeCancels(onCancel, dirty)} noValidate aria-label="Create API key">
      <h2>New API key</h2>
      <TextField
        className="field"
        label="Label"
        placeholder="e.g. Acme 3PL – Main warehouse"
        autoFocus={draft === null}
        {...field('label', label, setLabel, { formMessage: true })}
      />
      <PresetCheckboxes
        legend="Scopes"
        name="scopes"
        onPreset={() => editScopes(meta.warehouse_scopes)}
        error={errors.scopes}
        help={<ScopeHelp aliases={meta.scope_aliases} />}
      >
        <div className="scope-grid">
          {groups.map((g) => (
            <div key={g} className="scope-group">
              <div className="group-name">{g.replace('_', ' ')}</div>
              {meta.scopes
                .filter((s) => s.split('.')[0] === g)
                .map((s) => (
                  <label key={s} className="scope">
                    <GroupCheckbox
                      name="scope"
                      value={s}
                      checked={scopes.includes(s) || implied.has(s)}
                      disabled={implied.has(s) && !scopes.includes(s)}
                      onChange={(e) => editScopes(toggled(scopes, s, e.target.checked))}
                    />
                    <span>
                      <code>{s}</code>
                      {implied.has(s) && !scopes.includes(s) && <em className="small"> (included)</em>}
                      <span className="scope-help">{meta.scope_descriptions[s]}</span>
                    </span>
                  </label>
                ))}
            </div>
          ))}
        </div>
      </PresetCheckboxes>
      <LocationChooser name="key" locations={locations} value={locationIds} onChange={edits('location_ids', setLocationIds)} error={errors.location_ids} />
      <FormEnd formError={formError} busy={busy} action="Create key" onCancel={onCancel} restored={draft !== null} />
    </form>
  );
}
