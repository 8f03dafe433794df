/**
 * Size limits of the dashboard's HTTP API. docs/dashboard.md quotes these
 * figures; tests use the constants rather than repeating them.
 *
 * @module
 */

/**
 * The largest request body any /api route accepts, in bytes (2 MiB): room
 * for a whole config.yaml sent as JSON. A larger Content-Length is refused
 * with 413 before the body is read; a chunked body is cut off at this size
 * while it is read, with the same 413.
 */
export const MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024;

/** The message of the 413 for a body over {@link MAX_REQUEST_BODY_BYTES}, whether announced or read. */
export const BODY_TOO_LARGE_MESSAGE =
  `The request body is larger than the ${MAX_REQUEST_BODY_BYTES} bytes this dashboard accepts`;
