/** The echo channel: a test-only surface over the conversation object, in under 40 lines. @module */
import { Conversation } from "../../core/agent/conversation.ts";
import type { AgentEvent } from "../../core/agent/turn_runtime.ts";
import type { ApprovalChoice, ApprovalRequest } from "../../core/tools/types.ts";
import type { ProfilePaths } from "../../adapters/home/mod.ts";
import { openAgentRuntimeLazily } from "../../adapters/runtime/lazy_agent_runtime.ts";

/** What a user would see (`>` in, `<` out, `*` tool, `?` asked, `!` answered), and a way to send. */
export type EchoChannel = { transcript: string[]; send(text: string): Promise<void> };

/** Opens the channel on the profile at `paths`: tools run in `cwd`, approvals get `answer`. */
export async function openEchoChannel(
  paths: ProfilePaths,
  cwd: string,
  answer: ApprovalChoice,
): Promise<EchoChannel> {
  const transcript: string[] = [];
  const ask = (request: ApprovalRequest) => {
    transcript.push(`? ${request.command}`, `! ${answer}`);
    return Promise.resolve(answer);
  };
  const onEvent = (event: AgentEvent) => {
    if (event.type === "tool_start") transcript.push(`* ${event.call.name}`);
  };
  const env = { PATH: Deno.env.get("PATH") };
  const options = { safeMode: false, source: "echo", cwd, env, onWarning() {} };
  const runtime = await openAgentRuntimeLazily(paths, { ...options, approvals: { ask } });
  const conversation = await Conversation.open({ runtime });
  return {
    transcript,
    async send(text) {
      transcript.push(`> ${text}`);
      const result = await conversation.input(text, { onEvent });
      transcript.push(`< ${result.kind === "turn" ? result.result.response : result.text}`);
    },
  };
}
