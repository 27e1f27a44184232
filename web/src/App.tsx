import { useCallback, useEffect, useState } from 'react';
import { api, ApiError, setCsrf, type Location, type Meta, type SessionInfo } from './api.ts';
import { KeysPage } from './KeysPage.tsx';
import { WebhooksPage, EndpointPage } from './WebhooksPage.tsx';

export interface Shared {
  meta: Meta;
  locations: Location[];
  navigate: (to: string) => void;
}

function usePath(): [string, (to: string) => void] {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string) => {
    history.pushState(null, '', to);
    setPath(to);
    scrollTo(0, 0);
  }, []);
  return [path, navigate];
}

export function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [shared, setShared] = useState<Omit<Shared, 'navigate'> | null>(null);
  const [path, navigate] = usePath();

  const load = useCallback(async () => {
    try {
      const s = await api<SessionInfo>('GET', '/session');
      setCsrf(s.csrf_token);
      const [meta, locations] = await Promise.all([api<Meta>('GET', '/meta'), api<Location[]>('GET', '/locations')]);
      setShared({ meta, locations });
      setSession(s);
    } catch {
      setSession(null);
    }
  }, []);
  useEffect(() => void load(), [load]);

  if (session === undefined) return <div className="boot">Loading…</div>;
  if (session === null || !shared) return <Login onSignedIn={load} />;

  const signOut = async () => {
    await api('POST', '/logout');
    setSession(null);
    navigate('/portal');
  };
  const ctx: Shared = { ...shared, navigate };
  const endpointMatch = /^\/portal\/webhooks\/([0-9a-f-]{36})$/.exec(path);
  const section = path.startsWith('/portal/webhooks') ? 'webhooks' : 'keys';

  return (
    <div className="shell">
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true" />
          <span>{session.merchant.name}</span>
        </div>
        <nav>
          <a href="/portal/keys" className={section === 'keys' ? 'active' : ''} onClick={(e) => { e.preventDefault(); navigate('/portal/keys'); }}>API keys</a>
          <a href="/portal/webhooks" className={section === 'webhooks' ? 'active' : ''} onClick={(e) => { e.preventDefault(); navigate('/portal/webhooks'); }}>Webhooks</a>
        </nav>
        <div className="user">
          <span className="email">{session.user.email}</span>
          <button className="link" onClick={signOut}>Sign out</button>
        </div>
      </header>
      <main className="content">
        {endpointMatch ? <EndpointPage id={endpointMatch[1]} {...ctx} /> : section === 'webhooks' ? <WebhooksPage {...ctx} /> : <KeysPage {...ctx} />}
      </main>
    </div>
  );
}

function Login({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('POST', '/login', { email, password });
      if (location.pathname === '/portal' || location.pathname === '/portal/') history.replaceState(null, '', '/portal/keys');
      onSignedIn();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not sign in.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="login">
      <form className="card login-card" onSubmit={submit} noValidate>
        <div className="brand big"><span className="logo" aria-hidden="true" /> Merchant portal</div>
        <p className="muted">Manage the API keys and webhook endpoints your warehouse and other integrations use.</p>
        <label>Email<input type="email" name="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required /></label>
        <label>Password<input type="password" name="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required /></label>
        {error && <p className="error" role="alert">{error}</p>}
        <button className="primary" type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </div>
  );
}

export function LocationChooser(props: { locations: Location[]; value: string[] | null; onChange: (v: string[] | null) => void; error?: string; name: string }) {
  const specific = props.value !== null;
  return (
    <fieldset className="field">
      <legend>Locations</legend>
      <label className="inline"><input type="radio" name={`${props.name}-scope`} checked={!specific} onChange={() => props.onChange(null)} /> All locations</label>
      <label className="inline"><input type="radio" name={`${props.name}-scope`} checked={specific} onChange={() => props.onChange([])} /> Specific locations</label>
      {specific && (
        <div className="checks">
          {props.locations.map((l) => (
            <label key={l.id} className="inline">
              <input type="checkbox" checked={props.value!.includes(l.id)} onChange={(e) => props.onChange(e.target.checked ? [...props.value!, l.id] : props.value!.filter((x) => x !== l.id))} /> {l.name}
            </label>
          ))}
        </div>
      )}
      {props.error && <p className="field-error">{props.error}</p>}
    </fieldset>
  );
}

export const locationNames = (ids: string[] | null, locations: Location[]) =>
  ids === null ? 'All locations' : ids.map((id) => locations.find((l) => l.id === id)?.name ?? id.slice(0, 8)).join(', ');
