import { useState } from 'react';
import { api, when, type ApiKey, type NewApiKey } from './api.ts';
import { LocationChooser, locationChoiceError, locationNames, type Shared } from './shared.tsx';
import { Confirm, CopyButton, FieldMessage, LoadError, useFlash, useFormSubmit, useLoad } from './ui.tsx';

export function KeysPage({ meta, locations }: Shared) {
  const { data: keys, error, reload } = useLoad(() => api<ApiKey[]>('GET', '/api-keys'), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const flash = useFlash();

  const revoke = async (k: ApiKey) => {
    setConfirming(null);
    if (await flash.run(() => api('POST', `/api-keys/${k.id}/revoke`), `Key “${k.label}” revoked.`)) await reload();
  };

  return (
    <section>
      <div className="page-head">
        <div>
          <h1>API keys</h1>
          <p className="muted">
            Keys let your warehouse, 3PL or other systems call the integration API. Each key has scopes and may be limited to some locations.
          </p>
        </div>
        {!creating && !created && (
          <button
            className="primary"
            onClick={() => {
              flash.clear();
              setCreating(true);
            }}
          >
            Create key
          </button>
        )}
      </div>
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
          <button className="link" onClick={() => setCreated(null)}>
            I have stored it — close
          </button>
        </div>
      )}
      {creating && (
        <KeyForm
          meta={meta}
          locations={locations}
          onCancel={() => setCreating(false)}
          onCreated={(k) => {
            setCreating(false);
            setCreated(k);
            void reload();
          }}
        />
      )}

      {error ? (
        <LoadError error={error} retry={reload} />
      ) : keys === null ? (
        <p className="muted">Loading…</p>
      ) : keys.length === 0 ? (
        <div className="empty card">
          <h2>No API keys yet</h2>
          <p>
            Create a key for each system that integrates with your store. For a warehouse, use the Warehouse preset and limit it to the locations it ships from.
          </p>
        </div>
      ) : (
        <div className="table-wrap card">
          <table>
            <thead>
              <tr>
                <th>Label</th>
                <th>Key</th>
                <th>Scopes</th>
                <th>Locations</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} className={k.revoked_at ? 'revoked' : ''}>
                  <td data-label="Label">
                    <strong>{k.label}</strong>
                  </td>
                  <td data-label="Key">
                    <code>{k.prefix}…</code>
                  </td>
                  <td data-label="Scopes" className="scopes">
                    {k.scopes.map((s) => (
                      <span key={s} className="chip" title={meta.scope_descriptions[s]}>
                        {s}
                      </span>
                    ))}
                  </td>
                  <td data-label="Locations">{locationNames(k.location_ids, locations)}</td>
                  <td data-label="Created">{when(k.created_at)}</td>
                  <td data-label="Last used">{k.last_used_at ? when(k.last_used_at) : 'Never'}</td>
                  <td data-label="Status">
                    {k.revoked_at ? <span className="badge red">Revoked {when(k.revoked_at)}</span> : <span className="badge green">Active</span>}
                  </td>
                  <td className="actions">
                    {!k.revoked_at &&
                      (confirming === k.id ? (
                        <Confirm
                          text="Revoke? It stops working at once."
                          action="Revoke key"
                          onConfirm={() => revoke(k)}
                          onCancel={() => setConfirming(null)}
                        />
                      ) : (
                        <button
                          className="link danger-text"
                          onClick={() => {
                            flash.clear();
                            setConfirming(k.id);
                          }}
                        >
                          Revoke
                        </button>
                      ))}
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

/** What the key form says before sending (the server checks the same and more). */
const keyFormErrors = (label: string, scopes: string[], locationIds: string[] | null) => ({
  label: !label.trim() && 'Give the key a label, e.g. the system that uses it.',
  scopes: scopes.length === 0 && 'Choose at least one scope.',
  location_ids: locationChoiceError(locationIds),
});

function KeyForm({ meta, locations, onCancel, onCreated }: Pick<Shared, 'meta' | 'locations'> & { onCancel: () => void; onCreated: (k: NewApiKey) => void }) {
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [locationIds, setLocationIds] = useState<string[] | null>(null);
  const { errors, setErrors, setFormError, formError, busy, submitWith } = useFormSubmit();

  const submit = submitWith(
    () => keyFormErrors(label, scopes, locationIds),
    async () => onCreated(await api<NewApiKey>('POST', '/api-keys', { label: label.trim(), scopes, ...(locationIds ? { location_ids: locationIds } : {}) })),
    'Could not create the key. Try again.',
  );
  const groups = [...new Set(meta.scopes.map((s) => s.split('.')[0]))];
  // Scopes an alias already grants are shown as included.
  const implied = new Set(scopes.flatMap((s) => meta.scope_aliases[s] ?? []));
  return (
    <form className="card form" onSubmit={submit} noValidate aria-label="Create API key">
      <h2>New API key</h2>
      <label className="field">
        Label
        <input
          name="label"
          value={label}
          aria-invalid={!!errors.label}
          aria-describedby="label-error"
          onChange={(e) => {
            setLabel(e.target.value);
            setErrors({ ...errors, label: '' });
            setFormError('');
          }}
          placeholder="e.g. Acme 3PL – Main warehouse"
        />
        <FieldMessage id="label-error" text={errors.label} />
      </label>
      <fieldset className="field" aria-describedby="scopes-error scopes-help">
        <legend>
          Scopes{' '}
          <button
            type="button"
            className="small"
            onClick={() => {
              setScopes(meta.warehouse_scopes);
              setErrors({ ...errors, scopes: '' });
            }}
          >
            Warehouse preset
          </button>
        </legend>
        <p id="scopes-help" className="muted small">
          Give each system only what it needs.{' '}
          {Object.entries(meta.scope_aliases).map(([alias, grants]) => (
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
        </p>
        <div className="scope-grid">
          {groups.map((g) => (
            <div key={g} className="scope-group">
              <div className="group-name">{g.replace('_', ' ')}</div>
              {meta.scopes
                .filter((s) => s.split('.')[0] === g)
                .map((s) => (
                  <label key={s} className="scope">
                    <input
                      type="checkbox"
                      name="scope"
                      value={s}
                      checked={scopes.includes(s) || implied.has(s)}
                      disabled={implied.has(s) && !scopes.includes(s)}
                      onChange={(e) => {
                        setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s));
                        setErrors({ ...errors, scopes: '' });
                      }}
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
        <FieldMessage id="scopes-error" text={errors.scopes} />
      </fieldset>
      <LocationChooser
        name="key"
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
          Create key
        </button>
        <button type="button" className="link" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
