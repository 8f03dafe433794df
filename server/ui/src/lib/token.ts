/**
 * The dashboard session token: embedded by the server as a meta tag on
 * loopback binds, or handed over in the URL fragment (`#token=`) on other
 * binds, in which case it is kept for this tab only and removed from the
 * address bar so it is not bookmarked or shared by accident.
 */

const STORAGE_KEY = "herald.token";

function readToken(): string {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="herald-token"]');
  if (meta?.content) return meta.content;
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromHash = fragment.get("token");
  if (fromHash) {
    sessionStorage.setItem(STORAGE_KEY, fromHash);
    fragment.delete("token");
    const rest = fragment.toString();
    history.replaceState(
      history.state,
      "",
      location.pathname + location.search + (rest ? `#${rest}` : ""),
    );
    return fromHash;
  }
  return sessionStorage.getItem(STORAGE_KEY) ?? "";
}

/** The token every API call and socket presents ("" when the page has none). */
export const token: string = readToken();
