/**
 * `herald send -t <target> [message] [--file <path>] [--json] | --list`:
 * one message to a chat platform, no model involved and no gateway needed.
 * The body is the argument, else the text file `--file` names (`-` is
 * standard input), else piped standard input. Exit codes come from the
 * error kinds (cli/errors.ts): 0 delivered, 1 the platform refused or kept
 * failing, 2 a usage or configuration mistake. The work is core's
 * (core/usecases/send.ts).
 *
 * @module
 */

import { resolve } from "node:path";
import type { Command } from "commander";
import { HeraldError } from "../../core/errors.ts";
import {
  listTargets,
  sendMessage,
  type SendResult,
  type SendTargetsView,
} from "../../core/usecases/send.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

/** The largest body read from a file or standard input. */
const MAX_BODY_BYTES = 1024 * 1024;

interface SendOptions {
  to?: string;
  file?: string;
  list?: boolean;
  json?: boolean;
}

function usage(code: string, message: string): HeraldError {
  return new HeraldError(code, "usage", message);
}

/** How to send a file instead, for the binary-body refusal. */
function mediaHint(path: string): string {
  return `to send a file, put a line MEDIA:${path} in the message ` +
    `(e.g. herald send -t telegram "MEDIA:${path}"), and add [[as_document]] to send it as a ` +
    "document rather than a photo or video";
}

/**
 * `bytes` as the message text. Binary data (a NUL byte, invalid UTF-8) is
 * a usage error naming `MEDIA:<path>` and `[[as_document]]`.
 */
function textOf(bytes: Uint8Array, what: string, mediaPath: string): string {
  if (bytes.length > MAX_BODY_BYTES) {
    throw new HeraldError(
      "send_body_too_large",
      "too_large",
      `${what} is ${bytes.length} bytes; a message body may be at most ${MAX_BODY_BYTES} bytes`,
    );
  }
  let text: string | undefined;
  if (!bytes.includes(0)) {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      text = undefined;
    }
  }
  if (text === undefined) {
    throw usage(
      "send_body_binary",
      `${what} is not text (it holds binary data), so it cannot be the message body; ` +
        mediaHint(mediaPath),
    );
  }
  return text.replace(/\s+$/, "");
}

async function readStdin(c: CliContext): Promise<string> {
  const bytes = new Uint8Array(await new Response(c.input()).arrayBuffer());
  return textOf(bytes, "Standard input", "/absolute/path/to/file");
}

async function readBodyFile(c: CliContext, file: string): Promise<string> {
  if (file === "-") return await readStdin(c);
  const path = resolve(file);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw usage("send_file_not_found", `Cannot read "${file}" (--file): no such file`);
    }
    if (error instanceof Deno.errors.IsADirectory) {
      throw usage("send_file_not_file", `Cannot read "${file}" (--file): it is a folder`);
    }
    throw error;
  }
  return textOf(bytes, `"${file}" (--file)`, path);
}

/** The body: the argument, else `--file`, else piped standard input. */
async function readBody(c: CliContext, words: string[], options: SendOptions): Promise<string> {
  let body: string;
  if (words.length > 0 && options.file !== undefined) {
    throw usage(
      "send_two_bodies",
      "Give the message either as an argument or with --file, not both",
    );
  }
  if (words.length > 0) body = words.join(" ");
  else if (options.file !== undefined) body = await readBodyFile(c, options.file);
  else if (!c.interactive) body = await readStdin(c);
  else {
    throw usage(
      "send_no_message",
      "Nothing to send: give the message as an argument, with --file <path>, or on standard " +
        'input (echo "Done" | herald send -t telegram)',
    );
  }
  if (body.trim() === "") {
    throw usage(
      "empty_message",
      "The message is empty; nothing was sent. Give the text as an argument, with --file " +
        "<path>, or on standard input",
    );
  }
  return body;
}

function sentLine(result: SendResult): string {
  const target = [result.platform, result.chat_id, result.thread_id]
    .filter((part) => part !== undefined).join(":");
  const ids = result.message_ids;
  const what = ids.length === 1 ? `message ${ids[0]}` : `${ids.length} messages: ${ids.join(", ")}`;
  return `Sent to ${target} (${what})\n`;
}

function printTargets(c: CliContext, view: SendTargetsView): void {
  for (const platform of view.platforms) {
    if (!platform.can_send) {
      c.io.out(`${platform.platform} (${platform.label}): answers requests itself, no chats\n`);
      continue;
    }
    const state = [
      platform.configured ? "configured" : "not configured",
      platform.enabled ? "enabled" : "not enabled in the gateway",
    ];
    c.io.out(`${platform.platform} (${platform.label}): ${state.join(", ")}\n`);
    c.io.out(`  home channel: ${platform.home_channel ?? "none"}\n`);
    c.io.out(`  chats: ${platform.chats.length > 0 ? platform.chats.join(", ") : "none yet"}\n`);
  }
}

/** Adds `herald send` to `program`. */
export function registerSend(program: Command, ctx: () => CliContext): void {
  program.command("send [message...]")
    .description("send a message to a chat platform (no model, no gateway needed)")
    .option(
      "-t, --to <target>",
      "where: <platform> (its home channel) or <platform>:<chat_id>[:<thread_id>]",
    )
    .option("-f, --file <path>", "read the message text from a file (- for standard input)")
    .option("-l, --list", "list the platforms, their home channels and known chats")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      `
The message is the argument, else --file, else piped standard input.
Exit codes: 0 delivered, 1 the platform refused it (or kept failing), 2 a usage or configuration mistake.

Examples:
  herald send -t telegram "Backup finished"
  herald send -t telegram:-1001234567890:42 --file notes.md
  make test 2>&1 | tail -20 | herald send -t line:U4af4980629...
  herald send --list --json`,
    )
    .action(async (words: string[], options: SendOptions) => {
      const c = ctx();
      if (options.list) {
        if (options.to !== undefined || words.length > 0 || options.file !== undefined) {
          throw usage("send_list_alone", "--list takes no target, message or --file");
        }
        const view = await listTargets(await c.profileContext());
        if (options.json) return printJson(c.io, view);
        return printTargets(c, view);
      }
      if (options.to === undefined) {
        throw usage(
          "send_no_target",
          "Say where to send with -t <platform> (its home channel) or " +
            "-t <platform>:<chat_id>[:<thread_id>]; `herald send --list` shows the targets",
        );
      }
      const body = await readBody(c, words, options);
      const result = await sendMessage(await c.profileContext(), options.to, body);
      if (options.json) return printJson(c.io, result);
      c.io.out(sentLine(result));
    });
}
