/**
 * What a `.env` variable is for, from the catalogs Herald knows: model
 * providers, OAuth sign-in, messaging platforms and managed tools.
 *
 * @module
 */

import { PROVIDERS } from "../core/providers.ts";
import { MANAGED_TOOLS } from "../core/models/tool_gateway.ts";
import { PLATFORMS } from "../core/messaging/platforms.ts";

/** Labels of what reads variable `name`, for example `provider:openrouter`. */
export function envUsage(name: string): string[] {
  const uses: string[] = [];
  for (const provider of PROVIDERS) {
    if (provider.keyEnv === name) uses.push(`provider:${provider.id}`);
  }
  for (const platform of PLATFORMS) {
    if (platform.secrets.some((secret) => secret.name === name)) {
      uses.push(`platform:${platform.id}`);
    }
  }
  for (const tool of MANAGED_TOOLS) {
    if (tool.keyEnvs.includes(name)) uses.push(`tool:${tool.tool}`);
  }
  return uses;
}
