/**
 * The API server's settings and its response store on disk: defaults and
 * overrides, refused settings, stored responses and named conversations,
 * and corrupt files that are set aside rather than overwritten.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { HeraldError } from "../../../core/errors.ts";
import {
  apiServerEnabled,
  readApiServerSettings,
  ResponseStore,
} from "../../../adapters/channels/api_server/mod.ts";
import { tempDir } from "../../_helpers.ts";

const lookup = (env: Record<string, string>) => (name: string) =>
  Object.hasOwn(env, name) ? env[name] : undefined;

Deno.test("the API server is enabled by API_SERVER_ENABLED or platforms.api_server.enabled", () => {
  assert.equal(apiServerEnabled(lookup({}), {}), false);
  assert.equal(apiServerEnabled(lookup({ API_SERVER_ENABLED: "true" }), {}), true);
  assert.equal(apiServerEnabled(lookup({ API_SERVER_ENABLED: "no" }), {}), false);
  assert.equal(apiServerEnabled(lookup({}), { enabled: true }), true);
});

Deno.test("settings default to loopback:8642 and a model named after the profile", () => {
  const key = { API_SERVER_KEY: "k" };
  assert.deepEqual(readApiServerSettings("default", lookup(key), {}), {
    key: "k",
    host: "127.0.0.1",
    port: 8642,
    modelName: "herald",
  });
  assert.equal(readApiServerSettings("work", lookup(key), {}).modelName, "herald-work");
  assert.deepEqual(
    readApiServerSettings("work", lookup(key), { host: "0.0.0.0", port: 9000, model_name: "m" }),
    { key: "k", host: "0.0.0.0", port: 9000, modelName: "m" },
  );
  const env = lookup({ ...key, API_SERVER_HOST: "::1", API_SERVER_PORT: "0" });
  assert.deepEqual(readApiServerSettings("work", env, { port: 9000 }), {
    key: "k",
    host: "::1",
    port: 0,
    modelName: "herald-work",
  });
});

Deno.test("a missing key or a bad port is platform_not_configured, never showing the key", () => {
  const refused = (env: Record<string, string>, pattern: RegExp) =>
    assert.throws(
      () => readApiServerSettings("default", lookup(env), {}),
      (error) =>
        error instanceof HeraldError && error.code === "platform_not_configured" &&
        pattern.test(error.message) && !error.message.includes("secret-key"),
    );
  refused({}, /API_SERVER_KEY/);
  refused({ API_SERVER_KEY: "  " }, /API_SERVER_KEY/);
  refused({ API_SERVER_KEY: "secret-key", API_SERVER_PORT: "http" }, /API_SERVER_PORT "http"/);
  refused({ API_SERVER_KEY: "secret-key", API_SERVER_PORT: "70000" }, /0 to 65535/);
});

Deno.test("the store keeps responses and named conversations across instances", async () => {
  await using dir = await tempDir();
  const logs: string[] = [];
  const store = new ResponseStore(dir.path, (line) => logs.push(line));
  const id = `resp_${"a".repeat(32)}`;
  assert.equal(await store.get(id), undefined);
  await store.save({
    id,
    sessionId: "ses_1",
    conversation: "__proto__",
    createdAt: 1,
    response: { id, object: "response" },
  });
  await store.setConversation("__proto__", { sessionId: "ses_1", responseId: id, updatedAt: 2 });
  await store.setConversation("other", { sessionId: null, responseId: null, updatedAt: 3 });

  const again = new ResponseStore(dir.path, (line) => logs.push(line));
  assert.equal((await again.get(id))?.sessionId, "ses_1");
  assert.deepEqual(await again.conversation("__proto__"), {
    sessionId: "ses_1",
    responseId: id,
    updatedAt: 2,
  });
  assert.equal((await again.conversation("other"))?.sessionId, null);
  assert.equal(await again.conversation("toString"), undefined);
  assert.equal(
    await again.get("../conversations"),
    undefined,
    "ids outside the pattern are never read",
  );
  assert.equal(await again.delete(id), true);
  assert.equal(await again.delete(id), false);
  assert.deepEqual(logs, []);
});

Deno.test("corrupt files are set aside or read as missing, never overwritten", async () => {
  await using dir = await tempDir();
  const logs: string[] = [];
  const store = new ResponseStore(dir.path, (line) => logs.push(line));
  const conversations = join(dir.path, "conversations.json");
  await Deno.writeTextFile(conversations, "{ not json");
  assert.equal(await store.conversation("a"), undefined);
  await store.setConversation("a", { sessionId: "ses_2", responseId: null, updatedAt: 1 });
  assert.equal((await store.conversation("a"))?.sessionId, "ses_2");
  const aside = [];
  for await (const entry of Deno.readDir(dir.path)) {
    if (entry.name.startsWith("conversations.json.corrupt-")) aside.push(entry.name);
  }
  assert.equal(aside.length, 1);
  assert.equal(await Deno.readTextFile(join(dir.path, aside[0])), "{ not json");

  const id = `resp_${"b".repeat(32)}`;
  await Deno.mkdir(join(dir.path, "responses"));
  await Deno.writeTextFile(join(dir.path, "responses", `${id}.json`), "[]");
  assert.equal(await store.get(id), undefined);
  assert.equal(logs.length, 3, logs.join("\n"));
});
