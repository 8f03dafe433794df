/** The shapes the Skills page reads from `/api/skills` and `/api/bundles` (core/skills/views.ts). */

/** A skill as listed. */
export interface Skill {
  name: string;
  slug: string;
  description: string;
  category: string | null;
  version: string | null;
  platforms: string[] | null;
  path: string;
  dir: string;
  command: string | null;
  available: boolean;
  origin: "bundled" | "bundled-modified" | "user";
  note: string | null;
}

/** A skill with its instructions (`GET /api/skills/:name`). */
export interface SkillDetail extends Skill {
  file: string;
  files: string[];
  metadata: Record<string, unknown>;
  body: string;
}

/** A skipped file (broken or repeating a name). */
export interface CatalogWarning {
  file: string;
  message: string;
}

/** A skill bundle. */
export interface Bundle {
  name: string;
  slug: string;
  command: string;
  description: string;
  label: string;
  skills: string[];
  loaded: string[];
  missing: string[];
  unavailable: string[];
  instruction: string | null;
  file: string;
  note: string | null;
}

/** How a skill's origin is shown. */
export function originLabel(origin: Skill["origin"]): string {
  return origin === "bundled"
    ? "bundled"
    : origin === "bundled-modified"
    ? "bundled, changed"
    : "yours";
}
