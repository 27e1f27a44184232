// Answers a fake fetch gives in place of the server's: problems, pages, and broken answers made
// from real ones (a body cut off mid-way, a body that is not JSON), as proxies and networks give them.

const REQUEST_ID = '00000000-0000-4000-8000-000000000000';

/** An RFC 9457 problem answer with this status and code. */
export function problem(status: number, code: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type: 'about:blank', title: code, status, detail: code, code, request_id: REQUEST_ID }), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
}

/** A 200 page of a list operation. */
export function page(data: unknown[], nextCursor: string | null = null): Response {
  return Response.json({ data, request_id: REQUEST_ID, meta: { limit: 250, next_cursor: nextCursor } });
}

/** The same status and headers, the body cut off after its first bytes (the socket destroyed mid-body). */
export async function cutOff(res: Response): Promise<Response> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice(0, 8));
      controller.error(new TypeError('terminated'));
    },
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

/** The same status and headers with another body (an HTML page, a truncated JSON text, nothing). */
export async function withBody(res: Response, text: string): Promise<Response> {
  await res.arrayBuffer();
  return new Response(text, { status: res.status, headers: res.headers });
}

/** A fetch that never answers and, like fetch, rejects with the signal's reason once it aborts. */
export const hangingFetch: typeof fetch = (_input, init) =>
  new Promise((_resolve, reject) => {
    const signal = init?.signal;
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
