/**
 * System-prompt assembly. The prompt is a pure function of its inputs and is
 * built once per session (then stored with it), so every request of a
 * session, resumed or not, starts with the same bytes and provider prompt
 * caches keep hitting.
 *
 * @module
 */

/** Everything the system prompt is built from. */
export interface PromptInputs {
  /** Working directory the tools act in. */
  cwd: string;
  /** Calendar date the session started, `YYYY-MM-DD`. */
  date: string;
  /** Names of the tools offered, in registry order. */
  toolNames: readonly string[];
  /** The profile's persona file (`SOUL.md`), when present and rules are enabled. */
  soul?: string;
  /** Project instructions (`AGENTS.md` in the working directory), when present and rules are enabled. */
  projectRules?: string;
  /** Saved memory entries (`memories/MEMORY.md`) at session start. */
  memory?: string;
  /** What the user asked Herald to remember about them (`memories/USER.md`). */
  userProfile?: string;
  /** The profile name, when not the default. */
  profile?: string;
}

const IDENTITY =
  "You are Herald, a capable assistant running on the user's own machine. You can act through the tools listed to you: read and change files, run commands, search, and keep notes. Prefer doing the work over describing it, check your results, and say plainly what you changed. Ask before doing anything destructive that the user did not request.";

function section(title: string, body: string | undefined): string[] {
  const text = body?.trim();
  return text ? [`## ${title}\n${text}`] : [];
}

/**
 * Builds the system prompt. Same inputs, same bytes.
 *
 * @example
 * ```ts
 * buildSystemPrompt({ cwd: "/work", date: "2026-11-21", toolNames: ["terminal"] });
 * ```
 */
export function buildSystemPrompt(inputs: PromptInputs): string {
  const parts = [
    IDENTITY,
    ...section("Persona", inputs.soul),
    [
      "## Environment",
      `Working directory: ${inputs.cwd}`,
      `Session started: ${inputs.date}`,
      ...(inputs.profile ? [`Profile: ${inputs.profile}`] : []),
      `Tools: ${inputs.toolNames.join(", ") || "none"}`,
    ].join("\n"),
    ...section("Project instructions (AGENTS.md)", inputs.projectRules),
    ...section("Memory", inputs.memory),
    ...section("About the user", inputs.userProfile),
  ];
  return parts.join("\n\n") + "\n";
}
