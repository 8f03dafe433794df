/**
 * Reading an HTTP request's body with a byte cap, for every server that
 * takes a body from outside (the dashboard's API, the API server, the LINE
 * webhook): the cap holds whatever the Content-Length says, and a chunked
 * body is cut off as soon as it passes the cap, so a large one is never held
 * in memory.
 *
 * @module
 */

/**
 * The body of `request` as bytes, or `null` when it is larger than `limit`
 * bytes: announced larger by its Content-Length (refused before anything is
 * read) or counted larger while it is read. Whatever is left of a refused
 * body is cancelled. A request without a body reads as no bytes.
 *
 * Each caller answers a `null` with its own 413.
 *
 * @example
 * ```ts
 * const bytes = await readCappedBody(request, 1024 * 1024);
 * if (bytes === null) return new Response("Too large", { status: 413 });
 * ```
 */
export async function readCappedBody(
  request: Request,
  limit: number,
): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await request.body?.cancel().catch(() => {});
    return null;
  }
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
