/**
 * `herald sessions list|search|show|rename|export|delete`. The work is done by the
 * use cases in core/usecases/sessions.ts; the `--json` output is the same
 * views `/api/sessions` answers with (core/sessions/views.ts).
 *
 * @module
 */

import { type Command, InvalidArgumentError } from "commander";
import {
  deleteSession,
  exportSession,
  listSessions,
  renameSession,
  searchStoredSessions,
  showSession,
} from "../../core/usecases/sessions.ts";
import { INTERNAL_SESSION_SOURCES } from "../../core/sessions/sources.ts";
import { SessionDeleteRefusedError } from "../../core/sessions/errors.ts";
import type { SessionView } from "../../core/sessions/views.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { readAnswer } from "./_common.ts";

/** A time (epoch milliseconds or ISO 8601) as `YYYY-MM-DD HH:MM` in UTC. */
function when(time: number | string | null): string {
  return time === null ? "-" : new Date(time).toISOString().replace("T", " ").slice(0, 16);
}

function parseCount(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) {
    throw new InvalidArgumentError(`expected a whole number of 1 or more, got "${value}"`);
  }
  return count;
}

/** Asks on the terminal whether to delete `session`; true for "y" or "yes". */
async function confirmDelete(c: CliContext, session: SessionView): Promise<boolean> {
  if (!c.interactive) throw new SessionDeleteRefusedError(session.id, "session_delete_unconfirmed");
  const what = session.title ? ` ${JSON.stringify(session.title)}` : "";
  const messages = `${session.message_count} message${session.message_count === 1 ? "" : "s"}`;
  const answer = await readAnswer(
    c,
    `Delete session ${session.id}${what} (${messages}, started ${when(session.started_at)})? ` +
      "It cannot be undone. [y/N] ",
  );
  return /^y(es)?$/i.test(answer);
}

interface ListOptions {
  limit: number;
  source?: string;
  all?: boolean;
  json?: boolean;
}

interface SearchOptions {
  limit: number;
  role?: string;
  sort: string;
  full?: boolean;
  includeInternal?: boolean;
  json?: boolean;
}

/** Adds the `sessions` command family to `program`. */
export function registerSessions(program: Command, ctx: () => CliContext): void {
  const sessions = program.command("sessions").description(
    "list, search, show, rename, export and delete stored sessions",
  );

  sessions.command("list")
    .description("list sessions, newest first (sessions the model never answered only with --all)")
    .option("--limit <n>", "how many", parseCount, 20)
    .option("--source <name>", "only sessions from this surface (cli, dashboard, telegram, ...)")
    .option("--all", "also list sessions the model never answered, marked (no answer)")
    .option("--json", "print JSON")
    .action(async (options: ListOptions) => {
      const c = ctx();
      const rows = await listSessions(await c.profileContext(), {
        limit: options.limit,
        source: options.source,
        all: options.all ?? false,
      });
      if (options.json) return printJson(c.io, rows);
      if (rows.length === 0) {
        const hint = options.all ? "" : " (--all also lists sessions the model never answered)";
        return c.io.out(`No sessions yet. Start one with \`herald chat\`${hint}.\n`);
      }
      for (const row of rows) {
        const title = [row.title ?? "", row.answered ? "" : "(no answer)"].filter(Boolean);
        c.io.out(
          `${row.id}  ${when(row.started_at)}  ${row.source.padEnd(9)} ${
            String(row.message_count).padStart(4)
          } msgs  ${title.join(" ")}\n`,
        );
      }
    });

  sessions.command("search <query>")
    .description("find past messages (the same search the agent's session_search tool uses)")
    .option("--limit <n>", "sessions to return (1-10)", parseCount, 3)
    .option("--role <roles>", "roles that may match, comma-separated (default user,assistant)")
    .option("--sort <order>", "relevance, newest or oldest", "relevance")
    .option("--full", "show every hit with the messages around it (default: only the top hit)")
    .option(
      "--include-internal",
      `also search sessions Herald ran for itself (${INTERNAL_SESSION_SOURCES.join(", ")})`,
    )
    .option("--json", "print JSON")
    .action(async (query: string, options: SearchOptions) => {
      const c = ctx();
      const result = await searchStoredSessions(await c.profileContext(), {
        query,
        limit: options.limit,
        role: options.role,
        sort: options.sort,
        detail: options.full ? "full" : "adaptive",
        includeInternal: options.includeInternal ?? false,
      });
      if (options.json) return printJson(c.io, result);
      if (result.shape !== "discovery" || result.count === 0) {
        return c.io.out(`No stored messages match ${JSON.stringify(query)}.\n`);
      }
      for (const hit of result.results) {
        const source = hit.source === "cli" ? "" : `  [${hit.source}]`;
        c.io.out(`${hit.session_id}  ${when(hit.started_at)}  ${hit.title ?? ""}${source}\n`);
        for (const message of hit.messages) {
          const mark = message.id === hit.match_message_id ? ">" : " ";
          c.io.out(
            `  ${mark} [${message.id} ${message.role}] ${
              (message.content ?? "").replace(/\s+/g, " ").slice(0, 160)
            }\n`,
          );
        }
        c.io.out("\n");
      }
    });

  sessions.command("show <id>")
    .description("print a session and its messages")
    .option("--json", "print JSON")
    .action(async (id: string, options: { json?: boolean }) => {
      const c = ctx();
      const shown = await showSession(await c.profileContext(), id);
      if (options.json) return printJson(c.io, shown);
      const { session, messages } = shown;
      c.io.out(`${session.id}  ${session.title ?? ""}\n`);
      c.io.out(
        `source ${session.source}, model ${session.model ?? "-"}, started ${
          when(session.started_at)
        }\n\n`,
      );
      for (const message of messages) {
        const calls = message.tool_calls?.length
          ? ` [tool calls: ${message.tool_calls.length}]`
          : "";
        const label = message.role === "tool" ? `tool ${message.tool_name ?? ""}` : message.role;
        c.io.out(`[${label}]${calls}\n${message.content ?? ""}\n\n`);
      }
    });

  sessions.command("rename <id> <title>")
    .description("give a session a title (unique within the profile)")
    .option("--json", "print JSON")
    .action(async (id: string, title: string, options: { json?: boolean }) => {
      const c = ctx();
      const renamed = await renameSession(await c.profileContext(), id, title);
      if (options.json) return printJson(c.io, renamed);
      c.io.out(`Session ${id} is now titled ${JSON.stringify(renamed.title)}.\n`);
    });

  sessions.command("export <id>")
    .description("print a session with every message as JSON (for backups or other tools)")
    .option("--json", "print JSON (the only format; accepted for symmetry)")
    .action(async (id: string) => {
      const c = ctx();
      printJson(c.io, await exportSession(await c.profileContext(), id));
    });

  sessions.command("delete <id>")
    .description("delete a session, its messages, transcript and request dumps (asks first)")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .action(async (id: string, options: { yes?: boolean; json?: boolean }) => {
      const c = ctx();
      const deleted = await deleteSession(await c.profileContext(), id, {
        confirm: options.yes ? undefined : (session) => confirmDelete(c, session),
      });
      if (options.json) return printJson(c.io, deleted);
      const { files } = deleted;
      c.io.out(`Deleted session ${id} (${files} file${files === 1 ? "" : "s"}).\n`);
    });
}
