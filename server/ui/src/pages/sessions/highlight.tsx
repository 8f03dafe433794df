/** Text with the words of a search marked. */

/** Escapes `text` for use inside a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `text` with every (case-insensitive) use of one of `terms` in a `<mark>`. */
export function Highlight(props: { text: string; terms: string[] }) {
  const terms = props.terms.filter(Boolean);
  if (terms.length === 0) return <>{props.text}</>;
  const pattern = new RegExp(`(${terms.map(escapeRegExp).join("|")})`, "gi");
  const parts = props.text.split(pattern);
  return <>{parts.map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))}</>;
}
