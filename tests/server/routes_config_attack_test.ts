/**
 * `/api/config` and `/api/env` under hostile input: keys named after
 * Object.prototype members, YAML alias bombs and aliases that name no
 * anchor, and values larger than Herald stores. None is a 500; nothing is
 * written when a request is refused.
 */

import assert from "node:assert/strict";
import {
  MAX_CONFIG_TEXT_BYTES,
  MAX_CONFIG_VALUE_BYTES,
  MAX_ENV_VALUE_BYTES,
} from "../../core/config/mod.ts";
import { PROTOTYPE_KEYS, tempDir } from "../_helpers.ts";
import { readOr, routesApp } from "./_routes.ts";

/** `{"a": {"b": 1}}` for `a.b`, built as JSON text so `__proto__` stays an own key. */
function nested(key: string, value: unknown): string {
  return key.split(".").reduceRight(
    (inner, segment) => `{${JSON.stringify(segment)}: ${inner}}`,
    JSON.stringify(value),
  );
}

function aliasBomb(): string {
  const lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (let i = 1; i < 9; i++) {
    lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(", ")}]`);
  }
  return lines.join("\n") + "\n";
}

const BROKEN_ALIASES: [string, string, RegExp][] = [
  ["an alias that names no anchor", "agent:\n  max_turns: *nope\n", /\*nope names no anchor/],
  ["an alias bomb", aliasBomb(), /aliases expand to too much data/],
];

function prototypeUntouched(): void {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), [
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "__proto__",
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
  ]);
  assert.equal(({} as Record<string, unknown>).x, undefined);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
}

Deno.test("PUT config with keys named after Object.prototype members is a 400 unknown key, never a 500", async () => {
  await using home = await tempDir();
  const { json, request, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.config, "agent:\n  max_turns: 7\n");
  for (const key of PROTOTYPE_KEYS) {
    for (const body of [`{"set": {${JSON.stringify(key)}: 1}}`, `{"config": ${nested(key, 1)}}`]) {
      const response = await request("/api/config", {
        method: "PUT",
        body,
        headers: { "content-type": "application/json" },
      });
      const answer = await response.json();
      assert.equal(response.status, 400, `${body}: ${JSON.stringify(answer)}`);
      assert.equal(answer.error.code, "config_unknown_key", body);
      assert.ok(answer.error.message.includes(`"${key}"`), answer.error.message);
      prototypeUntouched();
    }
  }
  assert.equal(await Deno.readTextFile(main.config), "agent:\n  max_turns: 7\n");
  const { status, body } = await json("GET", "/api/config");
  assert.equal(status, 200);
  assert.equal((body.config as { agent: { max_turns: number } }).agent.max_turns, 7);
});

Deno.test("a config.yaml with keys named after Object.prototype members loads with warnings", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(
    main.config,
    "constructor: 1\n__proto__: {x: 1}\nmodel: {toString: 2, default: m}\n" +
      "auxiliary: {__proto__: {model: x}, constructor: {model: y}}\n",
  );
  const { status, body } = await json("GET", "/api/config");
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual((body.warnings as { path: string }[]).map((w) => w.path), [
    "constructor",
    "__proto__",
    "model.toString",
    "auxiliary.__proto__",
  ]);
  const config = body.config as Record<string, Record<string, unknown>>;
  assert.equal(config.model.default, "m");
  assert.deepEqual(config.auxiliary, { constructor: { model: "y" } });
  prototypeUntouched();

  const { version } = (await json("GET", "/api/config/raw")).body;
  const raw = await json("PUT", "/api/config/raw", {
    text: "hasOwnProperty: 1\n__proto__: {x: 1}\nagent: {max_turns: 4}\n",
    version,
  });
  assert.equal(raw.status, 200, JSON.stringify(raw.body));
  assert.deepEqual((raw.body.warnings as { path: string }[]).map((w) => w.path), [
    "hasOwnProperty",
    "__proto__",
  ]);
  prototypeUntouched();
});

for (const [name, text, reason] of BROKEN_ALIASES) {
  Deno.test(`${name} in config.yaml is a 422 with line and column on read and on every edit`, async () => {
    await using home = await tempDir();
    const { json, main } = await routesApp(home.path);
    await Deno.writeTextFile(main.config, text);
    for (
      const [method, path, body] of [
        ["GET", "/api/config", undefined],
        ["PUT", "/api/config", { set: { "agent.max_turns": 3 } }],
      ] as const
    ) {
      const answer = await json(method, path, body);
      assert.equal(answer.status, 422, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      const error = answer.body.error as unknown as Record<string, unknown>;
      assert.equal(error.code, "config_parse");
      assert.equal(error.file, main.config);
      assert.ok(Number(error.line) >= 1 && Number(error.column) >= 1, JSON.stringify(error));
      assert.match(String(error.reason), reason);
    }
    // The broken file is still shown as it is, so it can be fixed.
    const shown = await json("GET", "/api/config/raw");
    assert.equal(shown.status, 200);
    assert.equal(shown.body.text, text);
    assert.equal(await Deno.readTextFile(main.config), text);
  });

  Deno.test(`PUT raw config with ${name} is a 422 with line and column and writes nothing`, async () => {
    await using home = await tempDir();
    const { json, main } = await routesApp(home.path);
    await Deno.writeTextFile(main.config, "agent:\n  max_turns: 7\n");
    const { version } = (await json("GET", "/api/config/raw")).body;
    const { status, body } = await json("PUT", "/api/config/raw", { text, version });
    assert.equal(status, 422, JSON.stringify(body));
    const error = body.error as unknown as Record<string, unknown>;
    assert.equal(error.code, "config_parse");
    assert.ok(Number(error.line) >= 1 && Number(error.column) >= 1, JSON.stringify(error));
    assert.match(String(error.reason), reason);
    assert.equal(await Deno.readTextFile(main.config), "agent:\n  max_turns: 7\n");
  });
}

Deno.test("PUT config with a value over the limit is a 413 value_too_large naming the key and the limit", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.config, "agent:\n  max_turns: 7\n");
  const big = "x".repeat(MAX_CONFIG_VALUE_BYTES + 1);
  for (
    const body of [
      { set: { "model.default": big } },
      { config: { model: { default: big } } },
      { set: { "model.api_key": "k".repeat(MAX_ENV_VALUE_BYTES + 1) } },
    ]
  ) {
    const { status, body: answer } = await json("PUT", "/api/config", body);
    assert.equal(status, 413, JSON.stringify(answer).slice(0, 300));
    assert.equal(answer.error?.code, "value_too_large");
    assert.match(answer.error!.message, /"model\.(default|api_key)"/);
    assert.match(
      answer.error!.message,
      /\d+ bytes \(64\.0 KiB\), over the 64 KiB limit \(65536 bytes\)/,
    );
  }
  assert.equal(await Deno.readTextFile(main.config), "agent:\n  max_turns: 7\n");
  assert.doesNotMatch(await readOr(main.env), /kkkk/);
});

Deno.test("PUT raw config over the file limit is a 413 value_too_large and writes nothing", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.config, "agent:\n  max_turns: 7\n");
  const { version } = (await json("GET", "/api/config/raw")).body;
  const text = "plugins:\n" + ("  - " + "p".repeat(1000) + "\n").repeat(1100);
  assert.ok(text.length > MAX_CONFIG_TEXT_BYTES);
  const { status, body } = await json("PUT", "/api/config/raw", { text, version });
  assert.equal(status, 413, JSON.stringify(body).slice(0, 300));
  assert.equal(body.error?.code, "value_too_large");
  assert.match(body.error!.message, /over the 1 MiB limit/);
  assert.ok(body.error!.message.includes(main.config), body.error!.message);
  assert.equal(await Deno.readTextFile(main.config), "agent:\n  max_turns: 7\n");
});

Deno.test("PUT env with a value over the limit is a 413 value_too_large and writes nothing", async () => {
  await using home = await tempDir();
  const { json, main } = await routesApp(home.path);
  await Deno.writeTextFile(main.env, "KEEP=1\n");
  const { status, body } = await json("PUT", "/api/env", {
    key: "BIG_TOKEN",
    value: "t".repeat(MAX_ENV_VALUE_BYTES + 1),
  });
  assert.equal(status, 413, JSON.stringify(body).slice(0, 300));
  assert.equal(body.error?.code, "value_too_large");
  assert.match(
    body.error!.message,
    /"BIG_TOKEN" is .* over the 64 KiB limit \(65536 bytes\) for one \.env value/,
  );
  assert.equal(await Deno.readTextFile(main.env), "KEEP=1\n");
  const fits = await json("PUT", "/api/env", { key: "OK_TOKEN", value: "t".repeat(1000) });
  assert.equal(fits.status, 200);
});
