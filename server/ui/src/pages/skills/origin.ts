/** How the Skills page names where a skill came from. */

import type { SkillOrigin } from "../../../../../core/skills/views.ts";

/** A skill's origin as shown: "bundled", "bundled, changed" or "yours". */
export function originLabel(origin: SkillOrigin): string {
  return origin === "bundled"
    ? "bundled"
    : origin === "bundled-modified"
    ? "bundled, changed"
    : "yours";
}
