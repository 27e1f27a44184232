// Portal backend over HTTP: sign-in, CSRF, throttling, sign-out, merchant isolation, and keys and
// endpoints made through the portal working against the real APIs.
import net from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, portalJson, problem, startTestApp, type TestApp, type TestMerchant } from './helpers.ts';
import { WAREHOUSE } from './fixtures.ts';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await startTestApp();
  m = await t.merchant({ locations: 2 });
  json(await m.op('POST', '/users', { email: 'ops@acme.test', password: 'correct horse battery' }), 201, 'createPortalUser');
});
afterAll(() => t?.close());

async function signIn(email = 'ops@acme.test', password = 'correct horse battery', ip = '10.0.0.1', app = t) {
  const res = await app.app.inject({ method: 'POST', url: '/portal/api/login', payload: { email, password }, remoteAddress: ip });
  const cookie = String(res.headers['set-cookie'] ?? '').split(';')[0];
  return { res, cookie, csrf: res.statusCode === 200 ? portalJson(res, 200, 'POST /portal/api/login').data.csrf_token : '' };
}

const call = (s: { cookie: string; csrf?: string }, method: string, url: string, payload?: unknown, extra: Record<string, string> = {}) =>
  t.app.inject({
    method: method as never,
    url: `/portal/api${url}`,
    headers: { cookie: s.cookie, ...(s.csrf ? { 'x-csrf-token': s.csrf } : {}), ...extra },
    ...(payload !== undefined ? { payload: payload as never } : {}),
  });

describe('sign-in', () => {
  it('signs in with an HttpOnly, SameSite cookie and answers the session', async () => {
    const s = await signIn('OPS@acme.test');
    expect(s.res.statusCode).toBe(200);
    expect(String(s.res.headers['set-cookie'])).toMatch(/^mia_session=[\w-]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/);
    const session = portalJson(await call(s, 'GET', '/session'), 200, 'GET /portal/api/session').data;
    expect(session).toMatchObject({ user: { email: 'ops@acme.test' }, merchant: { id: m.id, name: 'Test merchant' } });
  });

  it('no answer of the portal API may be kept by a cache: they carry secrets (a signing secret was in the browser cache)', async () => {
    const s = await signIn();
    // A refused create (this merchant's key list must stay empty for the tests after this one).
    const refused = await call(s, 'POST', '/api-keys', { label: '', scopes: ['orders.read'] });
    expect(refused.statusCode).toBe(422);
    for (const res of [s.res, await call(s, 'GET', '/session'), refused, await call({ cookie: '' }, 'GET', '/api-keys')]) {
      expect([res.statusCode, res.headers['cache-control']]).toEqual([res.statusCode, 'no-store']);
    }
    expect((await m.op('GET', '/webhook-endpoints')).headers['cache-control']).toBe('no-store');
  });

  it('marks the cookie Secure behind https', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/portal/api/login',
      payload: { email: 'ops@acme.test', password: 'correct horse battery' },
      headers: { 'x-forwarded-proto': 'https' },
      remoteAddress: '10.0.0.9',
    });
    expect(String(res.headers['set-cookie'])).toContain('; Secure');
  });

  it('refuses a wrong password or unknown email with the same 401', async () => {
    const wrong = await signIn('ops@acme.test', 'nope', '10.0.0.2');
    const unknown = await signIn('nobody@acme.test', 'nope', '10.0.0.2');
    for (const r of [wrong.res, unknown.res]) {
      expect(r.statusCode).toBe(401);
      expect(problem(r, 401).detail).toBe('The email or password is not correct.');
      expect(r.headers['set-cookie']).toBeUndefined();
    }
  });

  it('throttles repeated failures per email and address', async () => {
    for (let i = 0; i < 5; i++) expect((await signIn('ops@acme.test', 'bad', '10.0.0.3')).res.statusCode).toBe(401);
    const blocked = await signIn('ops@acme.test', 'correct horse battery', '10.0.0.3');
    expect(blocked.res.statusCode).toBe(429);
    expect(Number(blocked.res.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signIn('ops@acme.test', 'correct horse battery', '10.0.0.4')).res.statusCode).toBe(200);
  });

  it('without a session everything but sign-in is 401', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/portal/api/api-keys' })).statusCode).toBe(401);
  });

  // A session is kept by its token's hash; this puts it 11 of its 12 idle hours in.
  const idleElevenHours = async (token: string) => {
    const id = createHash('sha256').update(token).digest('hex');
    await sql`update portal_sessions set last_seen_at = clock_timestamp() - interval '11 hours', expires_at = clock_timestamp() + interval '1 hour' where id = ${id}`.execute(
      t.database.db,
    );
    return id;
  };

  it('a request that slides the session re-sends the cookie with a Max-Age matching the new expiry', async () => {
    const s = await signIn();
    const token = s.cookie.slice('mia_session='.length);
    // Within a minute of the last write the server leaves the expiry alone, and the answer the cookie.
    expect((await call(s, 'GET', '/session')).headers['set-cookie']).toBeUndefined();
    const id = await idleElevenHours(token);
    const slid = await call(s, 'GET', '/api-keys');
    expect(slid.statusCode).toBe(200);
    expect(slid.headers['set-cookie']).toBe(`mia_session=${token}; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax`);
    // The cookie's Max-Age is the idle lifetime the server just gave the session.
    const { rows } = await sql<{ idle: string }>`select extract(epoch from expires_at - last_seen_at) as idle from portal_sessions where id = ${id}`.execute(
      t.database.db,
    );
    expect(Math.round(Number(rows[0].idle))).toBe(43200);
    expect((await call(s, 'GET', '/session')).headers['set-cookie']).toBeUndefined();
  });

  it('the slid cookie stays Secure behind https, and a sign-out that slides the session still clears it', async () => {
    const s = await signIn('ops@acme.test', 'correct horse battery', '10.0.0.10');
    const token = s.cookie.slice('mia_session='.length);
    await idleElevenHours(token);
    const probe = await call(s, 'GET', '/session', undefined, { 'x-forwarded-proto': 'https' });
    expect(probe.headers['set-cookie']).toBe(`mia_session=${token}; Max-Age=43200; Path=/; HttpOnly; Secure; SameSite=Lax`);
    await idleElevenHours(token);
    const out = await call(s, 'POST', '/logout');
    expect(out.statusCode).toBe(200);
    expect(out.headers['set-cookie']).toBe('mia_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax');
  });

  it('sign-out ends the session', async () => {
    const s = await signIn();
    expect(portalJson(await call(s, 'POST', '/logout'), 200, 'POST /portal/api/logout').data).toEqual({ signed_out: true });
    // The session probe answers null when signed out (no 401 in the browser console).
    expect(portalJson(await call(s, 'GET', '/session'), 200, 'GET /portal/api/session').data).toBeNull();
    expect((await call(s, 'GET', '/api-keys')).statusCode).toBe(401);
  });
});

describe('sign-in throttle', () => {
  const GOOD = 'correct horse battery';
  const statuses = async (attempts: [string, string, string][]) => {
    const out: number[] = [];
    for (const [email, password, ip] of attempts) out.push((await signIn(email, password, ip)).res.statusCode);
    return out;
  };

  it('case and space variants of one email share one count', async () => {
    json(await m.op('POST', '/users', { email: 'alpha@x.test', password: GOOD }), 201, 'createPortalUser');
    const variants = ['alpha@x.test', ' ALPHA@x.test ', 'Alpha@X.Test'];
    expect(await statuses([0, 1, 2, 0, 1].map((i) => [variants[i], 'wrong', '10.1.0.1']))).toEqual([401, 401, 401, 401, 401]);
    expect(await statuses(variants.map((v) => [v, GOOD, '10.1.0.1']))).toEqual([429, 429, 429]);
    const blocked = await signIn('\tALPHA@X.TEST\n', GOOD, '10.1.0.1');
    expect(problem(blocked.res, 429)).toMatchObject({ code: 'rate_limited', detail: 'Too many failed sign-ins. Try again later.' });
    expect(Number(blocked.res.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(Number(blocked.res.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    // The real user elsewhere is not affected by one address's failures.
    expect((await signIn(' Alpha@x.test', GOOD, '10.1.0.2')).res.statusCode).toBe(200);
  });

  it('parallel guesses cannot slip past the limit between check and count', async () => {
    json(await m.op('POST', '/users', { email: 'parallel@x.test', password: GOOD }), 201, 'createPortalUser');
    t.inFlight.reset();
    const res = await Promise.all(Array.from({ length: 20 }, () => signIn('parallel@x.test', 'wrong', '10.1.1.1')));
    expect(t.inFlight.peak, 'the guesses overlapped').toBeGreaterThanOrEqual(2);
    const codes = res.map((r) => r.res.statusCode).sort();
    expect(codes).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
  });

  it('many emails from one client address are throttled by the address', async () => {
    json(await m.op('POST', '/users', { email: 'beta@x.test', password: GOOD }), 201, 'createPortalUser');
    const spray = Array.from({ length: 20 }, (_, i) => [`guess${i}@x.test`, 'wrong', '10.1.2.1'] as [string, string, string]);
    expect(await statuses(spray)).toEqual(Array(20).fill(401));
    expect(
      await statuses([
        ['guess99@x.test', 'wrong', '10.1.2.1'],
        ['beta@x.test', GOOD, '10.1.2.1'],
      ]),
    ).toEqual([429, 429]);
    expect((await signIn('beta@x.test', GOOD, '10.1.2.2')).res.statusCode).toBe(200);
  });

  it('behind a trusted proxy (TRUST_PROXY) the count is per client address; a peer that is not one cannot name its own', async () => {
    // Without TRUST_PROXY, every client behind a load balancer shared its address: 20 failures locked everyone out.
    const behind = await startTestApp({ trustProxy: '10.9.0.0/16' });
    try {
      const mb = await behind.merchant({ locations: 1 });
      json(await mb.op('POST', '/users', { email: 'gamma@x.test', password: GOOD }), 201, 'createPortalUser');
      const login = (email: string, password: string, peer: string, client: string) =>
        behind.app
          .inject({ method: 'POST', url: '/portal/api/login', payload: { email, password }, remoteAddress: peer, headers: { 'x-forwarded-for': client } })
          .then((r) => r.statusCode);
      const viaProxy = [];
      for (let i = 0; i < 21; i++) viaProxy.push(await login(`guess${i}@x.test`, 'wrong', '10.9.0.1', '203.0.113.9'));
      expect(viaProxy).toEqual([...Array(20).fill(401), 429]);
      // Another client through the same proxy signs in.
      expect(await login('gamma@x.test', GOOD, '10.9.0.1', '203.0.113.10')).toBe(200);
      // A peer outside TRUST_PROXY is counted by its own address, whatever X-Forwarded-For it sends.
      const spoofed = [];
      for (let i = 0; i < 21; i++) spoofed.push(await login(`spoof${i}@x.test`, 'wrong', '198.51.100.7', `203.0.113.${100 + i}`));
      expect(spoofed).toEqual([...Array(20).fill(401), 429]);
    } finally {
      await behind.close();
    }
  });

  it("attempts from an address over its limit count for nothing else: they use up no email's budget", async () => {
    json(await m.op('POST', '/users', { email: 'omega@x.test', password: GOOD }), 201, 'createPortalUser');
    const spray = Array.from({ length: 20 }, (_, i) => [`spray${i}@x.test`, 'wrong', '10.1.9.1'] as [string, string, string]);
    expect(await statuses(spray)).toEqual(Array(20).fill(401));
    // 60 refused attempts on omega's email from the blocked address: before, each counted for the
    // email too (and made a pair and an email count in memory), so omega was locked out everywhere.
    expect(await statuses(Array.from({ length: 60 }, () => ['omega@x.test', 'wrong', '10.1.9.1'] as [string, string, string]))).toEqual(Array(60).fill(429));
    expect((await signIn('omega@x.test', GOOD, '10.1.9.2')).res.statusCode).toBe(200);
  });

  it('a successful sign-in does not use up the budget', async () => {
    json(await m.op('POST', '/users', { email: 'often@x.test', password: GOOD }), 201, 'createPortalUser');
    expect(await statuses(Array.from({ length: 8 }, () => ['often@x.test', GOOD, '10.1.3.1']))).toEqual(Array(8).fill(200));
    expect(await statuses(Array.from({ length: 6 }, () => ['often@x.test', 'wrong', '10.1.3.1']))).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('an attacker on many addresses blocks the email only where its user has not signed in before', async () => {
    json(await m.op('POST', '/users', { email: 'victim@x.test', password: GOOD }), 201, 'createPortalUser');
    expect((await signIn('victim@x.test', GOOD, '10.1.4.1')).res.statusCode).toBe(200);
    // 50 failures, 5 from each of 10 addresses: no pair and no address reaches its own limit.
    const attack = Array.from({ length: 50 }, (_, i) => ['victim@x.test', 'wrong', `10.1.5.${Math.floor(i / 5)}`] as [string, string, string]);
    expect(await statuses(attack)).toEqual(Array(50).fill(401));
    expect(
      await statuses([
        ['victim@x.test', GOOD, '10.1.6.1'],
        [' Victim@X.test', 'wrong', '10.1.6.2'],
      ]),
    ).toEqual([429, 429]);
    // The real user, from the address they signed in from before, still gets in.
    expect(
      await statuses([
        ['victim@x.test', GOOD, '10.1.4.1'],
        ['VICTIM@x.test', GOOD, '10.1.4.1'],
      ]),
    ).toEqual([200, 200]);
  });

  it('with Redis unreachable, each process still throttles in its own memory', async () => {
    json(await m.op('POST', '/users', { email: 'delta@x.test', password: GOOD }), 201, 'createPortalUser');
    // Port 1 on loopback refuses connections: every Redis call fails.
    const a = await startTestApp({ redisUrl: 'redis://127.0.0.1:1', redisKeyPrefix: 'h10f:unreachable:' }, t.database);
    try {
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) codes.push((await signIn(i % 2 ? ' DELTA@x.test' : 'delta@x.test', 'wrong', '10.1.8.1', a)).res.statusCode);
      expect(codes).toEqual([401, 401, 401, 401, 401, 429]);
      expect((await signIn('delta@x.test', GOOD, '10.1.8.2', a)).res.statusCode).toBe(200);
    } finally {
      await a.app.close();
    }
  });

  describe('shared through Redis', () => {
    const url = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';
    // A prefix of its own, so parallel runs never see each other's counts.
    const prefix = `h10f:${randomBytes(6).toString('hex')}:`;
    afterAll(async () => {
      const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
      } catch {
      } finally {
        redis.disconnect();
      }
    });

    it('two app instances with REDIS_URL share one count per email', async (ctx) => {
      const u = new URL(url);
      const reachable = await new Promise<boolean>((resolve) => {
        const s = net.connect(Number(u.port || 6379), u.hostname, () => {
          s.end();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      });
      if (!reachable) {
        console.warn(`Redis not reachable at ${url}: shared sign-in throttle test skipped`);
        ctx.skip();
      }
      json(await m.op('POST', '/users', { email: 'gamma@x.test', password: GOOD }), 201, 'createPortalUser');
      const a = await startTestApp({ redisUrl: url, redisKeyPrefix: prefix }, t.database);
      const b = await startTestApp({ redisUrl: url, redisKeyPrefix: prefix }, t.database);
      try {
        const on = [a, b, a, b, a];
        const codes: number[] = [];
        for (const [i, app] of on.entries()) codes.push((await signIn(i % 2 ? 'GAMMA@x.test' : 'gamma@x.test ', 'wrong', '10.1.7.1', app)).res.statusCode);
        expect(codes).toEqual([401, 401, 401, 401, 401]);
        expect((await signIn('gamma@x.test', GOOD, '10.1.7.1', b)).res.statusCode).toBe(429);
        expect((await signIn('gamma@x.test', GOOD, '10.1.7.1', a)).res.statusCode).toBe(429);
        expect((await signIn('gamma@x.test', GOOD, '10.1.7.2', b)).res.statusCode).toBe(200);
        const redis = new Redis(url);
        let keys: string[];
        try {
          keys = await redis.keys(`${prefix}counts:signin:*`);
        } finally {
          await redis.quit();
        }
        expect(keys.filter((k) => k.includes(':pair:'))).toHaveLength(1);
      } finally {
        await a.app.close();
        await b.app.close();
      }
    });
  });
});

describe('CSRF', () => {
  it('refuses a state change without the token, with a wrong one, or from another origin', async () => {
    const s = await signIn();
    const body = { label: 'x', scopes: ['orders.read'] };
    expect(problem(await call({ cookie: s.cookie }, 'POST', '/api-keys', body), 403).code).toBe('forbidden');
    expect(problem(await call({ cookie: s.cookie, csrf: 'wrong' }, 'POST', '/api-keys', body), 403).code).toBe('forbidden');
    expect(problem(await call(s, 'POST', '/api-keys', body, { origin: 'https://evil.example' }), 403).code).toBe('forbidden');
    expect(portalJson(await call(s, 'GET', '/api-keys'), 200, 'GET /portal/api/api-keys').data).toEqual([]);
  });
});

describe('keys and endpoints', () => {
  it('a Warehouse key restricted to one location, made in the portal, sees only that location', async () => {
    const s = await signIn();
    const meta = portalJson(await call(s, 'GET', '/meta'), 200, 'GET /portal/api/meta').data;
    expect(meta.warehouse_scopes).toEqual(WAREHOUSE);
    const key = portalJson(
      await call(s, 'POST', '/api-keys', { label: 'Warehouse', scopes: meta.warehouse_scopes, location_ids: [m.locations[0]] }),
      201,
      'POST /portal/api/api-keys',
    ).data;
    expect(key.secret).toMatch(/^mia_sk_/);
    const locations = json(await t.api(key.secret, 'GET', '/locations'), 200, 'listLocations').data;
    expect(locations.map((l: { id: string }) => l.id)).toEqual([m.locations[0]]);
    const list = portalJson(await call(s, 'GET', '/api-keys'), 200, 'GET /portal/api/api-keys').data;
    expect(list[0]).not.toHaveProperty('secret');
    // A revoke takes {} or no body (what the front end sends): a field is 422 naming it, a body
    // that is not JSON 415, and neither revokes.
    expect(problem(await call(s, 'POST', `/api-keys/${key.id}/revoke`, { zz: 1 }), 422).errors).toEqual([
      { path: '/zz', message: 'is not a known field', code: 'unknown_field' },
    ]);
    expect(problem(await call(s, 'POST', `/api-keys/${key.id}/revoke`, '{}', { 'content-type': 'text/plain' }), 415).code).toBe('unsupported_media_type');
    expect((await t.api(key.secret, 'GET', '/locations')).statusCode).toBe(200);
    expect(portalJson(await call(s, 'POST', `/api-keys/${key.id}/revoke`), 200, 'POST /portal/api/api-keys/:id/revoke').data.revoked_at).not.toBeNull();
    expect((await t.api(key.secret, 'GET', '/locations')).statusCode).toBe(401);
  });

  it('sign-out takes {} or no body: a field is 422 naming it and the session stays', async () => {
    const s = await signIn();
    expect(problem(await call(s, 'POST', '/logout', { zz: 1 }), 422).errors).toEqual([{ path: '/zz', message: 'is not a known field', code: 'unknown_field' }]);
    expect(portalJson(await call(s, 'GET', '/session'), 200, 'GET /portal/api/session').data).not.toBeNull();
    expect(portalJson(await call(s, 'POST', '/logout', {}), 200, 'POST /portal/api/logout').data).toEqual({ signed_out: true });
    expect(problem(await call(s, 'GET', '/api-keys'), 401).code).toBe('unauthorized');
  });

  it('form errors name their fields', async () => {
    const s = await signIn();
    const res = problem(await call(s, 'POST', '/api-keys', { label: '', scopes: ['orders.read', 'bogus'] }), 422);
    expect(res.errors?.map((e: { path: string }) => e.path).sort()).toEqual(['/label', '/scopes/1']);
    // An empty label is one error, not two (too short, and blank).
    expect(res.errors?.find((e: { path: string }) => e.path === '/label')).toEqual({ path: '/label', message: 'must not be blank', code: 'invalid_format' });
  });

  it("another merchant's key and endpoint ids are 404", async () => {
    const other = await t.merchant();
    const theirKey = json(await other.op('POST', '/api-keys', { label: 'theirs', scopes: ['orders.read'] }), 201, 'createApiKey').data;
    const theirEndpoint = json(
      await other.op('POST', '/webhook-endpoints', { url: 'https://hooks.example.com/x', events: ['order.created'] }),
      201,
      'createWebhookEndpoint',
    ).data;
    const s = await signIn();
    expect(problem(await call(s, 'POST', `/api-keys/${theirKey.id}/revoke`), 404).code).toBe('not_found');
    expect(problem(await call(s, 'GET', `/webhook-endpoints/${theirEndpoint.id}/secret`), 404).code).toBe('not_found');
    expect(problem(await call(s, 'PATCH', `/webhook-endpoints/${theirEndpoint.id}`, { status: 'disabled' }), 404).code).toBe('not_found');
    expect(json(await other.op('GET', `/api-keys/${theirKey.id}`), 200, 'getApiKey').data.revoked_at).toBeNull();
  });

  it('creates, reveals, rotates, disables and tests an endpoint', async () => {
    const s = await signIn();
    const ep = portalJson(
      await call(s, 'POST', '/webhook-endpoints', { url: 'https://hooks.example.com/wh', events: ['order.created'] }),
      201,
      'POST /portal/api/webhook-endpoints',
    ).data;
    const secret = portalJson(await call(s, 'GET', `/webhook-endpoints/${ep.id}/secret`), 200, 'GET /portal/api/webhook-endpoints/:id/secret').data
      .signing_secret;
    expect(secret).toBe(ep.signing_secret);
    const rotated = portalJson(
      await call(s, 'POST', `/webhook-endpoints/${ep.id}/rotate-secret`),
      200,
      'POST /portal/api/webhook-endpoints/:id/rotate-secret',
    ).data;
    expect(rotated.signing_secret).not.toBe(secret);
    expect(
      portalJson(await call(s, 'PATCH', `/webhook-endpoints/${ep.id}`, { status: 'disabled' }), 200, 'PATCH /portal/api/webhook-endpoints/:id').data.status,
    ).toBe('disabled');
    // A disabled endpoint gets nothing raised while it is disabled (contract §7): its test is refused.
    expect(problem(await call(s, 'POST', `/webhook-endpoints/${ep.id}/test`), 409).code).toBe('invalid_state');
    expect(
      portalJson(await call(s, 'PATCH', `/webhook-endpoints/${ep.id}`, { status: 'enabled' }), 200, 'PATCH /portal/api/webhook-endpoints/:id').data.status,
    ).toBe('enabled');
    const ping = portalJson(await call(s, 'POST', `/webhook-endpoints/${ep.id}/test`), 200, 'POST /portal/api/webhook-endpoints/:id/test').data;
    expect(ping).toMatchObject({ event_type: 'ping', status: 'pending' });
    const log = portalJson(await call(s, 'GET', `/webhook-endpoints/${ep.id}/deliveries`), 200, 'GET /portal/api/webhook-endpoints/:id/deliveries').data;
    expect(log.map((d: { id: string }) => d.id)).toEqual([ping.id]);
  });
});

describe('limits on what the portal sends', () => {
  async function merchantWithUser(email: string) {
    const merchant = await t.merchant();
    json(await merchant.op('POST', '/users', { email, password: 'correct horse battery' }), 201, 'createPortalUser');
    return { merchant, s: await signIn(email, 'correct horse battery', '10.0.3.1') };
  }
  const endpointBody = { url: 'https://hooks.example.com/many', events: ['order.created'] };

  it('a merchant has at most 20 endpoints when it makes one in the portal, even when creates race; the operator API is not limited', async () => {
    const { merchant, s } = await merchantWithUser('many@acme.test');
    for (let i = 0; i < 18; i++) json(await merchant.op('POST', '/webhook-endpoints', endpointBody), 201, 'createWebhookEndpoint');
    const racing = await Promise.all(Array.from({ length: 5 }, () => call(s, 'POST', '/webhook-endpoints', endpointBody)));
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 201, 422, 422, 422]);
    for (const r of racing.filter((r) => r.statusCode === 422)) {
      expect(problem(r, 422).detail).toBe(
        'A merchant has at most 20 webhook endpoints: delete one it no longer uses, or subscribe an existing one to more events.',
      );
      expect(problem(r, 422).errors).toEqual([{ path: '', code: 'too_many', message: expect.stringMatching(/^a merchant has at most 20 webhook endpoints/) }]);
    }
    const listed = portalJson(await call(s, 'GET', '/webhook-endpoints'), 200, 'GET /portal/api/webhook-endpoints').data;
    expect(listed).toHaveLength(20);
    // The operator (the platform's own tool) may still add one; deleting one in the portal makes room again.
    json(await merchant.op('POST', '/webhook-endpoints', endpointBody), 201, 'createWebhookEndpoint');
    expect(problem(await call(s, 'POST', '/webhook-endpoints', endpointBody), 422).errors?.[0].code).toBe('too_many');
    for (const e of listed.slice(0, 2)) portalJson(await call(s, 'DELETE', `/webhook-endpoints/${e.id}`), 200, 'DELETE /portal/api/webhook-endpoints/:id');
    portalJson(await call(s, 'POST', '/webhook-endpoints', endpointBody), 201, 'POST /portal/api/webhook-endpoints');
  });

  it('the delivery log is read a page at a time, newest first, to its oldest delivery (it stopped at the newest 50)', async () => {
    const { s } = await merchantWithUser('paged-log@acme.test');
    const ep = portalJson(await call(s, 'POST', '/webhook-endpoints', endpointBody), 201, 'POST /portal/api/webhook-endpoints').data;
    for (let i = 0; i < 5; i++) portalJson(await call(s, 'POST', `/webhook-endpoints/${ep.id}/test`), 200, 'POST /portal/api/webhook-endpoints/:id/test');
    const read = async (query: string) =>
      portalJson(await call(s, 'GET', `/webhook-endpoints/${ep.id}/deliveries${query}`), 200, 'GET /portal/api/webhook-endpoints/:id/deliveries');
    const all = await read('');
    expect([all.data.length, all.next_before]).toEqual([5, null]);
    const seen: string[] = [];
    const sizes: number[] = [];
    let page = await read('?limit=2');
    for (;;) {
      seen.push(...page.data.map((d: { id: string }) => d.id));
      sizes.push(page.data.length);
      if (!page.next_before) break;
      page = await read(`?limit=2&before=${encodeURIComponent(page.next_before)}`);
    }
    expect([sizes, seen]).toEqual([[2, 2, 1], all.data.map((d: { id: string }) => d.id)]);
    const bad = await call(s, 'GET', `/webhook-endpoints/${ep.id}/deliveries?before=2026-13-45T00:00:00.000Z_${ep.id}`);
    expect(problem(bad, 422).errors).toEqual([{ path: '/before', message: 'must be a next_before value from a previous page', code: 'invalid_format' }]);
  });

  it('test events and resends: 10 per endpoint and 30 per merchant a minute, then 429 with Retry-After; refused and unknown ones count nothing', async () => {
    const { s } = await merchantWithUser('pings@acme.test');
    const endpoints = [];
    for (let i = 0; i < 4; i++)
      endpoints.push(portalJson(await call(s, 'POST', '/webhook-endpoints', endpointBody), 201, 'POST /portal/api/webhook-endpoints').data);
    const [one, two, three, four] = endpoints;
    const test = (id: string) => call(s, 'POST', `/webhook-endpoints/${id}/test`);
    const ping = portalJson(await test(one.id), 200, 'POST /portal/api/webhook-endpoints/:id/test').data;
    for (let i = 0; i < 4; i++) portalJson(await test(one.id), 200, 'POST /portal/api/webhook-endpoints/:id/test');
    for (let i = 0; i < 5; i++) {
      const resend = await call(s, 'POST', `/webhook-endpoints/${one.id}/deliveries/${ping.id}/resend`);
      portalJson(resend, 200, 'POST /portal/api/webhook-endpoints/:id/deliveries/:d/resend');
    }
    for (const url of [`/webhook-endpoints/${one.id}/test`, `/webhook-endpoints/${one.id}/deliveries/${ping.id}/resend`]) {
      const refused = await call(s, 'POST', url);
      expect(problem(refused, 429)).toMatchObject({
        code: 'rate_limited',
        detail: 'At most 10 test events and resends per endpoint per minute. Try again later.',
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    const log = portalJson(await call(s, 'GET', `/webhook-endpoints/${one.id}/deliveries`), 200, 'GET /portal/api/webhook-endpoints/:id/deliveries').data;
    expect(log).toHaveLength(10);
    // Another merchant's endpoint, or none, is 404 and uses up nothing.
    const stranger = await t.merchant();
    const theirs = json(await stranger.op('POST', '/webhook-endpoints', endpointBody), 201, 'createWebhookEndpoint').data;
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000']) expect(problem(await test(id), 404).code).toBe('not_found');
    // Across endpoints the merchant sends 30 a minute: 10 made on one (the refused two counted nothing), 10 on two, 10 on three.
    for (const e of [two, three]) for (let i = 0; i < 10; i++) portalJson(await test(e.id), 200, 'POST /portal/api/webhook-endpoints/:id/test');
    expect(problem(await test(four.id), 429).detail).toBe("At most 30 test events and resends per minute across the merchant's endpoints. Try again later.");
  });
});

describe('pages', () => {
  it('/ redirects to /portal, which serves the sign-in app', async () => {
    const root = await t.app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/portal');
    const page = await t.app.inject({ method: 'GET', url: '/portal' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // Served over http (no https PUBLIC_BASE_URL): no Strict-Transport-Security.
    expect(page.headers['strict-transport-security']).toBeUndefined();
    expect(page.body).toContain('<div id="root"></div>');
    expect((await t.app.inject({ method: 'GET', url: '/portal/webhooks/123' })).body).toBe(page.body);
  });

  it('an unknown path under /portal/api is a 404 problem for every method, signed in or not', async () => {
    const s = await signIn();
    for (const cookie of [s.cookie, '']) {
      for (const url of ['/portal/api/nope', '/portal/api/nope/deeper?x=1', '/portal/api', '/portal/api/']) {
        for (const method of ['GET', 'HEAD', 'POST', 'DELETE'] as const) {
          const res = await t.app.inject({ method, url, headers: cookie ? { cookie } : {} });
          const what = `${method} ${url}${cookie ? ' (signed in)' : ''}`;
          expect(res.statusCode, what).toBe(404);
          expect(res.headers['content-type'], what).toBe('application/problem+json; charset=utf-8');
          if (method === 'HEAD') {
            expect(res.body, what).toBe('');
            continue;
          }
          expect(JSON.parse(res.body), what).toEqual({
            type: '/errors#not_found',
            title: 'Not found',
            status: 404,
            detail: `No route ${method} ${url.split('?')[0]}.`,
            code: 'not_found',
            request_id: res.headers['x-request-id'],
          });
        }
      }
    }
    // Other /portal paths stay the front end's, one that begins with "api" included.
    const page = await t.app.inject({ method: 'GET', url: '/portal/api-keys' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<div id="root"></div>');
  });
});

describe('the built front end', () => {
  it('a file that is not there is 404, never index.html cached as an immutable asset (the portal stayed blank); routes get index.html', async () => {
    const index = await t.app.inject({ method: 'GET', url: '/portal/keys' });
    expect([index.statusCode, index.headers['content-type'], index.headers['cache-control']]).toEqual([200, 'text/html; charset=utf-8', 'no-cache']);
    const asset = /src="\/portal\/(assets\/[^"]+\.js)"/.exec(index.body)![1];
    const real = await t.app.inject({ method: 'GET', url: `/portal/${asset}` });
    expect([real.statusCode, real.headers['content-type'], real.headers['cache-control']]).toEqual([
      200,
      'text/javascript',
      'public, max-age=31536000, immutable',
    ]);
    // index.html by another name is still not an asset.
    expect((await t.app.inject({ method: 'GET', url: '/portal/assets/..%2Findex.html' })).headers['cache-control']).toBe('no-cache');
    for (const missing of ['/portal/assets/missing.js', '/portal/favicon.ico', '/portal/assets/', '/portal/assets/..%2F..%2Fpackage.json']) {
      const res = await t.app.inject({ method: 'GET', url: missing });
      expect([missing, res.statusCode, res.headers['content-type'], res.headers['cache-control']]).toEqual([
        missing,
        404,
        'application/problem+json; charset=utf-8',
        'no-cache',
      ]);
    }
  });
});
