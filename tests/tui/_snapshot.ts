/**
 * Snapshot files of a headless terminal's screen, for `PtyScreen.snapshot`
 * (tests/tui/_pty.ts): a standalone HTML page with each cell's colours and
 * attributes (bold, italic, dim, underline, strike-through, inverse,
 * invisible) and the cursor, and, when Chromium is installed, a PNG
 * screenshot of that page.
 *
 * @module
 */

import type xterm from "@xterm/headless";

const DEFAULT_FG = "#d3d7cf";
const DEFAULT_BG = "#1e1e1e";

/** The 16 base colours (the Tango palette xterm.js uses by default). */
const BASE_COLOURS = [
  "#2e3436",
  "#cc0000",
  "#4e9a06",
  "#c4a000",
  "#3465a4",
  "#75507b",
  "#06989a",
  "#d3d7cf",
  "#555753",
  "#ef2929",
  "#8ae234",
  "#fce94f",
  "#729fcf",
  "#ad7fa8",
  "#34e2e2",
  "#eeeeec",
];

const hex = (value: number) => value.toString(16).padStart(2, "0");

/** The CSS colour of 256-colour palette entry `index`. */
export function paletteColour(index: number): string {
  if (index < 16) return BASE_COLOURS[index];
  if (index < 232) {
    const levels = [0, 95, 135, 175, 215, 255];
    const n = index - 16;
    return `#${hex(levels[Math.floor(n / 36)])}${hex(levels[Math.floor(n / 6) % 6])}${
      hex(levels[n % 6])
    }`;
  }
  const grey = 8 + (index - 232) * 10;
  return `#${hex(grey)}${hex(grey)}${hex(grey)}`;
}

type Cell = NonNullable<ReturnType<xterm.IBufferLine["getCell"]>>;

function colour(mode: "fg" | "bg", cell: Cell): string | undefined {
  const value = mode === "fg" ? cell.getFgColor() : cell.getBgColor();
  if (mode === "fg" ? cell.isFgRGB() : cell.isBgRGB()) {
    return `#${value.toString(16).padStart(6, "0")}`;
  }
  if (mode === "fg" ? cell.isFgPalette() : cell.isBgPalette()) return paletteColour(value);
  return undefined;
}

/** The inline CSS of one cell (empty for a default cell). */
function cellStyle(cell: Cell, isCursor: boolean): string {
  let fg = colour("fg", cell);
  let bg = colour("bg", cell);
  if (cell.isInverse()) [fg, bg] = [bg ?? DEFAULT_BG, fg ?? DEFAULT_FG];
  if (isCursor) [fg, bg] = [bg ?? DEFAULT_BG, fg ?? DEFAULT_FG];
  const style: string[] = [];
  if (fg) style.push(`color:${fg}`);
  if (bg) style.push(`background:${bg}`);
  if (cell.isBold()) style.push("font-weight:bold");
  if (cell.isItalic()) style.push("font-style:italic");
  if (cell.isDim()) style.push("opacity:0.6");
  const lines = [cell.isUnderline() && "underline", cell.isStrikethrough() && "line-through"]
    .filter(Boolean);
  if (lines.length > 0) style.push(`text-decoration:${lines.join(" ")}`);
  if (cell.isInvisible()) style.push("visibility:hidden");
  return style.join(";");
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Whether the program hid the cursor (xterm.js keeps this outside its public API). */
function cursorHidden(term: xterm.Terminal): boolean {
  const core =
    (term as unknown as { _core?: { coreService?: { isCursorHidden?: boolean } } })._core;
  return core?.coreService?.isCursorHidden === true;
}

/** The visible screen of `term` as an HTML page titled `title`. */
export function screenHtml(term: xterm.Terminal, title: string): string {
  const buffer = term.buffer.active;
  const showCursor = !cursorHidden(term);
  const rows: string[] = [];
  const scratch = buffer.getNullCell();
  for (let row = 0; row < term.rows; row++) {
    const line = buffer.getLine(buffer.baseY + row);
    let html = "";
    let runStyle = "";
    let runText = "";
    const flush = () => {
      if (runText === "") return;
      html += runStyle
        ? `<span style="${runStyle}">${escapeHtml(runText)}</span>`
        : escapeHtml(runText);
      runText = "";
    };
    for (let col = 0; col < term.cols; col++) {
      const cell = line?.getCell(col, scratch);
      if (!cell) {
        flush();
        runStyle = "";
        runText += " ";
        continue;
      }
      // The right half of a wide character.
      if (cell.getWidth() === 0) continue;
      const isCursor = showCursor && row === buffer.cursorY && col === buffer.cursorX;
      const style = cellStyle(cell, isCursor);
      if (style !== runStyle) {
        flush();
        runStyle = style;
      }
      runText += cell.getChars() || " ";
    }
    flush();
    // Trailing unstyled spaces add nothing to the page.
    rows.push(html.replace(/ +$/, ""));
  }
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
html,body{margin:0;background:${DEFAULT_BG}}
pre{margin:0;padding:12px;color:${DEFAULT_FG};background:${DEFAULT_BG};
font:14px/17px "DejaVu Sans Mono","Liberation Mono",monospace;white-space:pre}
</style></head>
<body><pre>${rows.join("\n")}</pre></body></html>
`;
}

/** Where Chromium is installed, if it is. */
export function findChromium(): string | undefined {
  for (const path of ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // Not installed there.
    }
  }
  return undefined;
}

/** Cell size the HTML page is laid out with (14px/17px monospace, 12px padding). */
const CELL_WIDTH_PX = 9;
const CELL_HEIGHT_PX = 17;
const PAGE_PADDING_PX = 12;
const CHROMIUM_TIMEOUT_MS = 30_000;

/**
 * Renders an HTML snapshot to a PNG with headless Chromium, sized for a
 * `cols` x `rows` screen. Best-effort: resolves with the PNG's path, or
 * undefined when Chromium is missing or fails (never throws).
 */
export async function renderPng(
  htmlPath: string,
  pngPath: string,
  size: { cols: number; rows: number },
  chromium: string | undefined = findChromium(),
): Promise<string | undefined> {
  if (!chromium) return undefined;
  const profile = await Deno.makeTempDir({ prefix: "herald-chromium-" });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), CHROMIUM_TIMEOUT_MS);
  try {
    const width = size.cols * CELL_WIDTH_PX + 2 * PAGE_PADDING_PX;
    const height = size.rows * CELL_HEIGHT_PX + 2 * PAGE_PADDING_PX;
    const output = await new Deno.Command(chromium, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        `--user-data-dir=${profile}`,
        `--window-size=${width},${height}`,
        `--screenshot=${pngPath}`,
        new URL(`file://${htmlPath}`).href,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "null",
      signal: controller.signal,
    }).output();
    if (!output.success) return undefined;
    return (await Deno.stat(pngPath)).isFile ? pngPath : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}
