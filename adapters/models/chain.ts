/**
 * The model client of a session: the main model's client, wrapped in the
 * fallback chain and key pools (core/models/failover_client.ts) when there
 * is anything to fall back to: a second key or a `fallback_providers` entry.
 *
 * @module
 */

import { createFailoverClient } from "../../core/models/failover_client.ts";
import type { RouteSpec } from "../../core/models/fallback.ts";
import type { ModelClient } from "../../core/models/types.ts";
import type { ModelClientOptions } from "./_call.ts";
import type { KeyPoolRegistry } from "./key_pools.ts";
import { createModelClient } from "./client.ts";

/**
 * A client over `routes` (the primary first, each endpoint once: core's
 * `resolveRouteChain` or `switchedChain`). A single route with a single key
 * is the plain client: nothing to rotate to, so a 429 stops at once as it
 * always did.
 *
 * @example
 * ```ts
 * const registry = keyPoolRegistry(paths.home);
 * await registry.load();
 * const client = createChainClient(resolveRouteChain(config, env, settings).routes, registry);
 * ```
 */
export function createChainClient(
  routes: readonly RouteSpec[],
  registry: KeyPoolRegistry,
  options: ModelClientOptions = {},
): ModelClient {
  if (routes.length === 0) throw new RangeError("A model chain needs a route");
  const connect = (settings: RouteSpec["settings"]) => createModelClient(settings, options);
  if (routes.length === 1 && routes[0].keys.length === 1) return connect(routes[0].settings);
  return createFailoverClient({
    routes: routes.map((route) => ({ settings: route.settings, pool: registry.pool(route) })),
    connect,
  });
}
