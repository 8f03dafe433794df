/**
 * A JSON-RPC 2.0 server on stdin/stdout for the framing tests, written
 * without any of Herald's code, so the framings are checked against an
 * independent implementation. Every message it receives is logged on
 * stderr as `got <json>`.
 *
 * Usage: `deno run _stdio_peer.ts <ndjson|content-length> [split]`; with
 * `split` every message goes out in 3-byte pieces (cutting multi-byte
 * characters and CR LF pairs), one write each.
 *
 * Methods: `echo` (answers its params), `later` (held until `flush`, which
 * answers the held calls in reverse order in one write), `ask` (asks the
 * client `confirm` first and answers with the client's answer), `notify`
 * (three `progress` notifications, then the answer), `exit` (exits without
 * answering), and `bad/...` methods that break the framing on purpose:
 * `bad/log-line` (a plain log line on stdout, then the answer),
 * `bad/huge-header` (a 9,000-byte header line), `bad/no-length` (a header
 * section without Content-Length), `bad/long-line {bytes}` (a line that
 * never ends), `bad/big-body {bytes}` (a header announcing that many bytes),
 * `bad/truncate` (half a message, then exit).
 */

const [framing, mode] = Deno.args;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

type Message = {
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
};

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

async function writeAll(bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length;) {
    offset += await Deno.stdout.write(bytes.subarray(offset));
  }
}

function frame(message: unknown): Uint8Array {
  const body = encoder.encode(JSON.stringify(message));
  if (framing === "ndjson") return concat(body, encoder.encode("\n"));
  return concat(encoder.encode(`Content-Length: ${body.length}\r\n\r\n`), body);
}

async function send(...messages: unknown[]): Promise<void> {
  const bytes = concat(...messages.map(frame));
  if (mode !== "split") return await writeAll(bytes);
  for (let i = 0; i < bytes.length; i += 3) {
    await writeAll(bytes.subarray(i, i + 3));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const held: Message[] = [];
const asking = new Map<string, Message>();

async function handle(message: Message): Promise<void> {
  console.error(`got ${JSON.stringify(message)}`);
  if (message.method === undefined) {
    // A response to one of our requests.
    const asked = asking.get(String(message.id));
    if (!asked) return;
    asking.delete(String(message.id));
    await send({ jsonrpc: "2.0", id: asked.id, result: { answer: message.result ?? null } });
    return;
  }
  const { id, method, params = {} } = message;
  const reply = (result: unknown) => send({ jsonrpc: "2.0", id, result });
  switch (method) {
    case "echo":
      return await reply(params);
    case "later":
      held.push(message);
      return;
    case "flush": {
      const answers = held.splice(0).reverse().map((call) => ({
        jsonrpc: "2.0",
        id: call.id,
        result: call.params,
      }));
      return await send(...answers, { jsonrpc: "2.0", id, result: answers.length });
    }
    case "ask": {
      const askId = `srv-${asking.size + 1}`;
      asking.set(askId, message);
      return await send({ jsonrpc: "2.0", id: askId, method: "confirm", params });
    }
    case "notify":
      for (const step of [1, 2, 3]) {
        await send({ jsonrpc: "2.0", method: "progress", params: { step } });
      }
      return await reply("notified");
    case "exit":
      Deno.exit(0);
      break;
    case "bad/log-line":
      await writeAll(encoder.encode("starting up, please wait\n"));
      return await reply("after the log line");
    case "bad/huge-header":
      return await writeAll(
        encoder.encode(`Content-Length: 2\r\nX-Padding: ${"p".repeat(9000)}\r\n\r\n{}`),
      );
    case "bad/no-length":
      return await writeAll(
        encoder.encode("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"),
      );
    case "bad/long-line": {
      const piece = encoder.encode("x".repeat(64 * 1024));
      for (let sent = 0; sent < Number(params.bytes); sent += piece.length) await writeAll(piece);
      return;
    }
    case "bad/big-body":
      return await writeAll(encoder.encode(`Content-Length: ${Number(params.bytes)}\r\n\r\n{`));
    case "bad/truncate":
      await writeAll(encoder.encode('Content-Length: 100\r\n\r\n{"jsonrpc":'));
      Deno.exit(0);
      break;
    default:
      if (id !== undefined) {
        await send({
          jsonrpc: "2.0",
          id,
          error: { code: -32601, message: `Method not found: ${method}` },
        });
      }
  }
}

/** Cuts stdin into messages in the chosen framing. */
async function* messages(): AsyncGenerator<Message> {
  let buffer: Uint8Array = new Uint8Array(0);
  for await (const chunk of Deno.stdin.readable) {
    buffer = concat(buffer, chunk);
    for (;;) {
      let body: Uint8Array;
      if (framing === "ndjson") {
        const newline = buffer.indexOf(0x0a);
        if (newline < 0) break;
        body = buffer.subarray(0, newline);
        buffer = buffer.subarray(newline + 1);
      } else {
        const text = decoder.decode(buffer);
        const end = text.indexOf("\r\n\r\n");
        if (end < 0) break;
        const length = Number(/Content-Length: (\d+)/i.exec(text.slice(0, end))?.[1]);
        const start = encoder.encode(text.slice(0, end + 4)).length;
        if (buffer.length < start + length) break;
        body = buffer.subarray(start, start + length);
        buffer = buffer.subarray(start + length);
      }
      const text = decoder.decode(body).trim();
      if (text === "") continue;
      try {
        yield JSON.parse(text);
      } catch {
        console.error(`got garbage ${JSON.stringify(text)}`);
      }
    }
  }
}

for await (const message of messages()) {
  // Not awaited: a held or asking call must not stop the reading.
  handle(message).catch((error) => console.error(`failed ${error}`));
}
