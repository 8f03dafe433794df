/**
 * Line diffs, shared by the terminal and the web app: what a patch or a file
 * write changed, as a minimal edit script (Myers) with a few lines of
 * context around each change and the longer unchanged runs folded into gaps.
 * Pure: the callers draw the lines.
 *
 * @example
 * ```ts
 * lineDiff("a\nb\nc\n", "a\nB\nc\n");
 * // ctx a (1,1), del b (old 2), add B (new 2), ctx c (3,3)
 * ```
 *
 * @module
 */

/** One line of a diff: added, deleted, unchanged context, or a run of unchanged lines left out. */
export interface DiffLine {
  kind: "add" | "del" | "ctx" | "gap";
  /** The line's text; for a gap, how many lines it stands for ("12 unchanged lines"). */
  text: string;
  /** 1-based line number in the old text (del, ctx). */
  oldNo?: number;
  /** 1-based line number in the new text (add, ctx). */
  newNo?: number;
  /** For a gap: the unchanged lines it stands for (a viewer may show them on demand). */
  hidden?: DiffLine[];
}

/** Inputs above this many lines (after the common start and end) are not searched for a minimal diff. */
const MAX_DIFF_LINES = 2_000;
/** The most edits the search looks for before it settles for a replacement. */
const MAX_EDITS = 1_500;

type Op = "=" | "-" | "+";

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => line.endsWith("\r") ? line.slice(0, -1) : line);
}

/**
 * Myers' O(ND) shortest edit script over line ids, or null when it needs
 * more than `maxEdits` edits.
 */
function myers(a: Int32Array, b: Int32Array, maxEdits: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, maxEdits); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
        ? v[offset + k + 1]
        : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const saved = trace[d];
    const at = (k: number) => saved[k + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push("=");
      x--;
      y--;
    }
    ops.push(x === prevX ? "+" : "-");
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push("=");
    x--;
    y--;
  }
  return ops.reverse();
}

/** The edit script: common start and end kept, the middle searched or, when too big, replaced. */
function editScript(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ids = new Map<string, number>();
  const idsOf = (lines: string[]) =>
    Int32Array.from(lines, (line) => {
      let id = ids.get(line);
      if (id === undefined) ids.set(line, id = ids.size);
      return id;
    });
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  let middle: Op[] | null = null;
  if (midA.length <= MAX_DIFF_LINES && midB.length <= MAX_DIFF_LINES) {
    middle = myers(idsOf(midA), idsOf(midB), MAX_EDITS);
  }
  middle ??= [...midA.map((): Op => "-"), ...midB.map((): Op => "+")];
  const same = (count: number): Op[] => Array.from({ length: count }, () => "=");
  return [...same(start), ...middle, ...same(a.length - endA)];
}

/**
 * The changed lines between two texts with `context` unchanged lines
 * around each change; longer unchanged runs become one "gap" line (which
 * keeps the lines it hides in `hidden`). Empty
 * when the texts have the same lines. Inputs of more than 2,000 differing
 * lines, or needing more than 1,500 edits, are shown as a replacement of
 * the differing part.
 *
 * @example
 * ```ts
 * lineDiff("a\nb", "a\nc"); // ctx a, del b, add c
 * ```
 */
export function lineDiff(before: string, after: string, context = 3): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = editScript(a, b);
  const all: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  for (const op of ops) {
    if (op === "=") {
      all.push({ kind: "ctx", text: b[newNo], oldNo: ++oldNo, newNo: ++newNo });
    } else if (op === "-") {
      all.push({ kind: "del", text: a[oldNo], oldNo: ++oldNo });
    } else {
      all.push({ kind: "add", text: b[newNo], newNo: ++newNo });
    }
  }
  if (all.every((line) => line.kind === "ctx")) return [];
  const keep = new Uint8Array(all.length);
  all.forEach((line, index) => {
    if (line.kind === "ctx") return;
    for (
      let i = Math.max(0, index - context);
      i <= Math.min(all.length - 1, index + context);
      i++
    ) {
      keep[i] = 1;
    }
  });
  const out: DiffLine[] = [];
  for (let i = 0; i < all.length;) {
    if (keep[i]) {
      out.push(all[i++]);
      continue;
    }
    let j = i;
    while (j < all.length && !keep[j]) j++;
    const count = j - i;
    out.push({
      kind: "gap",
      text: `${count} unchanged line${count === 1 ? "" : "s"}`,
      hidden: all.slice(i, j),
    });
    i = j;
  }
  return out;
}
