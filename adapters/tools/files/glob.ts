/**
 * File globs as regular expressions, for `search_files`.
 *
 * @module
 */

/**
 * Converts a file glob (`*`, `**`, `?`, `[...]`, `{a,b}`) to an anchored regular expression.
 *
 * @example
 * ```ts
 * globToRegExp("src/?.py").test("src/a.py"); // true
 * globToRegExp("*.{js,ts}").test("a.ts"); // true
 * ```
 */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        out += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + 1);
      if (end < 0) out += "\\[";
      else {
        out += "[" + glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\") + "]";
        i = end;
      }
    } else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) out += "|";
    else out += c.replace(/[.+^${}()|\\\/]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}
