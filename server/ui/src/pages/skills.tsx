/**
 * The Skills page: `/skills` lists the profile's skills (filter, categories)
 * and, on its Bundles tab (`/skills?tab=bundles`), its skill bundles, which
 * can be created, edited and deleted; `/skills/<name>` reads one skill's
 * SKILL.md.
 */

import { useRoute } from "../lib/router.ts";
import { Link, PageHeader } from "../components/ui.tsx";
import { SkillList } from "./skills/skill_list.tsx";
import { SkillView } from "./skills/skill_view.tsx";
import { BundleList } from "./skills/bundles.tsx";
import "./skills.css";

/** The Skills page for the current path. */
export function SkillsPage() {
  const route = useRoute();
  const name = route.segments[1];
  if (name) return <SkillView key={name} name={name} />;
  const tab = route.query.get("tab") === "bundles" ? "bundles" : "skills";
  return (
    <section class="page skills-page">
      <PageHeader title="Skills" />
      <div class="tabs" role="tablist" aria-label="Skills and bundles">
        <Link
          href="/skills"
          role="tab"
          class="tab"
          aria-selected={tab === "skills" ? "true" : "false"}
        >
          Skills
        </Link>
        <Link
          href="/skills?tab=bundles"
          role="tab"
          class="tab"
          aria-selected={tab === "bundles" ? "true" : "false"}
        >
          Bundles
        </Link>
      </div>
      <div role="tabpanel" aria-label={tab === "skills" ? "Skills" : "Bundles"}>
        {tab === "skills" ? <SkillList /> : <BundleList />}
      </div>
    </section>
  );
}
