/**
 * `POST /v1/chat/completions`: OpenAI Chat Completions over the agent.
 * Stateless: each request runs in a new conversation of the profile (a
 * new stored session), with the client's earlier messages put in front of
 * its last one (prompt.ts). The agent runs its own tools server-side; the
 * request's `tools` and sampling options are not used, and every answer
 * names the server's one model whatever `model` the request gave.
 *
 * Streaming sends `chat.completion.chunk` objects as `data:` lines: the
 * role first, then the text as it comes, then `finish_reason`, the usage
 * chunk when `stream_options.include_usage` asks, and `data: [DONE]`. A
 * failure after the stream started is sent as `data: {"error": {...}}`.
 * A client that closes the stream stops the turn; a turn answered without
 * streaming runs to its end even when the client leaves (it is stored).
 *
 * @module
 */

import { z } from "zod";
import type { ApiServerDeps } from "./deps.ts";
import { ApiRequestError, toOpenAiError } from "./errors.ts";
import { ChatMessage, chatPrompt } from "./prompt.ts";
import { parseBody, randomHex, readJsonBody, unixSeconds } from "./request.ts";
import { sseResponse } from "./sse.ts";
import { interrupted, runTurn, type TurnOutcome } from "./turn.ts";

/** The body of `POST /v1/chat/completions`, as far as the server reads it. */
export const ChatCompletionBody = z.object({
  model: z.string().optional(),
  messages: z.array(ChatMessage),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).loose().nullish(),
  n: z.number().int().nullish(),
}).loose();

function usageOf(outcome: TurnOutcome) {
  return {
    prompt_tokens: outcome.usage.input,
    completion_tokens: outcome.usage.output,
    total_tokens: outcome.usage.input + outcome.usage.output,
  };
}

/** Answers one Chat Completions request. */
export async function chatCompletions(request: Request, deps: ApiServerDeps): Promise<Response> {
  const body = parseBody(ChatCompletionBody, await readJsonBody(request));
  if (body.n !== undefined && body.n !== null && body.n !== 1) {
    throw new ApiRequestError(
      400,
      "invalid_request",
      "n must be 1: the agent gives one answer",
      "n",
    );
  }
  const prompt = chatPrompt(body.messages);
  const id = `chatcmpl-${randomHex(12)}`;
  const created = unixSeconds(deps.clock.now());
  const model = deps.settings.modelName;
  const conversation = await deps.conversations.open();

  if (!body.stream) {
    let outcome: TurnOutcome;
    try {
      outcome = await runTurn(conversation, prompt, {
        signal: deps.stop,
      });
    } finally {
      await conversation.close();
    }
    if (outcome.aborted) throw interrupted();
    return Response.json({
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{
        index: 0,
        message: { role: "assistant", content: outcome.text, refusal: null },
        logprobs: null,
        finish_reason: outcome.finishReason,
      }],
      usage: usageOf(outcome),
    });
  }

  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    ...(includeUsage ? { usage: null } : {}),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  return sseResponse(async (writer, signal) => {
    try {
      writer.send(chunk({ role: "assistant", content: "" }, null));
      const outcome = await runTurn(conversation, prompt, {
        signal,
        onDelta: (delta) => writer.send(chunk({ content: delta }, null)),
      });
      if (outcome.aborted) return;
      writer.send(chunk({}, outcome.finishReason));
      if (includeUsage) {
        writer.send({
          id,
          object: "chat.completion.chunk",
          created,
          model,
          choices: [],
          usage: usageOf(outcome),
        });
      }
      writer.sendRaw("[DONE]");
    } catch (error) {
      const { error: body } = toOpenAiError(error);
      deps.log(`API server: chat completion ${id} failed: ${body.message}`);
      writer.send({ error: body });
    } finally {
      await conversation.close();
    }
  }, {
    stop: deps.stop,
    clock: deps.clock,
    onError: (error) => deps.log(`API server: chat completion ${id} stream failed: ${error}`),
  });
}
