/**
 * The Codex runtime as a person meets it in the terminal: `herald chat`
 * behind a real pseudo-terminal with `model.openai_runtime:
 * codex_app_server`, the real `codex app-server` and the scripted
 * Responses model. Codex's command approval is asked in the TUI with the
 * command and its folder; the snapshot is kept in .artifacts/tui/.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { startModelServer } from "../fakes/model_server.ts";
import { startResponsesModel } from "../fakes/responses_model.ts";
import { configureModel } from "../e2e/_herald.ts";
import { codexBinary, codexHome } from "../codex_cli.ts";
import { tempDir } from "../_helpers.ts";
import { PtyScreen } from "./_pty.ts";

Deno.test("tui: a Codex command asks with its folder, runs once approved, and /codex-runtime shows the state", async () => {
  const program = await codexBinary();
  await using dir = await tempDir();
  await using own = await startModelServer();
  await using responses = await startResponsesModel();
  await using codex = await codexHome({ baseUrl: responses.baseUrl });
  const home = join(dir.path, "home");
  const work = join(dir.path, "work");
  await Deno.mkdir(work, { recursive: true });
  await configureModel(home, own.openaiBaseUrl, "  openai_runtime: codex_app_server\n");
  await using screen = PtyScreen.spawn({
    cwd: work,
    env: {
      HERALD_HOME: home,
      HOME: dir.path,
      PATH: `${dirname(program)}:${Deno.env.get("PATH")}`,
      ...codex.env,
    },
    args: ["chat"],
  });
  await screen.waitFor(/^›( |$)/m);
  await screen.type("RUN echo from-the-tui > tui.txt");
  screen.press("enter");
  await screen.waitFor("Codex requests exec in");
  await screen.waitFor("echo from-the-tui > tui.txt");
  await screen.waitFor(`${work}:`);
  await screen.snapshot("codex-approval");
  // A deliberate key press: the question ignores keys in its first moments.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await screen.type("o");
  await screen.waitFor("Done:");
  assert.equal(await Deno.readTextFile(join(work, "tui.txt")), "from-the-tui\n");
  await screen.type("/codex-runtime");
  screen.press("enter");
  await screen.waitFor("Runtime: codex_app_server");
  await screen.snapshot("codex-runtime-state");
  await screen.type("/exit");
  screen.press("enter");
  assert.equal((await screen.exited).exitCode, 0);
  assert.equal(own.requests.length, 0, "Herald's own model is not called");
});
