/**
 * The `session_search` model tool over a session store. Its answers are
 * capped at {@link MAX_SEARCH_RESULT_BYTES} of JSON, so a search never
 * floods the model's context.
 *
 * @module
 */

import { defineTool, type Tool } from "../tools/types.ts";
import { MAX_SEARCH_RESULT_BYTES, searchSessions, SessionSearchArgs } from "./search.ts";
import { INTERNAL_SESSION_SOURCES } from "./sources.ts";
import type { SessionStore } from "./store.ts";

/** Creates the `session_search` tool reading `store`. */
export function createSessionSearchTool(store: SessionStore): Tool {
  return defineTool({
    name: "session_search",
    description:
      'Search past conversations stored on this machine. Give `query` to find messages: the top hit comes with the 5 messages around the match and the session\'s first and last exchanges, the others with the matching message only (`detail: "full"` gives every hit in full). Give `session_id` and `around_message_id` to read more of a session around a message; give nothing to list recent sessions. Times are ISO 8601 (UTC). Sessions Herald ran for itself (' +
      INTERNAL_SESSION_SOURCES.join(", ") +
      ") are hidden unless `include_internal` is true. Stored text comes back exactly, never summarised; an answer is at most " +
      `${
        MAX_SEARCH_RESULT_BYTES / 1024
      } KB, and when something had to be cut it says \`truncated\`: scroll around a message to read the rest.`,
    schema: SessionSearchArgs,
    readOnly: true,
    run: (args, context) =>
      Promise.resolve(
        searchSessions(store, args, {
          currentSessionId: context.sessionId,
          maxBytes: MAX_SEARCH_RESULT_BYTES,
        }),
      ),
  }) as Tool;
}
