/** The environment a child process starts with: allowlist, passthrough, extras. */

import assert from "node:assert/strict";
import {
  childEnvironment,
  isAllowedChildVariable,
  withoutUserinfo,
} from "../../../adapters/process/mod.ts";

Deno.test("only allowlisted variables are inherited, credentials by any name are not", () => {
  const env = childEnvironment({
    PATH: "/usr/bin",
    HOME: "/home/u",
    LANG: "en_US.UTF-8",
    LC_ALL: "C",
    LC_TIME: "C",
    XDG_CONFIG_HOME: "/home/u/.config",
    XDG_DATA_DIRS: "/usr/share",
    XDG_RUNTIME_DIR: "/run/user/1000",
    TZ: "UTC",
    DENO_DIR: "/cache/deno",
    NO_COLOR: "1",
    AWS_SECRET_ACCESS_KEY: "a",
    MY_SERVICE_KEY: "b",
    GITHUB_PAT: "c",
    DATABASE_URL: "postgres://u:pw@h/db",
    SSH_AUTH_SOCK: "/tmp/agent",
    XDG_SESSION_COOKIE: "x",
    LC_lower: "not a locale category",
    UNSET: undefined,
  }, { caseInsensitive: false });
  assert.deepEqual(env, {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LANG: "en_US.UTF-8",
    LC_ALL: "C",
    LC_TIME: "C",
    XDG_CONFIG_HOME: "/home/u/.config",
    XDG_DATA_DIRS: "/usr/share",
    XDG_RUNTIME_DIR: "/run/user/1000",
    TZ: "UTC",
    DENO_DIR: "/cache/deno",
    NO_COLOR: "1",
  });
});

Deno.test("proxy variables lose their credentials, in both spellings", () => {
  const env = childEnvironment({
    http_proxy: "http://user:secret@proxy:3128",
    HTTPS_PROXY: "https://u:p@ss@proxy.example:8443/",
    ALL_PROXY: "socks5://proxy:1080",
    no_proxy: "localhost,.internal",
  }, { caseInsensitive: false });
  assert.deepEqual(env, {
    http_proxy: "http://proxy:3128",
    HTTPS_PROXY: "https://proxy.example:8443/",
    ALL_PROXY: "socks5://proxy:1080",
    no_proxy: "localhost,.internal",
  });
  assert.equal(withoutUserinfo("user:pw@proxy:3128"), "proxy:3128");
  assert.equal(withoutUserinfo("proxy:3128"), "proxy:3128");
});

Deno.test("passthrough names come from the lookup as they are; the dashboard token never passes", () => {
  const dotenv = new Map([["FROM_DOTENV", "d"], ["HERALD_DASHBOARD_SESSION_TOKEN", "t"]]);
  const parent = { PATH: "/bin", GITHUB_TOKEN: "ghp", https_proxy: "http://u:p@proxy:1" };
  const env = childEnvironment(parent, {
    passthrough: [
      "GITHUB_TOKEN",
      "FROM_DOTENV",
      "MISSING",
      "https_proxy",
      "HERALD_DASHBOARD_SESSION_TOKEN",
    ],
    lookup: (name) => dotenv.get(name) ?? parent[name as keyof typeof parent],
    extra: { HERALD_HOME: "/h", PATH: "/override" },
    caseInsensitive: false,
  });
  assert.deepEqual(env, {
    PATH: "/override",
    GITHUB_TOKEN: "ghp",
    FROM_DOTENV: "d",
    https_proxy: "http://u:p@proxy:1",
    HERALD_HOME: "/h",
  });
});

Deno.test("Windows names match without regard to case there, and only there", () => {
  assert.equal(isAllowedChildVariable("Path", true), true);
  assert.equal(isAllowedChildVariable("SYSTEMROOT", true), true);
  assert.equal(isAllowedChildVariable("Path", false), false);
  assert.equal(isAllowedChildVariable("SystemRoot", false), true);
  assert.deepEqual(
    childEnvironment({ Path: "C:\\Windows", ComSpec: "cmd.exe", Secret_Key: "x" }, {
      caseInsensitive: true,
    }),
    { Path: "C:\\Windows", ComSpec: "cmd.exe" },
  );
});
