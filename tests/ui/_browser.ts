/**
 * The web app under test as a person meets it: a real `herald dashboard`
 * process (its own home, the model pointed at the scripted model server) and
 * a real Chromium driven by playwright-core. Every console message is
 * recorded (so a test can check a secret never reached the console);
 * console errors and uncaught page errors are collected too, and `dispose`
 * fails the test when any arrived.
 * Screenshots go to .artifacts/ui/.
 *
 * Chromium comes from Debian's `chromium` package, which `.ci/run` installs;
 * without it the browser tests are skipped locally and fail under CI.
 *
 * @module
 */

/// <reference path="./_dom.d.ts" />
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { REPO_ROOT } from "../_helpers.ts";
import { configureModel, runHerald, startDashboardProcess } from "../e2e/_herald.ts";
import { type ModelServer, type ScriptedReply, startModelServer } from "../fakes/model_server.ts";
import { findChromium } from "../tui/_snapshot.ts";

/** Chromium's path, when installed. */
export const CHROMIUM: string | undefined = Deno.env.get("HERALD_CHROMIUM") ?? findChromium();

/**
 * `ignore` for a browser test: skipped locally without Chromium, never under
 * CI (where a missing Chromium must fail the run, not hide it).
 */
export const NO_BROWSER: boolean = CHROMIUM === undefined && !Deno.env.get("CI");

/** Launches headless Chromium the way the browser tests and the web app bench run it. */
export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) {
    throw new Error(
      "Chromium is not installed: apt-get install -y chromium (or set HERALD_CHROMIUM)",
    );
  }
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/** Where screenshots are written. */
export const ARTIFACTS: string = join(REPO_ROOT, ".artifacts", "ui");

/** The session token every rig's dashboard runs with. */
export const RIG_TOKEN = "ui-test-token-0123456789abcdef";

/** The phone screen the issue names. */
export const PHONE = { width: 390, height: 844 } as const;
/** The desktop screen the issue names. */
export const DESKTOP = { width: 1280, height: 800 } as const;

/** Options of {@link startUiRig}. */
export interface UiRigOptions {
  /** Browser viewport; defaults to {@link DESKTOP}. */
  viewport?: { width: number; height: number };
  /** Model replies queued before the page opens. */
  replies?: ScriptedReply[];
  /** Named profiles to create (each with its model pointed at the same server) before start. */
  profiles?: string[];
  /** Extra YAML appended to every profile's config.yaml. */
  configExtra?: string;
  /** Extra `herald dashboard` arguments. */
  dashboardArgs?: string[];
  /** Extra environment for the dashboard process. */
  env?: Record<string, string>;
  /** The dashboard's working directory (the agent's tools work there); defaults to the home. */
  cwd?: string;
  /** The path to open first (default `/chat`); `null` opens nothing. */
  open?: string | null;
  /** Console messages matching one of these are not counted as errors. */
  allowConsole?: RegExp[];
  /** Prefers the dark colour scheme. */
  dark?: boolean;
}

/** A running dashboard with a browser page on it. */
export interface UiRig extends AsyncDisposable {
  /** The Herald root (`HERALD_HOME`) of the dashboard. */
  home: string;
  /** The dashboard's base URL (`http://127.0.0.1:<port>/`). */
  url: URL;
  /** The scripted model server. */
  model: ModelServer;
  browser: Browser;
  page: Page;
  /** Console errors and page errors seen so far (less the allowed ones). */
  consoleErrors: string[];
  /** The text of every console message (any level, allowed or not) and page error so far. */
  consoleMessages: string[];
  /** Opens `path` (with its query) in the page and waits for the app's shell. */
  open(path: string): Promise<void>;
  /** Writes .artifacts/ui/<name>.png of the whole page. */
  screenshot(name: string): Promise<string>;
  /** Calls the dashboard's REST API with the token (for setup and checks). */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Runs `herald <args>` against the same home. */
  herald(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /**
   * Stops the dashboard and starts another on the same port with `token`
   * (as a person restarting `herald dashboard` would; the page stays open).
   * {@link UiRig.api} keeps sending {@link RIG_TOKEN}.
   */
  restartDashboard(token: string): Promise<void>;
}

/** Starts the scripted model server, a dashboard on a free port and Chromium. */
export async function startUiRig(options: UiRigOptions = {}): Promise<UiRig> {
  const home = await Deno.makeTempDir({ prefix: "herald-ui-" });
  const model = await startModelServer({ replies: options.replies ?? [] });
  const cleanups: (() => Promise<unknown>)[] = [
    () => Deno.remove(home, { recursive: true }),
    () => model.close(),
  ];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => {});
  };
  try {
    await configureModel(home, model.openaiBaseUrl, options.configExtra ?? "");
    const herald = async (args: string[]) =>
      await runHerald({ args, home, env: { CUSTOM_API_KEY: "k" } });
    for (const name of options.profiles ?? []) {
      const made = await herald(["profile", "create", name, "--no-skills"]);
      if (made.code !== 0) throw new Error(`profile create ${name}: ${made.stderr}`);
      await configureModel(
        join(home, "profiles", name),
        model.openaiBaseUrl,
        options.configExtra ?? "",
      );
    }
    let { child, url } = await startDashboard(home, options);
    const stopDashboard = async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await child.status;
    };
    cleanups.push(() => stopDashboard());
    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    const context = await browser.newContext({
      viewport: options.viewport ?? DESKTOP,
      colorScheme: options.dark ? "dark" : "light",
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const consoleErrors: string[] = [];
    const consoleMessages: string[] = [];
    const allowed = (text: string) =>
      (options.allowConsole ?? []).some((pattern) => pattern.test(text));
    page.on("console", (message) => {
      consoleMessages.push(message.text());
      if (message.type() === "error" && !allowed(message.text())) {
        consoleErrors.push(message.text());
      }
    });
    page.on("pageerror", (error) => {
      consoleMessages.push(`pageerror: ${error.message}`);
      if (!allowed(error.message)) consoleErrors.push(`pageerror: ${error.message}`);
    });
    const rig: UiRig = {
      home,
      url,
      model,
      browser,
      page,
      consoleErrors,
      consoleMessages,
      async open(path) {
        await page.goto(new URL(path, url).href);
        await page.waitForSelector("#app > *");
      },
      async screenshot(name) {
        await Deno.mkdir(ARTIFACTS, { recursive: true });
        const path = join(ARTIFACTS, `${name}.png`);
        await page.screenshot({ path, fullPage: true });
        return path;
      },
      async api<T>(method: string, path: string, body?: unknown) {
        const response = await fetch(new URL(path, url), {
          method,
          headers: { "X-Herald-Session-Token": RIG_TOKEN, "Content-Type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
        return (text ? JSON.parse(text) : undefined) as T;
      },
      herald,
      async restartDashboard(token) {
        await stopDashboard();
        const port = url.port || "80";
        ({ child, url } = await startDashboard(home, {
          ...options,
          dashboardArgs: [...(options.dashboardArgs ?? []), "--port", port],
          env: { ...options.env, HERALD_DASHBOARD_SESSION_TOKEN: token },
        }));
        rig.url = url;
      },
      async [Symbol.asyncDispose]() {
        await cleanup();
        if (consoleErrors.length > 0) {
          throw new Error(`the browser console logged errors:\n${consoleErrors.join("\n")}`);
        }
      },
    };
    if (options.open !== null) await rig.open(options.open ?? "/chat");
    return rig;
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function startDashboard(
  home: string,
  options: UiRigOptions,
): Promise<{ child: Deno.ChildProcess; url: URL }> {
  const dashboard = await startDashboardProcess({
    home,
    dashboardArgs: options.dashboardArgs,
    cwd: options.cwd ?? home,
    env: { HERALD_DASHBOARD_SESSION_TOKEN: RIG_TOKEN, CUSTOM_API_KEY: "k", ...options.env },
    stderr: "inherit",
  });
  // Keep draining stdout so the process never blocks on a full pipe.
  dashboard.restOfStdout().catch(() => {});
  const url = new URL(dashboard.url);
  // A public bind (0.0.0.0) is reached through loopback, as a browser on this machine would.
  if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
  url.hash = "";
  url.search = "";
  url.pathname = "/";
  return { child: dashboard.child, url };
}
