/**
 * The terminal questions (cli/prompt.ts) read key by key as a terminal in
 * raw mode delivers them, and line by line from piped input.
 */

import assert from "node:assert/strict";
import {
  PromptCancelledError,
  Prompter,
  PromptInputEndedError,
  type PromptIO,
} from "../../cli/prompt.ts";
import { HeraldError } from "../../core/errors.ts";

/** A prompter over `chunks` (each one read), recording what it writes and raw-mode switches. */
function prompter(chunks: string[], interactive: boolean) {
  const encoder = new TextEncoder();
  let written = "";
  const raw: boolean[] = [];
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  const io: PromptIO = {
    input,
    write: (text) => void (written += text),
    interactive,
    setRaw: (on) => void raw.push(on),
  };
  return { prompt: new Prompter(io), written: () => written, raw };
}

Deno.test("a hidden answer is echoed as stars, Backspace and Ctrl-U edit it, raw mode is restored", async () => {
  const { prompt, written, raw } = prompter(["sk-wrong\x15sk-tez", "\x7fst-key\r"], true);
  assert.equal(await prompt.askHidden("API key"), "sk-test-key");
  assert.ok(!written().includes("sk-"), written());
  assert.match(written(), /^API key: \*+/);
  assert.deepEqual(raw, [true, false]);
});

Deno.test("Ctrl-C cancels a question with a usage error and leaves raw mode", async () => {
  const { prompt, raw } = prompter(["abc\x03"], true);
  await assert.rejects(
    () => prompt.askText("Base URL"),
    (error) => error instanceof PromptCancelledError && error.kind === "usage",
  );
  assert.deepEqual(raw, [true, false]);
});

Deno.test("typed text is echoed, arrow keys are ignored, CR LF is one Enter", async () => {
  const { prompt, written } = prompter(["ht\x1b[Dtp\r\n", "\r"], true);
  assert.equal(await prompt.askText("URL"), "http");
  assert.equal(await prompt.askText("Name", { default: "kept" }), "kept");
  assert.match(written(), /URL: http\r\n/);
  assert.match(written(), /Name \[kept\]: \r\n/);
});

Deno.test("a choice takes a number, a name, or the default, and asks again after a wrong answer", async () => {
  const choices = [
    { label: "OpenAI", value: "openai", name: "openai" },
    { label: "Ollama", value: "ollama", name: "ollama" },
  ];
  const { prompt, written } = prompter(["7\r2\r", "OpenAI\r", "\r"], true);
  assert.equal(await prompt.askChoice("Provider", choices), "ollama");
  assert.match(written(), /"7" is not one of the choices/);
  assert.equal(await prompt.askChoice("Provider", choices), "openai");
  assert.equal(await prompt.askChoice("Provider", choices, { default: 1 }), "ollama");
  assert.match(written(), / {2}1\) OpenAI\n {2}2\) Ollama\n/);
});

Deno.test("piped input gives one line per question and refuses a wrong choice", async () => {
  const { prompt, raw } = prompter(["sk-piped-key\nhttp://x/v1\n9\n"], false);
  assert.equal(await prompt.askHidden("API key"), "sk-piped-key");
  assert.equal(await prompt.askText("URL"), "http://x/v1");
  await assert.rejects(
    () => prompt.askChoice("Provider", [{ label: "a", value: 1 }]),
    (error) => error instanceof HeraldError && error.code === "choice_invalid",
  );
  assert.deepEqual(raw, [], "raw mode is never touched for piped input");
});

Deno.test("input that ends early gives the default, or says which question was left", async () => {
  const { prompt } = prompter([], false);
  assert.equal(await prompt.askText("Model", { default: "m1" }), "m1");
  assert.equal(await prompt.askHidden("API key"), "");
  await assert.rejects(
    () => prompt.askText("Model name"),
    (error) => error instanceof PromptInputEndedError && /"Model name"/.test(error.message),
  );
});
