/**
 * The one rule for URLs Herald fetches code or release files from (`herald
 * update`'s release files, the desktop bootstrap's `HERALD_INSTALLER_URL`),
 * as installers/install.sh applies it: https, or plain http only to this
 * machine; and a fetch that follows redirects only while they keep to it.
 *
 * @module
 */

/**
 * Whether release files may be fetched from `url`: https, or plain http to
 * this machine only (127.x, localhost, [::1]), as installers/install.sh allows.
 *
 * @example
 * ```ts
 * secureReleaseUrl("https://example.com/rel/SHA256SUMS"); // true
 * secureReleaseUrl("http://127.0.0.1:8080/install.sh");   // true
 * secureReleaseUrl("http://example.com/install.sh");      // false
 * ```
 */
export function secureReleaseUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === "https:") return true;
  if (parsed.protocol !== "http:") return false;
  const host = parsed.hostname;
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** How many redirects {@link fetchSecure} follows. */
export const MAX_SECURE_REDIRECTS = 5;

/** What {@link fetchSecure} got. */
export type SecureFetch =
  /** The final response (any status but a redirect) and the URL it came from. */
  | { kind: "response"; response: Response; url: string }
  /** `from` redirected to `to` (empty: no usable Location), which {@link secureReleaseUrl} refuses. */
  | { kind: "insecure-redirect"; from: string; to: string }
  /** More than {@link MAX_SECURE_REDIRECTS} redirects. */
  | { kind: "too-many-redirects"; url: string };

/**
 * Fetches `url` (which the caller has checked with {@link secureReleaseUrl})
 * following redirects by hand, each only when its target passes
 * {@link secureReleaseUrl}; a redirect that leaves https is not fetched.
 *
 * @throws what `fetch` throws (network errors, the signal's abort).
 */
export async function fetchSecure(
  url: string,
  init: { signal?: AbortSignal } = {},
): Promise<SecureFetch> {
  let current = url;
  for (let hop = 0; hop <= MAX_SECURE_REDIRECTS; hop++) {
    const response = await fetch(current, { redirect: "manual", signal: init.signal });
    if (response.status < 300 || response.status >= 400 || response.status === 304) {
      return { kind: "response", response, url: current };
    }
    await response.body?.cancel();
    const location = response.headers.get("location");
    let next = "";
    try {
      next = location ? new URL(location, current).href : "";
    } catch {
      next = "";
    }
    if (!next || !secureReleaseUrl(next)) {
      return { kind: "insecure-redirect", from: current, to: next };
    }
    current = next;
  }
  return { kind: "too-many-redirects", url };
}
