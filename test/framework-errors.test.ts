// Errors raised by the router and by Node's HTTP parser, over real sockets: each is an RFC 9457
// problem whose X-Request-Id equals its request_id, never the framework's or Node's own body.
import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseViolations } from './contract.ts';
import { json, OPERATOR_TOKEN, startTestApp, type ResponseBody, type TestApp } from './helpers.ts';
import { makeProduct } from './fixtures.ts';

let t: TestApp;
let port: number;
let key: string;

beforeAll(async () => {
  // A short request timeout, so the stalled-body test waits a second, not thirty; published over
  // https, so every answer carries Strict-Transport-Security too.
  t = await startTestApp({ requestTimeoutMs: 1000, publicBaseUrl: 'https://api.example.com' });
  const m = await t.merchant({ locations: 1 });
  key = await m.key(['orders.read', 'inventory.adjust']);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t?.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Write bytes to a fresh connection and read one response (the server closes or answers). */
function exchange(request: string | Buffer, deadlineMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => (socket.destroy(), reject(new Error('no answer before the deadline'))), deadlineMs);
    const finish = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP response: ${JSON.stringify(text)}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let body = text.slice(split + 4);
      if (headers['content-length']) body = Buffer.from(body).subarray(0, Number(headers['content-length'])).toString('utf8');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    };
    socket.on('data', (c) => {
      chunks.push(c);
      // One response is enough: stop when its body is complete.
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const length = /content-length: *(\d+)/i.exec(text.slice(0, split))?.[1];
      if (split >= 0 && length !== undefined && Buffer.byteLength(text.slice(split + 4)) >= Number(length)) {
        socket.destroy();
        finish();
      }
    });
    socket.on('end', finish);
    socket.on('error', () => {}); // the server may reset after answering
    socket.on('close', () => chunks.length && finish());
    socket.write(request);
  });
}

function expectProblem(res: RawResponse, status: number, code: string) {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ status, code, type: `/errors#${code}` });
  expect(body.request_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(res.headers['x-request-id']).toBe(body.request_id);
  return body;
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n${extra}\r\n`;

describe('router errors', () => {
  it('bad percent-encoding in a path is 400 malformed_request', async () => {
    const body = expectProblem(await exchange(get('/api/integrations/v1/orders/%E0%A4%A')), 400, 'malformed_request');
    expect(body.detail).toBe('The path is not valid percent-encoded UTF-8.');
  });

  it('bad percent-encoding in a query string is 400 malformed_request too (it was searched for as literal text)', async () => {
    for (const query of ['status=%ED%A0%80', 'status=%FF', 'status=%C0%AF', 'status=100%', 'limit=1&status=%zz']) {
      const body = expectProblem(await exchange(get(`/api/integrations/v1/orders?${query}`)), 400, 'malformed_request');
      expect([query, body.detail]).toEqual([query, 'The query string is not valid percent-encoded UTF-8.']);
    }
    expect((await exchange(get('/api/integrations/v1/orders?status=%6Fpen'))).status).toBe(200);
  });

  it('an HTTP/1.1 request without Host is a 400 problem with X-Request-Id, not a bare 400', async () => {
    const body = expectProblem(
      await exchange(`GET /api/integrations/v1/orders HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`),
      400,
      'malformed_request',
    );
    expect(body.detail).toBe('An HTTP/1.1 request needs a Host header.');
  });

  it('two Authorization headers are 401, whichever holds the valid key (Node kept the first)', async () => {
    for (const [first, second] of [
      [`Bearer ${key}`, 'Bearer nope'],
      ['Bearer nope', `Bearer ${key}`],
    ]) {
      const res = await exchange(
        `GET /api/integrations/v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: ${first}\r\nauthorization: ${second}\r\nConnection: close\r\n\r\n`,
      );
      expect(expectProblem(res, 401, 'unauthorized').detail).toBe('Send one Authorization header.');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('two Authorization headers are 401 on the operator API too, and nothing is created (the first header acted)', async () => {
    const before = await t.database.db
      .selectFrom('merchants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    for (const [first, second] of [
      [`Bearer ${OPERATOR_TOKEN}`, 'Bearer nope'],
      ['Bearer nope', `Bearer ${OPERATOR_TOKEN}`],
    ]) {
      const body = '{"name":"Two tokens"}';
      const res = await exchange(
        `POST /api/platform/v1/merchants HTTP/1.1\r\nHost: x\r\nAuthorization: ${first}\r\nauthorization: ${second}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(expectProblem(res, 401, 'unauthorized').detail).toBe(
        'A valid operator token is required, in one header: "Authorization: Bearer <PLATFORM_ADMIN_TOKEN>".',
      );
    }
    expect(
      await t.database.db
        .selectFrom('merchants')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual(before);
  });

  it('an unknown route is 404 whatever body it carries', async () => {
    for (const [method, body] of [
      ['PUT', 'xx'],
      ['POST', '{"a":'],
      ['PATCH', ''],
    ]) {
      const res = await exchange(
        `${method} /api/integrations/v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect([method, expectProblem(res, 404, 'not_found').detail]).toEqual([method, `No route ${method} /api/integrations/v1/orders.`]);
    }
  });

  it('a path id over 100 characters is 404 not_found, like any other non-UUID id', async () => {
    for (const length of [101, 500, 5000]) {
      expectProblem(await exchange(get(`/api/integrations/v1/orders/${'a'.repeat(length)}`)), 404, 'not_found');
    }
  });
});

describe('HTTP parser errors', () => {
  it('headers over 16 KB are 431 headers_too_large', async () => {
    const res = await exchange(get('/api/integrations/v1/orders', `X-Big: ${'b'.repeat(20_000)}\r\n`));
    expectProblem(res, 431, 'headers_too_large');
    // Documented on every operation, as any request can get it.
    expect(await responseViolations({ method: 'GET', route: '/api/integrations/v1/orders', ...res })).toEqual([]);
  });

  it('a URL over 16 KB is 414 uri_too_long, not 431 (the headers were blamed)', async () => {
    const res = await exchange(get(`/api/integrations/v1/orders?ids=${'a'.repeat(20_000)}`));
    expect(expectProblem(res, 414, 'uri_too_long').detail).toBe('The URL is longer than 16 KB.');
    expect(await responseViolations({ method: 'GET', route: '/api/integrations/v1/orders', ...res })).toEqual([]);
    // Behind a pipelined request on the same connection too.
    const two = await exchange(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${get(`/${'a'.repeat(20_000)}`)}`);
    expect(two.status).toBe(200);
  });

  it('CONNECT is answered 400 malformed_request (Node dropped the connection without an answer)', async () => {
    const res = await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(expectProblem(res, 400, 'malformed_request').detail).toBe('CONNECT is not supported: this is an API, not a proxy.');
    expect(res.headers.connection).toBe('close');
  });

  it('a request line saying HTTP/2.0 is 400 malformed_request (it was served as HTTP/1.x)', async () => {
    const res = await exchange('GET /api/integrations/v1/orders HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n');
    expect(expectProblem(res, 400, 'malformed_request').detail).toBe('The request is not valid HTTP/1.1 (HTTP/2.0 in the request line).');
    // HTTP/1.0 stays served.
    expect((await exchange('GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('invalid header characters are 400 malformed_request', async () => {
    expectProblem(await exchange(get('/api/integrations/v1/orders', 'X-Bad\u0001Name: 1\r\n')), 400, 'malformed_request');
    expectProblem(
      await exchange(Buffer.concat([Buffer.from(get('/api/integrations/v1/orders', 'X-Bad: a')), Buffer.from([0]), Buffer.from('b\r\n\r\n')])),
      400,
      'malformed_request',
    );
  });

  it('a malformed request line is 400 malformed_request', async () => {
    expectProblem(await exchange('NOT HTTP\r\n\r\n'), 400, 'malformed_request');
  });

  it('a body that stops arriving is 408 request_timeout after REQUEST_TIMEOUT_MS, and the connection is closed', async () => {
    const started = Date.now();
    const res = await exchange(
      `POST /api/integrations/v1/inventory/adjustments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"adjustments":',
      5_000,
    );
    expectProblem(res, 408, 'request_timeout');
    expect(await responseViolations({ method: 'POST', route: '/api/integrations/v1/inventory/adjustments', ...res })).toEqual([]);
    expect(res.headers.connection).toBe('close');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('a body over 1 MiB is answered 413 once the client has sent it all (a client that writes its whole body before reading got a reset, not the 413)', async () => {
    // Larger than the socket buffers of both ends: closing at once reset the connection mid-body.
    const size = 24 * 1024 * 1024;
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    let failure: NodeJS.ErrnoException | null = null;
    socket.on('error', (err) => (failure ??= err));
    const closed = once(socket, 'close');
    socket.write(
      `POST /api/integrations/v1/inventory/adjustments HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    );
    // As Python's http.client does: the whole body, then the answer.
    const piece = Buffer.alloc(256 * 1024, 0x20);
    for (let sent = 0; sent < size && failure === null && !socket.destroyed; sent += piece.length) {
      if (!socket.write(piece)) await Promise.race([once(socket, 'drain'), closed]);
    }
    await closed;
    expect(failure).toBe(null);
    const text = Buffer.concat(received).toString('utf8');
    expect(text.slice(0, text.indexOf('\r\n'))).toBe('HTTP/1.1 413 Payload Too Large');
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).code).toBe('payload_too_large');
  });

  it('the server keeps answering normal requests after all that', async () => {
    const res = await exchange(get('/api/integrations/v1/orders'));
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as ResponseBody<'listOrders', 200>).request_id).toBe(res.headers['x-request-id']);
  });
});

describe('security headers', () => {
  const expected = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'strict-transport-security': 'max-age=31536000' };
  it('every answer carries them, whichever part of the service produced it', async () => {
    const answers = {
      'a route': await exchange(get('/api/integrations/v1/orders')),
      'the auth hook': await exchange(get('/api/integrations/v1/orders').replace(key, 'sk_live_wrong')),
      'the not-found handler': await exchange(get('/api/integrations/v1/nope')),
      'the router (frameworkErrors)': await exchange(get('/api/integrations/v1/orders/%E0%A4%A')),
      "Node's parser (clientErrorHandler)": await exchange(get('/api/integrations/v1/orders', `X-Big: ${'b'.repeat(20_000)}\r\n`)),
      'the OpenAPI document': await exchange(get('/api/integrations/v1/openapi.json')),
      'the docs page': await exchange(get('/docs')),
      'the portal': await exchange(get('/portal')),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect(res.status, what).toBe(
        { 'a route': 200, 'the auth hook': 401, 'the not-found handler': 404, 'the router (frameworkErrors)': 400, "Node's parser (clientErrorHandler)": 431 }[
          what
        ] ?? 200,
      );
      expect(Object.fromEntries(Object.keys(expected).map((h) => [h, res.headers[h]])), what).toEqual(expected);
    }
  });
});

/**
 * A merchant with one variant at one location, for raw requests that adjust its stock: the key,
 * the body of a +1 adjustment, and its on_hand read back.
 */
function stockFixture(sku: string) {
  const s = { variantId: '', locationId: '', stockKey: '' };
  beforeAll(async () => {
    const m = await t.merchant({ locations: 1 });
    s.stockKey = await m.key(['inventory.adjust', 'inventory.read']);
    s.variantId = (await makeProduct(t, m, sku, [{ sku, price: 1 }])).variants[0].id;
    s.locationId = m.locations[0];
  });
  return {
    key: () => s.stockKey,
    body: () => JSON.stringify({ adjustments: [{ variant_id: s.variantId, fulfillment_location_id: s.locationId, adjustment: 1 }] }),
    onHand: async () =>
      (json(await t.api(s.stockKey, 'GET', `/inventory?variant_id=${s.variantId}`), 200, 'listInventory').data as { on_hand: number }[])[0]?.on_hand ?? 0,
  };
}

describe('pipelined requests: every request the app took is answered before the connection closes', () => {
  const stock = stockFixture('PIPE-1');
  const onHand = stock.onHand;
  const adjustment = (body = stock.body()) =>
    `POST /api/integrations/v1/inventory/adjustments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stock.key()}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  /** The status of every answer on one connection, in order, until the server closes it. */
  function statuses(request: string): Promise<number[]> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
      let text = '';
      const timer = setTimeout(() => (socket.destroy(), reject(new Error(`the connection stayed open: ${text}`))), 10_000);
      socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        resolve([...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])));
      });
    });
  }

  it('a write followed by a request the parser refuses: the write is answered 200, then the 400 (the 200 was lost, and the write applied)', async () => {
    const before = await onHand();
    expect(await statuses(`${adjustment()}FOO\r\n\r\n`)).toEqual([200, 400]);
    expect(await onHand()).toBe(before + 1);
  });

  it('a body that is not JSON between two writes: three answers (Fastify closed the connection after the 400, and the third write, applied, was never answered)', async () => {
    const before = await onHand();
    // The last request asks to close, so the server ends the connection after answering it.
    const last = adjustment().replace('Host: x\r\n', 'Host: x\r\nConnection: close\r\n');
    expect(await statuses(`${adjustment()}${adjustment('{{{')}${last}`)).toEqual([200, 400, 200]);
    expect(await onHand()).toBe(before + 2);
  });
});

describe('HTTP framing and headers that were taken as something else', () => {
  const stock = stockFixture('FRAME-1');
  const { onHand, body } = stock;
  const post = (headers: string, payload: string) =>
    `POST /api/integrations/v1/inventory/adjustments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stock.key()}\r\nConnection: close\r\n${headers}\r\n${payload}`;
  const chunked = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`;

  it('a transfer coding other than chunked is 415 and applies nothing (gzip in "gzip, chunked" was ignored, a plain body applied)', async () => {
    const before = await onHand();
    const res = await exchange(post('Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n', chunked(body())));
    expect(expectProblem(res, 415, 'unsupported_media_type').detail).toBe(
      'Transfer-Encoding "gzip, chunked" is not supported: send the body uncompressed, chunked or with Content-Length.',
    );
    expect(await onHand()).toBe(before);
    expect((await exchange(post('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', chunked(body())))).status).toBe(200);
    expect(await onHand()).toBe(before + 1);
  });

  it('two Content-Type headers are 400, whichever comes first (the first one acted)', async () => {
    const before = await onHand();
    for (const [first, second] of [
      ['application/json', 'text/plain'],
      ['text/plain', 'application/json'],
    ]) {
      const res = await exchange(post(`Content-Type: ${first}\r\nContent-Type: ${second}\r\nContent-Length: ${Buffer.byteLength(body())}\r\n`, body()));
      expect(expectProblem(res, 400, 'malformed_request').detail).toBe('Send one Content-Type header.');
    }
    expect(await onHand()).toBe(before);
  });

  it('two Host headers, or a Host that names no host, are 400 (RFC 9112 §3.2; they were served)', async () => {
    for (const hosts of ['Host: a\r\nHost: b\r\n', 'Host: a b/c\r\n']) {
      const res = await exchange(`GET /api/integrations/v1/orders HTTP/1.1\r\n${hosts}Authorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
      expect([hosts, expectProblem(res, 400, 'malformed_request').detail]).toEqual([hosts, 'Send one Host header naming the host (and port).']);
    }
  });

  it('an Expect other than 100-continue is served like any request (Node answered a bare 417, outside the document)', async () => {
    const res = await exchange(get('/api/integrations/v1/orders', 'Expect: foo\r\n'));
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("the parser's own refusals carry a Date header (RFC 9110 §6.6.1)", async () => {
    const res = await exchange('FOO / HTTP/1.1\r\nHost: x\r\n\r\n');
    expectProblem(res, 400, 'malformed_request');
    expect(Number.isNaN(Date.parse(res.headers['date']))).toBe(false);
  });

  it('a body that is not an object names the body, without an empty pointer (": body must be object")', async () => {
    const res = await exchange(post(`Content-Type: application/json\r\nContent-Length: 2\r\n`, '[]'));
    expect(expectProblem(res, 422, 'validation_failed').detail).toBe('body must be object');
  });
});
