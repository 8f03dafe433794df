/**
 * The page served for every non-/api path. Until the web app lands it is a
 * small placeholder; it receives the session token on loopback binds so the
 * dashboard needs no login there.
 *
 * @module
 */

/** The HTML page, with the token embedded when given. */
export function placeholderPage(options: { version: string; token?: string }): string {
  const tokenScript = options.token
    ? `<script>window.__HERALD_SESSION_TOKEN__ = ${JSON.stringify(options.token)};</script>`
    : '<script>window.__HERALD_SESSION_TOKEN__ = new URLSearchParams(location.hash.slice(1)).get("token") ?? "";</script>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Herald</title>
${tokenScript}
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:0 .3em}</style>
</head>
<body>
<h1>Herald ${options.version}</h1>
<p id="status">The dashboard server is running. The web app arrives in a later release; the API is at <code>/api</code>.</p>
</body>
</html>
`;
}
