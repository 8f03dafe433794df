/**
 * `herald sessions list|search|show|export|delete`. The `--json` output
 * uses the same views as `/api/sessions` (core/sessions/views.ts).
 *
 * @module
 */

import { type Command, InvalidArgumentError } from "commander";
import { HeraldError, NotFoundError } from "../../core/errors.ts";
import { searchSessions } from "../../core/sessions/search.ts";
import type { SessionRecord, SessionStore } from "../../core/sessions/store.ts";
import { sessionView, sessionWithMessagesView } from "../../core/sessions/views.ts";
import { ToolError } from "../../core/tools/types.ts";
import { profileSessionFiles } from "../../adapters/home/mod.ts";
import { openStateStore } from "../../adapters/sqlite/mod.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";

async function withStore<T>(
  c: CliContext,
  work: (store: SessionStore) => Promise<T> | T,
): Promise<T> {
  const paths = await c.home();
  const store = openStateStore(paths.stateDb);
  try {
    return await work(store);
  } finally {
    store.close();
  }
}

function requireSession(store: SessionStore, id: string): SessionRecord {
  const session = store.getSession(id);
  if (!session) throw new NotFoundError("Session", id, "list sessions with `herald sessions list`");
  return session;
}

function when(ms: number | null): string {
  return ms === null ? "-" : new Date(ms).toISOString().replace("T", " ").slice(0, 16);
}

function parseCount(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) {
    throw new InvalidArgumentError(`expected a whole number of 1 or more, got "${value}"`);
  }
  return count;
}

/** Adds the `sessions` command family to `program`. */
export function registerSessions(program: Command, ctx: () => CliContext): void {
  const sessions = program.command("sessions").description(
    "list, show, export and delete stored sessions",
  );

  sessions.command("list")
    .description("list sessions, newest first")
    .option("--limit <n>", "how many", parseCount, 20)
    .option("--source <name>", "only sessions from this surface (cli, dashboard, telegram, ...)")
    .option("--json", "print JSON")
    .action(async (options: { limit: number; source?: string; json?: boolean }) => {
      const c = ctx();
      const rows = await withStore(
        c,
        (store) =>
          store.listSessions({ limit: options.limit, source: options.source })
            .map((session) => sessionView(session, store)),
      );
      if (options.json) return printJson(c.io, rows);
      if (rows.length === 0) return c.io.out("No sessions yet. Start one with `herald chat`.\n");
      for (const row of rows) {
        c.io.out(
          `${row.id}  ${when(row.started_at)}  ${row.source.padEnd(9)} ${
            String(row.message_count).padStart(4)
          } msgs  ${row.title ?? ""}\n`,
        );
      }
    });

  sessions.command("search <query>")
    .description("find past messages (the same search the agent's session_search tool uses)")
    .option("--limit <n>", "sessions to return (1-10)", parseCount, 3)
    .option("--role <roles>", "roles that may match, comma-separated (default user,assistant)")
    .option("--sort <order>", "relevance, newest or oldest", "relevance")
    .option("--json", "print JSON")
    .action(
      async (
        query: string,
        options: { limit: number; role?: string; sort: string; json?: boolean },
      ) => {
        const c = ctx();
        if (!["relevance", "newest", "oldest"].includes(options.sort)) {
          throw new InvalidArgumentError(
            `--sort must be relevance, newest or oldest; got "${options.sort}"`,
          );
        }
        const result = await withStore(c, (store) => {
          try {
            return searchSessions(store, {
              query,
              limit: options.limit,
              role_filter: options.role,
              sort: options.sort as "relevance" | "newest" | "oldest",
            });
          } catch (error) {
            if (error instanceof ToolError) {
              throw new HeraldError(error.code, "usage", error.message);
            }
            throw error;
          }
        });
        if (options.json) return printJson(c.io, result);
        if (result.shape !== "discovery" || result.count === 0) {
          return c.io.out(`No stored messages match ${JSON.stringify(query)}.\n`);
        }
        for (const hit of result.results) {
          c.io.out(`${hit.session_id}  ${when(hit.started_at)}  ${hit.title ?? ""}\n`);
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
      },
    );

  sessions.command("show <id>")
    .description("print a session and its messages")
    .option("--json", "print JSON")
    .action(async (id: string, options: { json?: boolean }) => {
      const c = ctx();
      const shown = await withStore(
        c,
        (store) => sessionWithMessagesView(requireSession(store, id), store),
      );
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

  sessions.command("export <id>")
    .description("print a session with every message as JSON (for backups or other tools)")
    .option("--json", "print JSON (the only format; accepted for symmetry)")
    .action(async (id: string) => {
      const c = ctx();
      const exported = await withStore(
        c,
        (store) => sessionWithMessagesView(requireSession(store, id), store),
      );
      printJson(c.io, { format: "herald.session.v1", ...exported });
    });

  sessions.command("delete <id>")
    .description("delete a session, its messages, transcript and request dumps")
    .option("--json", "print JSON")
    .action(async (id: string, options: { json?: boolean }) => {
      const c = ctx();
      const paths = await c.home();
      const files = await withStore(c, async (store) => {
        requireSession(store, id);
        store.deleteSession(id);
        return await profileSessionFiles(paths).deleteSessionFiles(id);
      });
      if (options.json) printJson(c.io, { deleted: id, files });
      else c.io.out(`Deleted session ${id} (${files} file${files === 1 ? "" : "s"}).\n`);
    });
}
