import { useCallback, useEffect, useRef, useState } from 'react';
import { api, onSessionLost, setCsrf, type Location, type Meta, type SessionInfo } from './api.ts';
import { EventsPage } from './EventsPage.tsx';
import { KeysPage } from './KeysPage.tsx';
import { OverviewPage } from './OverviewPage.tsx';
import { RequestsPage } from './RequestsPage.tsx';
import { DeliveryPage } from './DeliveryPage.tsx';
import { WebhooksPage, EndpointPage } from './WebhooksPage.tsx';
import { FormError, TextField, useFormSubmit } from './forms.tsx';
import { LoadError } from './ui.tsx';
import { focusHeading, keepFocus } from './focus.ts';
import { draftsBelongTo, dropUntakenDraft, keepOpenForm } from './drafts.ts';
import type { Shared } from './shared.tsx';

/** The path shown, its navigation, and a resync with the address bar (after sign-in). */
function usePath(): [string, (to: string) => void, () => void] {
  const [path, setPath] = useState(location.pathname + location.search);
  const resync = useCallback(() => setPath(location.pathname + location.search), []);
  useEffect(() => {
    const onPop = () => setPath(location.pathname + location.search);
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string) => {
    history.pushState(null, '', to);
    setPath(to);
    scrollTo(0, 0);
  }, []);
  return [path, navigate, resync];
}

const SECTIONS = [
  ['overview', 'Overview'],
  ['keys', 'API keys'],
  ['webhooks', 'Webhooks'],
  ['requests', 'Request log'],
  ['events', 'Events'],
] as const;

/**
 * Each page's title (the browser tab, and what a screen reader says on arriving) and, after a
 * move from another page, focus on its heading: a link followed inside a page left focus on
 * <body>, and every page was titled "Merchant portal".
 */
function usePageArrival(title: string, signedInHere: boolean) {
  const [main, setMain] = useState<HTMLElement | null>(null);
  const arrivals = useRef(0);
  useEffect(() => {
    document.title = `${title} · Merchant portal`;
  }, [title]);
  // <main> is keyed by the address: a new element for each page. The first page after loading
  // keeps the browser's own start; any later one (or the first after signing in) gets its heading
  // focused, or the page itself while its heading is still loading.
  useEffect(() => {
    if (!main) return;
    let stopWaiting = () => {};
    // A page that has put focus on one of its controls itself (a form given back after signing in,
    // on its submit button) keeps it.
    const focusedItself = () => document.activeElement !== main && main.contains(document.activeElement);
    if (arrivals.current++ > 0 || signedInHere)
      requestAnimationFrame(() => {
        if (!focusedItself()) stopWaiting = focusHeading(main);
      });
    const stopKeeping = keepFocus(main);
    return () => {
      stopWaiting();
      stopKeeping();
    };
  }, [main]);
  return setMain;
}

export function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [shared, setShared] = useState<Omit<Shared, 'navigate'> | null>(null);
  const [bootError, setBootError] = useState<unknown>(null);
  const [sessionEnded, setSessionEnded] = useState(false);
  const [path, navigate, resync] = usePath();
  const pathname = path.split('?')[0];
  const [signedInHere, setSignedInHere] = useState(false);
  const mainRef = usePageArrival(titleOf(pathname, !!session && !!shared), signedInHere);

  // A page whose request finds the session gone shows the sign-in form; the address stays, so
  // signing in returns to that page, and the form that was open there comes back with its changes.
  useEffect(() => {
    onSessionLost(() => {
      keepOpenForm();
      setSession((s) => (s ? null : s));
      setSessionEnded(true);
    });
    return () => onSessionLost(null);
  }, []);

  const load = useCallback(async () => {
    try {
      setBootError(null);
      // The page shown follows the address bar, which sign-in and sign-out may have changed.
      resync();
      const s = await api<SessionInfo | null>('GET', '/session');
      if (!s) return setSession(null);
      draftsBelongTo(s.user.id);
      setCsrf(s.csrf_token);
      const [meta, locations] = await Promise.all([api<Meta>('GET', '/meta'), api<Location[]>('GET', '/locations')]);
      setShared({ meta, locations });
      setSession(s);
    } catch (err) {
      setBootError(err);
    }
  }, [resync]);
  useEffect(() => void load(), [load]);
  // The first page shown after signing in has taken its form's draft as it rendered; any other is
  // dropped, never to open a form later.
  useEffect(() => {
    if (session && shared) dropUntakenDraft();
  }, [session, shared]);

  if (bootError)
    return (
      <div className="boot">
        <LoadError error={bootError} retry={load} />
      </div>
    );
  if (session === undefined) return <div className="boot">Loading…</div>;
  if (session === null || !shared)
    return (
      <Login
        onSignedIn={() => {
          setSignedInHere(true);
          void load();
        }}
        ended={sessionEnded}
      />
    );

  const signOut = async () => {
    try {
      await api('POST', '/logout');
    } catch {}
    setSessionEnded(false);
    draftsBelongTo(null);
    setSession(null);
    history.replaceState(null, '', '/portal');
  };
  const ctx: Shared = { ...shared, navigate };
  const section = pathname.split('/')[2] || 'overview';
  const delivery = /^\/portal\/webhooks\/([0-9a-f-]{36})\/deliveries\/([0-9a-f-]{36})$/.exec(pathname);
  const endpoint = /^\/portal\/webhooks\/([0-9a-f-]{36})$/.exec(pathname);
  const request = /^\/portal\/requests\/([0-9a-f-]{36})$/.exec(pathname);

  // Each address names one page; any other (a mistyped one, an id that is not one) says so instead
  // of showing some other page under it.
  const plain = /^\/portal(\/(overview|keys|webhooks|requests|events))?\/?$/.test(pathname);
  let page;
  if (delivery) page = <DeliveryPage endpointId={delivery[1]} deliveryId={delivery[2]} {...ctx} />;
  else if (endpoint) page = <EndpointPage id={endpoint[1]} {...ctx} />;
  else if (request) page = <RequestsPage {...ctx} requestId={request[1]} search={path.split('?')[1] ?? ''} />;
  else if (!plain) page = <NotFound navigate={navigate} />;
  else if (section === 'webhooks') page = <WebhooksPage {...ctx} />;
  else if (section === 'keys') page = <KeysPage {...ctx} />;
  else if (section === 'requests') page = <RequestsPage {...ctx} requestId={null} search={path.split('?')[1] ?? ''} />;
  else if (section === 'events') page = <EventsPage {...ctx} />;
  else page = <OverviewPage {...ctx} />;

  return (
    <div className="shell">
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true" />
          <span>{session.merchant.name}</span>
        </div>
        <nav aria-label="Sections">
          {SECTIONS.map(([id, title]) => (
            <a
              key={id}
              href={`/portal/${id}`}
              className={section === id ? 'active' : ''}
              aria-current={section === id ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                navigate(`/portal/${id}`);
              }}
            >
              {title}
            </a>
          ))}
        </nav>
        <div className="user">
          <span className="email">{session.user.email}</span>
          <button className="link" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      {/* Keyed by path: a page's messages and forms do not outlive it. The request log and a request's
          detail are one page: opening a request keeps the list as loaded (older pages too). */}
      <main className="content" key={request || (section === 'requests' && plain) ? '/portal/requests' : pathname} ref={mainRef}>
        {page}
      </main>
    </div>
  );
}

/** A page's title from its address (the sign-in form's when signed out). */
function titleOf(pathname: string, signedIn: boolean): string {
  if (!signedIn) return 'Sign in';
  if (/^\/portal\/webhooks\/[0-9a-f-]{36}\/deliveries\/[0-9a-f-]{36}$/.test(pathname)) return 'Delivery';
  if (/^\/portal\/webhooks\/[0-9a-f-]{36}$/.test(pathname)) return 'Webhook endpoint';
  if (/^\/portal\/requests\/[0-9a-f-]{36}$/.test(pathname)) return 'Request';
  const m = /^\/portal(?:\/(overview|keys|webhooks|requests|events))?\/?$/.exec(pathname);
  if (!m) return 'Page not found';
  return SECTIONS.find(([id]) => id === (m[1] ?? 'overview'))![1];
}

function NotFound({ navigate }: { navigate: (to: string) => void }) {
  return (
    <section>
      <h1>Page not found</h1>
      <p className="muted">There is no page at this address.</p>
      <p>
        <a
          href="/portal/overview"
          onClick={(e) => {
            e.preventDefault();
            navigate('/portal/overview');
          }}
        >
          Go to the overview
        </a>
      </p>
    </section>
  );
}

function Login({ onSignedIn, ended }: { onSignedIn: () => void; ended: boolean }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { formError, busy, submitWith, field } = useFormSubmit();
  const submit = submitWith(
    () => ({ email: !email.trim() && 'Enter your email address.', password: !password && 'Enter your password.' }),
    async () => {
      await api('POST', '/login', { email, password });
      if (location.pathname === '/portal' || location.pathname === '/portal/') history.replaceState(null, '', '/portal/overview');
      onSignedIn();
    },
    'Could not sign in.',
  );
  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit} noValidate aria-label="Sign in">
        <h1 className="brand big">
          <span className="logo" aria-hidden="true" /> Merchant portal
        </h1>
        <p className="muted">Manage the API keys and webhook endpoints your warehouse and other integrations use, and see what they do.</p>
        {ended && (
          <p className="notice" role="status">
            Your session has ended. Sign in again to go on where you were.
          </p>
        )}
        <TextField label="Email" type="email" autoComplete="username" required {...field('email', email, setEmail)} />
        <TextField label="Password" type="password" autoComplete="current-password" required {...field('password', password, setPassword)} />
        <FormError text={formError} />
        <button className="primary" type="submit" aria-disabled={busy || undefined}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
