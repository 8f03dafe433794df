/**
 * `POST /v1/responses`, `GET` and `DELETE /v1/responses/{id}`: the OpenAI
 * Responses API over the agent, with stored state.
 *
 * - Without `previous_response_id` or `conversation`, a request runs in a
 *   new conversation of the profile (a new stored session).
 * - `previous_response_id` continues the session that response's turn ran
 *   in. Continuing from an older response of a session continues the
 *   session as it is now (the session is not forked).
 * - `conversation` (a name, or `{ "id": name }`) chains without ids: the
 *   server remembers the session and latest response of each named
 *   conversation. The first request naming it starts it.
 * - `store` (default true) keeps the response for `GET`, and for
 *   `previous_response_id`; `store: false` keeps nothing but a named
 *   conversation's place.
 *
 * Prompts are made as for Chat Completions (prompt.ts; `instructions` is a
 * system message in front). The agent runs its own tools: the request's
 * `tools` are not used, and `output` holds one assistant message. Every
 * answer names the server's one model whatever `model` the request gave.
 *
 * Turns that continue the same session run one at a time. Streaming sends
 * `response.created`, `response.in_progress`, `response.output_item.added`,
 * `response.content_part.added`, `response.output_text.delta`...,
 * `response.output_text.done`, `response.content_part.done`,
 * `response.output_item.done` and `response.completed`, each under an
 * `event:` line equal to its type; a failure sends `response.failed` and
 * an `error` event. A client that closes the stream stops the turn; a
 * turn answered without streaming runs to its end even when the client
 * leaves, and its response is stored for `GET`.
 *
 * @module
 */

import { z } from "zod";
import type { Conversation } from "../../../core/agent/conversation.ts";
import { NotFoundError } from "../../../core/errors.ts";
import type { ApiServerDeps } from "./deps.ts";
import { ApiRequestError, toOpenAiError } from "./errors.ts";
import { InputItem, responsesPrompt } from "./prompt.ts";
import { parseBody, randomHex, readJsonBody } from "./request.ts";
import { messageItem, outputText, type ResponseFacts, responseObject } from "./response_object.ts";
import type { ConversationRecord, StoredResponse } from "./response_store.ts";
import { sseResponse, type SseWriter } from "./sse.ts";
import { interrupted, runTurn, type TurnOutcome } from "./turn.ts";

/** The longest conversation name the server keeps. */
export const MAX_CONVERSATION_NAME = 200;

/** The body of `POST /v1/responses`, as far as the server reads it. */
export const ResponsesBody = z.object({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(InputItem)]),
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  conversation: z.union([z.string(), z.object({ id: z.string() }).loose()]).nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
}).loose();

type ResponsesBody = z.infer<typeof ResponsesBody>;

/** Which session a request continues, and what it must wait for. */
interface Target {
  /** The lock the request holds while its turn runs. */
  key?: string;
  previous: StoredResponse | null;
  /** The named conversation, when the request names one. */
  name: string | null;
}

function conversationName(value: ResponsesBody["conversation"]): string | null {
  if (value === null || value === undefined) return null;
  const name = typeof value === "string" ? value : value.id;
  if (name.trim() === "" || name.length > MAX_CONVERSATION_NAME) {
    throw new ApiRequestError(
      400,
      "invalid_request",
      `conversation must be a name of 1 to ${MAX_CONVERSATION_NAME} characters`,
      "conversation",
    );
  }
  return name;
}

function responseNotFound(id: string, param: string | null): ApiRequestError {
  return new ApiRequestError(
    404,
    "response_not_found",
    `Response "${id}" not found: it was never stored (store: false), was deleted, or belongs to ` +
      "another Herald profile",
    param,
  );
}

async function resolveTarget(body: ResponsesBody, deps: ApiServerDeps): Promise<Target> {
  const name = conversationName(body.conversation);
  const previousId = body.previous_response_id ?? null;
  if (name !== null && previousId !== null) {
    throw new ApiRequestError(
      400,
      "invalid_request",
      "Give previous_response_id or conversation, not both: a named conversation already " +
        "continues from its latest response",
      "previous_response_id",
    );
  }
  if (previousId !== null) {
    const previous = await deps.store.get(previousId);
    if (!previous) throw responseNotFound(previousId, "previous_response_id");
    const key = previous.sessionId === null ? undefined : `session:${previous.sessionId}`;
    return { key, previous, name: null };
  }
  if (name !== null) return { key: `conversation:${name}`, previous: null, name };
  return { previous: null, name: null };
}

/**
 * Takes the target's turn: a named conversation's lock, then the lock of
 * the session it continues (which a `previous_response_id` into the same
 * session takes too), so no two requests run on one session at once.
 * Returns the release of both.
 */
async function holdTarget(target: Target, deps: ApiServerDeps): Promise<() => void> {
  const release = await deps.serial.acquire(target.key);
  if (target.name === null) return release;
  let sessionId: string | null | undefined;
  try {
    sessionId = (await deps.store.conversation(target.name))?.sessionId;
  } catch (error) {
    release();
    throw error;
  }
  const releaseSession = await deps.serial.acquire(sessionId ? `session:${sessionId}` : undefined);
  return () => {
    releaseSession();
    release();
  };
}

/** Opens the conversation the request continues (called holding the target's lock). */
async function openTarget(
  target: Target,
  deps: ApiServerDeps,
): Promise<{ conversation: Conversation; prior?: ConversationRecord }> {
  if (target.previous) {
    const resume = target.previous.sessionId ?? undefined;
    try {
      return { conversation: await deps.conversations.open({ resume }) };
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new ApiRequestError(
        404,
        "session_not_found",
        `The session of response "${target.previous.id}" was deleted; start a new conversation`,
        "previous_response_id",
      );
    }
  }
  if (target.name !== null) {
    const prior = await deps.store.conversation(target.name);
    const resume = prior?.sessionId ?? undefined;
    try {
      return { conversation: await deps.conversations.open({ resume }), prior };
    } catch (error) {
      if (!(error instanceof NotFoundError) || resume === undefined) throw error;
      deps.log(
        `API server: the session of conversation "${target.name}" was deleted; it starts afresh`,
      );
      return { conversation: await deps.conversations.open(), prior };
    }
  }
  return { conversation: await deps.conversations.open() };
}

/** One request's response, from its turn to what is stored. */
class ResponseRun {
  readonly facts: ResponseFacts;

  constructor(
    body: ResponsesBody,
    readonly target: Target,
    readonly conversation: Conversation,
    readonly prior: ConversationRecord | undefined,
    readonly deps: ApiServerDeps,
  ) {
    this.facts = {
      id: `resp_${randomHex(16)}`,
      messageId: `msg_${randomHex(16)}`,
      createdAt: deps.clock.now(),
      model: deps.settings.modelName,
      instructions: body.instructions ?? null,
      previousResponseId: target.previous?.id ?? null,
      conversation: target.name,
      metadata: body.metadata ?? {},
      store: body.store ?? true,
    };
  }

  #sessionId(): string | null {
    return this.conversation.sessionId ?? this.target.previous?.sessionId ??
      this.prior?.sessionId ?? null;
  }

  /** Keeps the completed response (when stored) and the named conversation's place. */
  async complete(outcome: TurnOutcome): Promise<Record<string, unknown>> {
    const now = this.deps.clock.now();
    const response = responseObject(this.facts, {
      status: "completed",
      text: outcome.text,
      usage: outcome.usage,
      completedAt: now,
    });
    const sessionId = this.#sessionId();
    if (this.facts.store) {
      await this.deps.store.save({
        id: this.facts.id,
        sessionId,
        conversation: this.target.name,
        createdAt: this.facts.createdAt,
        response,
      });
    }
    await this.#place(this.facts.store ? this.facts.id : null, now);
    return response;
  }

  /** After a failed or interrupted turn: the named conversation keeps its session. */
  async fail(): Promise<void> {
    await this.#place(this.prior?.responseId ?? null, this.deps.clock.now());
  }

  async #place(responseId: string | null, now: number): Promise<void> {
    if (this.target.name === null) return;
    await this.deps.store.setConversation(this.target.name, {
      sessionId: this.#sessionId(),
      responseId,
      updatedAt: now,
    });
  }

  /** Streams the turn's events into `writer`. */
  async stream(prompt: string, writer: SseWriter, signal: AbortSignal): Promise<void> {
    const facts = this.facts;
    let sequence = 0;
    const send = (type: string, fields: Record<string, unknown>) =>
      writer.send({ type, sequence_number: sequence++, ...fields }, type);
    const at = { item_id: facts.messageId, output_index: 0, content_index: 0 };
    send("response.created", { response: responseObject(facts, { status: "in_progress" }) });
    send("response.in_progress", { response: responseObject(facts, { status: "in_progress" }) });
    send("response.output_item.added", {
      output_index: 0,
      item: messageItem(facts, undefined, "in_progress"),
    });
    send("response.content_part.added", { ...at, part: outputText("") });
    let streamed = "";
    try {
      const outcome = await runTurn(this.conversation, prompt, {
        signal,
        onDelta: (delta) => {
          streamed += delta;
          send("response.output_text.delta", { ...at, delta, logprobs: [] });
        },
      });
      if (outcome.aborted) return await this.fail();
      send("response.output_text.done", { ...at, text: outcome.text, logprobs: [] });
      send("response.content_part.done", { ...at, part: outputText(outcome.text) });
      send("response.output_item.done", {
        output_index: 0,
        item: messageItem(facts, outcome.text, "completed"),
      });
      send("response.completed", { response: await this.complete(outcome) });
    } catch (error) {
      await this.fail().catch(() => {});
      const { error: body } = toOpenAiError(error);
      this.deps.log(`API server: response ${facts.id} failed: ${body.message}`);
      send("response.failed", {
        response: responseObject(facts, { status: "failed", error: body, text: streamed }),
      });
      send("error", { code: body.code, message: body.message, param: body.param });
    }
  }
}

/** Answers `POST /v1/responses`. */
export async function createResponse(request: Request, deps: ApiServerDeps): Promise<Response> {
  const body = parseBody(ResponsesBody, await readJsonBody(request));
  const prompt = responsesPrompt(body.input, body.instructions ?? undefined);
  const target = await resolveTarget(body, deps);
  const release = await holdTarget(target, deps);
  let run: ResponseRun;
  try {
    const { conversation, prior } = await openTarget(target, deps);
    run = new ResponseRun(body, target, conversation, prior, deps);
  } catch (error) {
    release();
    throw error;
  }
  const done = async () => {
    await run.conversation.close();
    release();
  };

  if (!body.stream) {
    try {
      const outcome = await runTurn(run.conversation, prompt, {
        signal: deps.stop,
      }).catch(async (error) => {
        await run.fail().catch(() => {});
        throw error;
      });
      if (outcome.aborted) {
        await run.fail();
        throw interrupted();
      }
      return Response.json(await run.complete(outcome));
    } finally {
      await done();
    }
  }
  return sseResponse(async (writer, signal) => {
    try {
      await run.stream(prompt, writer, signal);
    } finally {
      await done();
    }
  }, {
    stop: deps.stop,
    clock: deps.clock,
    onError: (error) => deps.log(`API server: response ${run.facts.id} stream failed: ${error}`),
  });
}

/** Answers `GET /v1/responses/{id}`. */
export async function getResponse(id: string, deps: ApiServerDeps): Promise<Response> {
  const stored = await deps.store.get(id);
  if (!stored) throw responseNotFound(id, null);
  return Response.json(stored.response);
}

/** Answers `DELETE /v1/responses/{id}`. */
export async function deleteResponse(id: string, deps: ApiServerDeps): Promise<Response> {
  if (!(await deps.store.delete(id))) throw responseNotFound(id, null);
  return Response.json({ id, object: "response", deleted: true });
}
