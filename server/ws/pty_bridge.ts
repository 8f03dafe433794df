/**
 * The `/api/pty` bridge between a WebSocket and a pseudo-terminal.
 *
 * Framing, chosen so typed input can never be taken for a command:
 * - client → server, **binary** frame: bytes typed into the terminal (UTF-8);
 * - client → server, **text** frame: one JSON control message,
 *   `{"type":"resize","cols":N,"rows":M}` (1-1000 each);
 * - server → client, **binary** frame: terminal output (UTF-8);
 * - server → client, **text** frame: one JSON control message,
 *   `{"type":"exit","exit_code":N,"signal":S|null}` when the program ends (the
 *   socket then closes with 1000), or `{"type":"error","message":"..."}` for a
 *   control frame that was not understood.
 *
 * When the socket closes, the program and every process of its terminal
 * session are ended (hang-up and SIGTERM, then SIGKILL after a grace; a
 * shorter one when the dashboard stops, see server/ws/live.ts).
 *
 * Limits (server/ws/limits.ts): a client message larger than
 * {@link MAX_PTY_MESSAGE_BYTES} closes the socket with 1009; more than
 * {@link MAX_PTY_STARTUP_INPUT_BYTES} sent while the program starts, with
 * 1008; and when over {@link MAX_SOCKET_BUFFERED_BYTES} of output wait for a
 * client that is not reading, the socket is closed with 1008. Each of these
 * ends the program as a close does.
 *
 * @module
 */

import { z } from "zod";
import { type PtyProcess, type PtySpawnOptions, spawnPty } from "../../adapters/pty/mod.ts";
import {
  closeWithCode,
  type LimitedSocket,
  MAX_PTY_MESSAGE_BYTES,
  MAX_PTY_STARTUP_INPUT_BYTES,
  MAX_SOCKET_BUFFERED_BYTES,
  messageBytesUpTo,
  sendBounded,
  tooBigReason,
  WsCloseCode,
} from "./limits.ts";

/** A control message from the client (text frame). */
export const PtyControl = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("resize"),
    cols: z.number().int().min(1).max(1000),
    rows: z.number().int().min(1).max(1000),
  }),
]);

/** A parsed client control message. */
export type PtyControl = z.infer<typeof PtyControl>;

/** The parts of a WebSocket the bridge uses. */
export type BridgeSocket = LimitedSocket;

/**
 * Why a client message must close the socket before it reaches the
 * terminal: too big (1009), or too much input while the program starts
 * (1008). Undefined when the message may pass. `queued` is what the client
 * has sent so far while starting (this message included), or undefined once
 * the program runs.
 */
export function ptyMessageRefusal(
  data: unknown,
  queued?: number,
): { code: number; reason: string } | undefined {
  const size = messageBytesUpTo(data, MAX_PTY_MESSAGE_BYTES);
  if (size > MAX_PTY_MESSAGE_BYTES) {
    return {
      code: WsCloseCode.messageTooBig,
      reason: tooBigReason("Message", MAX_PTY_MESSAGE_BYTES),
    };
  }
  if (queued !== undefined && queued > MAX_PTY_STARTUP_INPUT_BYTES) {
    return {
      code: WsCloseCode.policyViolation,
      reason: `Over ${MAX_PTY_STARTUP_INPUT_BYTES} bytes sent before the terminal program started`,
    };
  }
  return undefined;
}

/** Reads a text frame as a control message, or says why it is not one. */
export function parsePtyControl(text: string): { ok: true; control: PtyControl } | {
  ok: false;
  message: string;
} {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      message: "Text frames are control messages (JSON); send typed input as binary frames",
    };
  }
  const parsed = PtyControl.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      message: 'Unknown control message; expected {"type":"resize","cols":N,"rows":M} ' +
        "with cols and rows between 1 and 1000",
    };
  }
  return { ok: true, control: parsed.data };
}

const OPEN = 1;

/** One socket joined to one terminal program. */
export class PtyBridge {
  readonly #socket: BridgeSocket;
  readonly #pty: PtyProcess;
  readonly #decoder = new TextDecoder();
  readonly #encoder = new TextEncoder();
  #closed = false;

  private constructor(socket: BridgeSocket, pty: PtyProcess) {
    this.#socket = socket;
    this.#pty = pty;
    pty.onData((text) => {
      if (this.#closed) return;
      if (!sendBounded(this.#socket, this.#encoder.encode(text), MAX_SOCKET_BUFFERED_BYTES)) {
        // The client stopped reading (closed with 1008) or the socket is closing.
        this.close().catch(() => {});
      }
    });
    pty.onExit((exit) => {
      if (this.#closed) return;
      this.#control({ type: "exit", exit_code: exit.exitCode, signal: exit.signal ?? null });
      if (this.#socket.readyState === OPEN) this.#socket.close(1000, "terminal program exited");
      // Jobs the program left behind in its terminal session go too.
      this.close();
    });
  }

  /**
   * Starts the program and joins it to `socket`. When it cannot be started,
   * an error control frame is sent and the socket closed with 1011.
   */
  static async start(
    socket: BridgeSocket,
    launch: PtySpawnOptions,
  ): Promise<PtyBridge | undefined> {
    try {
      return new PtyBridge(socket, await spawnPty(launch));
    } catch (error) {
      if (socket.readyState === OPEN) {
        socket.send(JSON.stringify({
          type: "error",
          message: `Could not start ${launch.file}: ${(error as Error).message}`,
        }));
        socket.close(1011, "terminal program did not start");
      }
      return undefined;
    }
  }

  /**
   * Handles a frame from the client (binary frames arrive as ArrayBuffer:
   * binaryType "arraybuffer"). One over {@link MAX_PTY_MESSAGE_BYTES} closes
   * the socket with 1009 and ends the program.
   */
  receive(data: unknown): void {
    if (this.#closed) return;
    const refusal = ptyMessageRefusal(data);
    if (refusal) {
      this.refuse(refusal.code, refusal.reason);
      return;
    }
    if (typeof data === "string") {
      const parsed = parsePtyControl(data);
      if (!parsed.ok) this.#control({ type: "error", message: parsed.message });
      else this.#pty.resize(parsed.control.cols, parsed.control.rows);
      return;
    }
    if (!(data instanceof ArrayBuffer || ArrayBuffer.isView(data))) return;
    const bytes = data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const text = this.#decoder.decode(bytes, { stream: true });
    if (text !== "") this.#pty.write(text);
  }

  /**
   * Closes the socket with `code` and `reason` and ends the program (with
   * `graceMs` before SIGKILL, as in {@link close}).
   */
  refuse(code: number, reason: string, graceMs?: number): Promise<void> {
    closeWithCode(this.#socket, code, reason);
    return this.close(graceMs);
  }

  /**
   * Ends the program and its whole terminal session, SIGKILL following the
   * polite signals after `graceMs` (default: adapters/pty's); resolves when
   * nothing of it runs. The first call's grace holds for later calls.
   */
  close(graceMs?: number): Promise<void> {
    this.#closed = true;
    return this.#pty.terminate(graceMs);
  }

  #control(message: Record<string, unknown>): void {
    if (!sendBounded(this.#socket, JSON.stringify(message), MAX_SOCKET_BUFFERED_BYTES)) {
      if (!this.#closed) this.close().catch(() => {});
    }
  }
}
