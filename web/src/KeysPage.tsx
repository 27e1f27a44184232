import { useEffect, useState } from 'react';
import { api, ApiError, when, type ApiKey } from './api.ts';
import { LocationChooser, locationNames, type Shared } from './App.tsx';

export function KeysPage({ meta, locations }: Shared) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const reload = () => api<ApiKey[]>('GET', '/api-keys').then(setKeys);
  useEffect(() => void reload(), []);

  const revoke = async (id: string) => {
    await api('POST', `/api-keys/${id}/revoke`);
    setConfirming(null);
    reload();
  };

  return (
    <section>
      <div className="page-head">
        <div>
          <h1>API keys</h1>
          <p className="muted">Keys let your warehouse, 3PL or other systems call the integration API. Each key has scopes and may be limited to some locations.</p>
        </div>
        {!creating && !created && <button className="primary" onClick={() => setCreating(true)}>Create key</button>}
      </div>

      {created && (
        <div className="card secret-card" role="status">
          <h2>Key “{created.label}” created</h2>
          <p className="warning">Copy this secret now. It is shown only once; we keep only a hash of it.</p>
          <div className="secret-row">
            <code className="secret" data-testid="new-secret">{created.secret}</code>
            <button onClick={() => navigator.clipboard?.writeText(created.secret!)}>Copy</button>
          </div>
          <button className="link" onClick={() => setCreated(null)}>I have stored it — close</button>
        </div>
      )}
      {creating && <KeyForm meta={meta} locations={locations} onCancel={() => setCreating(false)} onCreated={(k) => { setCreating(false); setCreated(k); reload(); }} />}

      {keys === null ? (
        <p className="muted">Loading…</p>
      ) : keys.length === 0 ? (
        <div className="empty card">
          <h2>No API keys yet</h2>
          <p>Create a key for each system that integrates with your store. For a warehouse, use the Warehouse preset and limit it to the locations it ships from.</p>
        </div>
      ) : (
        <div className="table-wrap card">
          <table>
            <thead><tr><th>Label</th><th>Key</th><th>Scopes</th><th>Locations</th><th>Created</th><th>Last used</th><th>Status</th><th /></tr></thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} className={k.revoked_at ? 'revoked' : ''}>
                  <td data-label="Label"><strong>{k.label}</strong></td>
                  <td data-label="Key"><code>{k.prefix}…</code></td>
                  <td data-label="Scopes" className="scopes">{k.scopes.map((s) => <span key={s} className="chip">{s}</span>)}</td>
                  <td data-label="Locations">{locationNames(k.location_ids, locations)}</td>
                  <td data-label="Created">{when(k.created_at)}</td>
                  <td data-label="Last used">{when(k.last_used_at)}</td>
                  <td data-label="Status">{k.revoked_at ? <span className="badge red">Revoked {when(k.revoked_at)}</span> : <span className="badge green">Active</span>}</td>
                  <td className="actions">
                    {!k.revoked_at && (confirming === k.id ? (
                      <span className="confirm">Revoke? It stops working at once.{' '}
                        <button className="danger" onClick={() => revoke(k.id)}>Revoke key</button>
                        <button className="link" onClick={() => setConfirming(null)}>Cancel</button>
                      </span>
                    ) : (
                      <button className="link danger-text" onClick={() => setConfirming(k.id)}>Revoke</button>
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

function KeyForm({ meta, locations, onCancel, onCreated }: Pick<Shared, 'meta' | 'locations'> & { onCancel: () => void; onCreated: (k: ApiKey) => void }) {
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [locationIds, setLocationIds] = useState<string[] | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState('');

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const local: Record<string, string> = {};
    if (!label.trim()) local.label = 'Give the key a label, e.g. the system that uses it.';
    if (scopes.length === 0) local.scopes = 'Choose at least one scope.';
    if (locationIds !== null && locationIds.length === 0) local.location_ids = 'Choose at least one location, or All locations.';
    setErrors(local);
    if (Object.keys(local).length) return;
    try {
      onCreated(await api<ApiKey>('POST', '/api-keys', { label: label.trim(), scopes, ...(locationIds ? { location_ids: locationIds } : {}) }));
    } catch (err) {
      if (err instanceof ApiError) {
        setErrors(err.fields);
        setFormError(Object.keys(err.fields).length ? '' : err.message);
      }
    }
  };
  const groups = [...new Set(meta.scopes.map((s) => s.split('.')[0]))];
  return (
    <form className="card form" onSubmit={submit} noValidate aria-label="Create API key">
      <h2>New API key</h2>
      <label className="field">Label<input name="label" value={label} onChange={(e) => { setLabel(e.target.value); setErrors({ ...errors, label: '' }); }} placeholder="e.g. Acme 3PL – Main warehouse" />
        {errors.label && <span className="field-error">{errors.label}</span>}
      </label>
      <fieldset className="field">
        <legend>Scopes <button type="button" className="small" onClick={() => { setScopes(meta.warehouse_scopes); setErrors({ ...errors, scopes: '' }); }}>Warehouse preset</button></legend>
        <div className="scope-grid">
          {groups.map((g) => (
            <div key={g} className="scope-group">
              <div className="group-name">{g.replace('_', ' ')}</div>
              {meta.scopes.filter((s) => s.split('.')[0] === g).map((s) => (
                <label key={s} className="inline">
                  <input type="checkbox" name="scope" value={s} checked={scopes.includes(s)} onChange={(e) => { setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s)); setErrors({ ...errors, scopes: '' }); }} /> {s}
                </label>
              ))}
            </div>
          ))}
        </div>
        {errors.scopes && <span className="field-error">{errors.scopes}</span>}
      </fieldset>
      <LocationChooser name="key" locations={locations} value={locationIds} onChange={setLocationIds} error={errors.location_ids} />
      {formError && <p className="error">{formError}</p>}
      <div className="buttons"><button className="primary" type="submit">Create key</button><button type="button" className="link" onClick={onCancel}>Cancel</button></div>
    </form>
  );
}
