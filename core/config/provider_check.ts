/**
 * The rule for `model.provider`: a known provider id (or `auto`), or a name
 * of your own for an OpenAI-compatible server, which then needs
 * `model.base_url`. A name one typo away from a known id is refused even
 * with an endpoint, so `openruter` never quietly becomes a custom server.
 * `config set`, the dashboard's config edits, `herald setup`, `herald login`
 * and `herald doctor` all apply this one rule.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";
import { closest } from "../_util/suggest.ts";
import { PROVIDERS } from "../providers.ts";

/** Provider ids accepted in `model.provider` besides the known ones. */
const SPECIAL_PROVIDERS: readonly string[] = ["auto"];

/** What is wrong with a provider name, and the known id it was probably meant to be. */
export interface ProviderProblem {
  message: string;
  suggestion?: string;
}

/** The known provider ids, in the order they are listed to users. */
export function knownProviderIds(): string[] {
  return PROVIDERS.map((provider) => provider.id);
}

/** True when `id` is a provider Herald knows (not `auto`, not a custom name). */
export function isKnownProvider(id: string): boolean {
  return PROVIDERS.some((provider) => provider.id === id);
}

function unknownMessage(id: string, suggestion: string | undefined, tail: string): string {
  const hint = suggestion ? `; did you mean "${suggestion}"?` : ".";
  return `Unknown provider "${id}"${hint} Known providers: ${
    knownProviderIds().join(", ")
  }. ${tail}`;
}

/**
 * The problem with `id` as `model.provider` when the config's endpoint is
 * `baseUrl`, or null when it is fine.
 *
 * @example
 * ```ts
 * providerProblem("openruter")?.suggestion;                 // "openrouter"
 * providerProblem("my-gateway", "http://127.0.0.1:7000/v1"); // null
 * providerProblem("openrouter");                             // null
 * ```
 */
export function providerProblem(id: string, baseUrl?: string): ProviderProblem | null {
  const name = id.trim();
  if (isKnownProvider(name) || SPECIAL_PROVIDERS.includes(name)) return null;
  const suggestion = closest(name.toLowerCase(), knownProviderIds());
  if (suggestion === undefined && baseUrl !== undefined && baseUrl.trim() !== "") return null;
  return {
    message: unknownMessage(
      name,
      suggestion,
      'For another OpenAI-compatible server use "custom" and set model.base_url.',
    ),
    ...(suggestion ? { suggestion } : {}),
  };
}

/** A provider name that is not a known provider (a `usage` error: HTTP 400, exit 2). */
export class UnknownProviderError extends HeraldError {
  /** Creates the error for `provider` with the problem {@link providerProblem} found. */
  constructor(readonly provider: string, problem: ProviderProblem) {
    super("provider_unknown", "usage", problem.message, {
      details: { provider, suggestion: problem.suggestion },
    });
  }
}

/**
 * Refuses `id` as `model.provider` with endpoint `baseUrl` (see
 * {@link providerProblem}).
 *
 * @throws UnknownProviderError naming the nearest known id and listing them all.
 */
export function checkProvider(id: string, baseUrl?: string): void {
  const problem = providerProblem(id, baseUrl);
  if (problem) throw new UnknownProviderError(id.trim(), problem);
}

/**
 * Refuses `id` unless it is a known provider: for commands that need to
 * know the provider's key variable (`herald login <provider>`).
 *
 * @throws UnknownProviderError naming the nearest known id and listing them all.
 */
export function checkKnownProvider(id: string): void {
  const name = id.trim();
  if (isKnownProvider(name)) return;
  const suggestion = closest(name.toLowerCase(), knownProviderIds());
  throw new UnknownProviderError(name, {
    message: unknownMessage(name, suggestion, "Give one of those."),
    ...(suggestion ? { suggestion } : {}),
  });
}
