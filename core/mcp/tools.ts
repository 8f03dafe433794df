/**
 * How an MCP server's tools appear to the model: each as
 * `mcp_<server>_<tool>`, in a stable order (servers by name, each server's
 * tools by name) so the tool list, part of the prompt prefix, is the same
 * from one session to the next; and what a `tools/call` result becomes.
 *
 * @module
 */

/** The longest tool name model providers accept. */
export const MAX_TOOL_NAME = 64;

/** A tool a server lists (`tools/list`), as much of it as Herald uses. */
export interface McpToolInfo {
  name: string;
  description?: string;
  title?: string;
  /** The JSON Schema of its arguments (an object schema). */
  inputSchema: Record<string, unknown>;
}

/** One of a server's tools under the name the model calls it by. */
export interface McpToolBinding {
  /** `mcp_<server>_<tool>`, at most {@link MAX_TOOL_NAME} characters of `A-Za-z0-9_-`. */
  name: string;
  server: string;
  tool: McpToolInfo;
}

/** A short stable hash of `text` (FNV-1a, 8 hex digits), to keep cut names apart. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * The name the model calls `tool` of `server` by: `mcp_<server>_<tool>`,
 * characters providers refuse replaced by `_`; a name past
 * {@link MAX_TOOL_NAME} is cut and ends in a hash of the whole, so two long
 * names stay apart.
 *
 * @example
 * ```ts
 * mcpToolName("everything", "get-sum"); // "mcp_everything_get-sum"
 * mcpToolName("fs", "read.file"); // "mcp_fs_read_file"
 * ```
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp_${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (name.length <= MAX_TOOL_NAME) return name;
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${shortHash(`${server}\0${tool}`)}`;
}

/**
 * The tools of every server, bound to their model names, in a stable order:
 * servers by name, each one's tools by name. A name that two tools would
 * share keeps the first and is reported in `clashes`.
 */
export function bindMcpTools(
  servers: ReadonlyMap<string, readonly McpToolInfo[]>,
): { bindings: McpToolBinding[]; clashes: string[] } {
  const bindings: McpToolBinding[] = [];
  const clashes: string[] = [];
  const taken = new Set<string>();
  for (const server of [...servers.keys()].sort()) {
    const tools = [...servers.get(server)!].sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const tool of tools) {
      const name = mcpToolName(server, tool.name);
      if (taken.has(name)) {
        clashes.push(`${server}/${tool.name}`);
        continue;
      }
      taken.add(name);
      bindings.push({ name, server, tool });
    }
  }
  return { bindings, clashes };
}

/** A JSON Schema usable as a tool's parameters: an object schema (a server's `$schema` left out). */
export function toolParameters(inputSchema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = inputSchema;
  return { ...rest, type: "object", properties: rest.properties ?? {} };
}

/** What a `tools/call` answered (CallToolResult), as much of it as Herald reads. */
export interface McpCallResult {
  content?: readonly Record<string, unknown>[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What the model receives for a successful call: every content block as the server sent it. */
export interface McpToolOutput {
  content: Record<string, unknown>[];
  structuredContent?: Record<string, unknown>;
}

/**
 * A call's result as the model receives it: the content blocks unchanged
 * (text, image and audio data, resource links, embedded resources, with
 * their annotations) and the structured content when there is some.
 */
export function mcpToolOutput(result: McpCallResult): McpToolOutput {
  return {
    content: [...(result.content ?? [])],
    ...(result.structuredContent === undefined
      ? {}
      : { structuredContent: result.structuredContent }),
  };
}

/** The text of a result's text blocks (an error result's message), joined by newlines. */
export function mcpResultText(result: McpCallResult): string {
  return (result.content ?? [])
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

/** A form field an elicitation asks for (`requestedSchema.properties.<name>`). */
interface ElicitField {
  default?: unknown;
}

/**
 * The answer Herald can give to a form elicitation without typing: every
 * field's default. Undefined when a required field has no default (then
 * only a person with a form could answer).
 */
export function elicitationDefaults(
  requestedSchema: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const properties = (requestedSchema.properties ?? {}) as Record<string, ElicitField>;
  const required = Array.isArray(requestedSchema.required)
    ? requestedSchema.required as string[]
    : [];
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(properties)) {
    if (field && typeof field === "object" && "default" in field) content[name] = field.default;
  }
  return required.every((name) => Object.hasOwn(content, name)) ? content : undefined;
}
