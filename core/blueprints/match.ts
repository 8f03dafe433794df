/**
 * Finding a blueprint by what a user typed, forgivingly: the exact key or
 * title, then a unique prefix, then a unique substring, then a tag, then
 * the nearest spelling. Several equally good matches are candidates, never
 * a guess.
 *
 * @module
 */

import { editDistance } from "../_util/suggest.ts";
import { BLUEPRINTS } from "./catalog.ts";
import type { Blueprint } from "./slots.ts";

/** What {@link findBlueprint} found: one blueprint, or the candidates to choose from. */
export interface BlueprintMatch {
  blueprint?: Blueprint;
  /** Several matched equally well (none when one did, or nothing came close). */
  candidates: Blueprint[];
}

/** Lowercase words joined by `-` (`Bills & renewals` → `bills-renewals`, `morning_brief` → `morning-brief`). */
function normalised(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

function names(blueprint: Blueprint): string[] {
  return [blueprint.key, normalised(blueprint.title)];
}

function decided(matches: Blueprint[]): BlueprintMatch | undefined {
  if (matches.length === 0) return undefined;
  return matches.length === 1 ? { blueprint: matches[0], candidates: [] } : { candidates: matches };
}

/**
 * Finds the blueprint `query` names in `catalog` (the shipped one).
 * Names are compared as lowercase words joined by `-`, so `_`, spaces and
 * `-` are the same.
 *
 * @example
 * ```ts
 * findBlueprint("morning").blueprint?.key;   // "morning-brief" (prefix)
 * findBlueprint("weekly reveiw").blueprint?.key; // "weekly-review" (spelling)
 * findBlueprint("watch").candidates.length;  // several watchers: the user picks
 * ```
 */
export function findBlueprint(
  query: string,
  catalog: readonly Blueprint[] = BLUEPRINTS,
): BlueprintMatch {
  const wanted = normalised(query);
  if (wanted === "") return { candidates: [] };
  const stages: ((blueprint: Blueprint) => boolean)[] = [
    (blueprint) => names(blueprint).includes(wanted),
    (blueprint) => names(blueprint).some((name) => name.startsWith(wanted)),
    (blueprint) => names(blueprint).some((name) => name.includes(wanted)),
    (blueprint) => blueprint.tags.some((tag) => normalised(tag) === wanted),
  ];
  for (const stage of stages) {
    const found = decided(catalog.filter(stage));
    if (found) return found;
  }
  // The nearest spelling of a whole name or of one of its words (`habbit` → `habit-checkin`).
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  const scored = catalog
    .map((blueprint) => ({
      blueprint,
      distance: Math.min(
        ...names(blueprint).flatMap((name) => [name, ...name.split("-")])
          .map((name) => editDistance(wanted, name)),
      ),
    }))
    .filter(({ distance }) => distance <= limit);
  if (scored.length === 0) return { candidates: [] };
  const best = Math.min(...scored.map(({ distance }) => distance));
  return decided(
    scored.filter(({ distance }) => distance === best).map(({ blueprint }) => blueprint),
  )!;
}

/** The keys of `catalog` nearest to `query` by spelling (at most `count`), for "did you mean". */
export function nearBlueprintKeys(
  query: string,
  count = 3,
  catalog: readonly Blueprint[] = BLUEPRINTS,
): string[] {
  const wanted = normalised(query);
  return catalog
    .map((blueprint) => ({
      key: blueprint.key,
      distance: Math.min(
        ...names(blueprint).map((name) => editDistance(wanted, name) / Math.max(name.length, 1)),
      ),
    }))
    .sort((a, b) => a.distance - b.distance)
    .filter(({ distance }) => distance < 0.75)
    .slice(0, count)
    .map(({ key }) => key);
}
