/**
 * The `session_search` model tool over a session store.
 *
 * @module
 */

import { defineTool, type Tool } from "../tools/types.ts";
import { searchSessions, SessionSearchArgs } from "./search.ts";
import type { SessionStore } from "./store.ts";

/** Creates the `session_search` tool reading `store`. */
export function createSessionSearchTool(store: SessionStore): Tool {
  return defineTool({
    name: "session_search",
    description:
      "Search past conversations stored on this machine. Give `query` to find messages (each hit comes with the 5 messages around it and the session's first and last exchanges); give `session_id` and `around_message_id` to read more of a session around a message; give nothing to list recent sessions. Returns stored text exactly; never summarised.",
    schema: SessionSearchArgs,
    readOnly: true,
    run: (args, context) => Promise.resolve(searchSessions(store, args, context.sessionId)),
  }) as Tool;
}
