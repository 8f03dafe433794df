/**
 * Saving a session as a file: the same `herald.session.v1` JSON
 * `herald sessions export` prints (`GET /api/sessions/:id/export`), handed
 * to the browser as a download.
 */

import { api } from "../../lib/api.ts";

/** Downloads session `id` as `herald-<id>.json`; resolves to the file name. */
export async function exportSession(id: string): Promise<string> {
  const exported = await api<unknown>("GET", `/api/sessions/${encodeURIComponent(id)}/export`);
  // The server's text is JSON.stringify(value, null, 2) plus a newline; so is this.
  const blob = new Blob([JSON.stringify(exported, null, 2) + "\n"], { type: "application/json" });
  const name = `herald-${id.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`;
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}
