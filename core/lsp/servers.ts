/**
 * Which language server handles which file: the built-in servers
 * (typescript-language-server for TypeScript and JavaScript, pyright for
 * Python) merged with the `lsp.servers` section of the configuration, and
 * the language id a document is opened with.
 *
 * @module
 */

/** One server entry as `lsp.servers.<id>` configures it. */
export interface LspServerConfig {
  /** Program and arguments; the program is a bare name or a path. */
  command?: string[];
  /** File extensions it handles, without the dot (`ts`, `py`). */
  extensions?: string[];
  /** True turns a server off (a built-in one too). */
  disabled?: boolean;
}

/** A server ready to be matched against files. */
export interface LspServerSpec {
  id: string;
  command: string[];
  /** Lower-case extensions without the dot. */
  extensions: string[];
}

/** The built-in servers, used unless configured otherwise. */
export const DEFAULT_LSP_SERVERS: Readonly<Record<string, Required<LspServerConfig>>> = {
  typescript: {
    command: ["typescript-language-server", "--stdio"],
    extensions: ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"],
    disabled: false,
  },
  pyright: {
    command: ["pyright-langserver", "--stdio"],
    extensions: ["py", "pyi"],
    disabled: false,
  },
};

const LANGUAGE_IDS: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "typescriptreact",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascriptreact",
  py: "python",
  pyi: "python",
  rs: "rust",
  go: "go",
  rb: "ruby",
  sh: "shellscript",
  yml: "yaml",
  md: "markdown",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  hpp: "cpp",
  cs: "csharp",
};

function normalizeExtension(extension: string): string {
  return extension.replace(/^\./, "").toLowerCase();
}

/**
 * The servers in effect: the built-ins with their configured overrides,
 * plus every configured server that has a command and extensions; disabled
 * ones left out.
 *
 * @example
 * ```ts
 * lspServers({ pyright: { disabled: true } }).map((s) => s.id); // ["typescript"]
 * ```
 */
export function lspServers(
  configured: Readonly<Record<string, LspServerConfig>> = {},
): LspServerSpec[] {
  const ids = [...new Set([...Object.keys(DEFAULT_LSP_SERVERS), ...Object.keys(configured)])];
  const specs: LspServerSpec[] = [];
  for (const id of ids) {
    const base: LspServerConfig = DEFAULT_LSP_SERVERS[id] ?? {};
    const own = configured[id] ?? {};
    const command = own.command ?? base.command;
    const extensions = own.extensions ?? base.extensions;
    if (own.disabled ?? base.disabled) continue;
    if (!command?.length || !extensions?.length) continue;
    specs.push({ id, command: [...command], extensions: extensions.map(normalizeExtension) });
  }
  return specs;
}

/** The extension of a path, lower case, without the dot ("" when none). */
export function fileExtension(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

/**
 * The server for `path`: the first whose extensions hold the file's.
 *
 * @example
 * ```ts
 * serverForPath(lspServers(), "/w/a.tsx")?.id; // "typescript"
 * ```
 */
export function serverForPath(
  specs: readonly LspServerSpec[],
  path: string,
): LspServerSpec | undefined {
  const extension = fileExtension(path);
  if (extension === "") return undefined;
  return specs.find((spec) => spec.extensions.includes(extension));
}

/** The LSP language id a file is opened with (`typescript`, `python`, ...). */
export function languageIdFor(path: string): string {
  const extension = fileExtension(path);
  return LANGUAGE_IDS[extension] ?? extension;
}

/** Files whose presence makes a folder a project root, nearest first. */
export const WORKSPACE_MARKERS: readonly string[] = [
  ".git",
  "package.json",
  "tsconfig.json",
  "jsconfig.json",
  "deno.json",
  "deno.jsonc",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "pyrightconfig.json",
  "Cargo.toml",
  "go.mod",
];

/** How many folders are looked at, from the file's own upwards, for a marker. */
export const MAX_ROOT_STEPS = 64;
