/**
 * Where sessions come from. Sessions a person started (`cli`, `dashboard`,
 * `telegram`, ...) are the ones a search shows; sessions Herald runs for
 * itself (a subagent, a tool's own model call, a kanban worker, a cron job)
 * are internal, and session browse and discovery leave them out unless asked.
 *
 * @module
 */

/**
 * The session sources Herald runs for itself, defined once: the agent's
 * `session_search` tool, `herald sessions search` and `/api/sessions/search`
 * hide them unless asked (`include_internal`).
 */
export const INTERNAL_SESSION_SOURCES: readonly string[] = ["subagent", "tool", "kanban", "cron"];
