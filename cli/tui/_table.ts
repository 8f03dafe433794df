/**
 * Pipe tables of the streamed Markdown drawn as aligned columns (rows are
 * split and delimiter rows read by core/text/markdown_syntax.ts).
 *
 * @module
 */

import type { Align } from "../../core/text/markdown_syntax.ts";
import { renderInline } from "./_inline.ts";
import { displayWidth, type Style } from "./style.ts";

/** A table being read: header cells, alignments, rows, and its source lines. */
export interface Table {
  header: string[];
  aligns: Align[];
  rows: string[][];
  /** The source lines, for the fallback. */
  source: string[];
}

/** Pads a cell to `width` columns. */
function pad(text: string, width: number, align: Align): string {
  const room = width - displayWidth(text);
  if (room <= 0) return text;
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") {
    const left = Math.floor(room / 2);
    return " ".repeat(left) + text + " ".repeat(room - left);
  }
  return text + " ".repeat(room);
}

/**
 * The table as aligned columns (header in bold, a rule under it), or null
 * when it is wider than `width`. Rows with fewer cells are padded; extra
 * cells join the last one, so no text is dropped.
 */
export function renderTable(table: Table, style: Style, width: number): string[] | null {
  const columns = table.header.length;
  const fit = (cells: string[]) => {
    const row = cells.slice(0, columns);
    if (cells.length > columns) row[columns - 1] = cells.slice(columns - 1).join(" | ");
    while (row.length < columns) row.push("");
    return row.map((cell) => renderInline(cell, style));
  };
  const header = fit(table.header).map((cell) => style.bold(cell));
  const rows = table.rows.map(fit);
  const widths = header.map((cell, c) =>
    Math.max(1, displayWidth(cell), ...rows.map((row) => displayWidth(row[c])))
  );
  const total = widths.reduce((sum, w) => sum + w, 0) + 3 * (columns - 1);
  if (total > width) return null;
  const bar = style.muted(" │ ");
  const render = (row: string[]) =>
    row.map((cell, c) => pad(cell, widths[c], table.aligns[c])).join(bar).trimEnd();
  return [
    render(header),
    style.muted(widths.map((w) => "─".repeat(w)).join("─┼─")),
    ...rows.map(render),
  ];
}
