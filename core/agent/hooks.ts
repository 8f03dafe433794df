/**
 * Plugin hooks around the model's final answer. A plugin is a module the
 * profile names in config (`plugins:`); `--safe-mode` loads none.
 *
 * @module
 */

/** What a hook learns about the turn. */
export interface HookContext {
  sessionId: string;
  model: string;
  provider: string;
  /** The user message that started the turn. */
  userMessage: string;
}

/** Hooks a plugin may provide. Both run after the file-mutation footer is appended. */
export interface LlmHooks {
  /** A name for error messages (the module path). */
  name?: string;
  /** Rewrites the final answer text; hooks run in config order, each seeing the previous output. */
  transform_llm_output?(text: string, context: HookContext): string | Promise<string>;
  /** Observes the final answer after all transforms. */
  post_llm_call?(context: HookContext & { response: string }): void | Promise<void>;
}

/** Applies every plugin's transform, then every post-call hook, and returns the final text. */
export async function runOutputHooks(
  hooks: readonly LlmHooks[],
  text: string,
  context: HookContext,
): Promise<string> {
  let output = text;
  for (const hook of hooks) {
    if (hook.transform_llm_output) output = await hook.transform_llm_output(output, context);
  }
  for (const hook of hooks) {
    if (hook.post_llm_call) await hook.post_llm_call({ ...context, response: output });
  }
  return output;
}
