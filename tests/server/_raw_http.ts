/**
 * HTTP/1.1 over a raw TCP socket, for tests that must send what a `fetch`
 * or `new Request()` would clean up first: paths with dot segments or
 * escapes exactly as written, any Host header, chunked bodies.
 *
 * @module
 */

/** An answer read off the socket. */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** What to send. */
export interface RawRequest {
  method?: string;
  /** The request target exactly as it goes on the wire. */
  target: string;
  /** Header lines; `Host` defaults to `127.0.0.1:<port>`. */
  headers?: Record<string, string>;
  /** A body sent with Content-Length, or as chunks with Transfer-Encoding: chunked. */
  body?: string | { chunks: Uint8Array[] };
}

const encoder = new TextEncoder();

/** Sends one request on a fresh connection and reads the whole answer (Connection: close). */
export async function rawRequest(port: number, request: RawRequest): Promise<RawResponse> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const headers: Record<string, string> = {
      Host: `127.0.0.1:${port}`,
      Connection: "close",
      ...request.headers,
    };
    const body = request.body;
    if (typeof body === "string") headers["Content-Length"] = String(encoder.encode(body).length);
    if (body !== undefined && typeof body !== "string") headers["Transfer-Encoding"] = "chunked";
    const head = [
      `${request.method ?? "GET"} ${request.target} HTTP/1.1`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ].join("\r\n");
    await writeAll(conn, encoder.encode(`${head}\r\n\r\n`));
    if (typeof body === "string") {
      await writeAll(conn, encoder.encode(body));
    } else if (body !== undefined) {
      for (const chunk of body.chunks) {
        const sent = await writeAll(conn, encoder.encode(`${chunk.length.toString(16)}\r\n`))
          .then(() => writeAll(conn, chunk))
          .then(() => writeAll(conn, encoder.encode("\r\n")))
          .then(() => true, () => false);
        // The server may answer and close before the whole body is sent.
        if (!sent) break;
      }
      await writeAll(conn, encoder.encode("0\r\n\r\n")).catch(() => {});
    }
    return parseResponse(await readAll(conn));
  } finally {
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** Reads until the server closes, or until a response with a Content-Length is complete. */
async function readAll(conn: Deno.Conn): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const buffer = new Uint8Array(64 * 1024);
  let received = 0;
  while (!complete(parts, received)) {
    let read: number | null;
    try {
      read = await conn.read(buffer);
    } catch {
      break; // reset by the server after it answered
    }
    if (read === null) break;
    parts.push(buffer.slice(0, read));
    received += read;
  }
  return concat(parts, received);
}

function complete(parts: Uint8Array[], received: number): boolean {
  if (parts.length === 0) return false;
  const text = new TextDecoder().decode(concat(parts, received));
  const split = text.indexOf("\r\n\r\n");
  if (split === -1) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, split));
  return length !== null && received - (split + 4) >= Number(length[1]);
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}

function parseResponse(bytes: Uint8Array): RawResponse {
  const text = new TextDecoder().decode(bytes);
  const split = text.indexOf("\r\n\r\n");
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine, ...lines] = head.split("\r\n");
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine);
  if (!status) throw new Error(`No HTTP status line in ${JSON.stringify(text.slice(0, 200))}`);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let body = split === -1 ? "" : text.slice(split + 4);
  if (headers.get("transfer-encoding")?.includes("chunked")) body = unchunk(body);
  return { status: Number(status[1]), headers, body };
}

function unchunk(body: string): string {
  let out = "";
  let rest = body;
  while (rest.length > 0) {
    const end = rest.indexOf("\r\n");
    if (end === -1) break;
    const size = parseInt(rest.slice(0, end), 16);
    if (!size) break;
    out += rest.slice(end + 2, end + 2 + size);
    rest = rest.slice(end + 2 + size + 2);
  }
  return out;
}
