/** The Skills tab: every skill of the profile, filtered by words and category. */

import { useMemo, useState } from "preact/hooks";
import { api } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import { Button, Empty, ErrorNote, Link, Loading } from "../../components/ui.tsx";
import type { SkillView } from "../../../../../core/skills/views.ts";
import type { SkillList as SkillListAnswer } from "../../../../../core/usecases/skills.ts";
import { originLabel } from "./origin.ts";
import { CatalogWarnings } from "./warnings.tsx";

/** The category filter's value for skills without one. */
const UNCATEGORISED = "\u0000none";

/** The profile's skills with a filter box and category buttons. */
export function SkillList() {
  const profile = useProfile();
  const { data, error, loading, reload } = useAsync(
    (signal) => api<SkillListAnswer>("GET", "/api/skills", { signal }),
    [profile],
  );
  const [filter, setFilter] = useState("");
  // The category picked is the picking profile's: another profile starts with all its skills.
  const [picked, setPicked] = useState<{ profile: string; category: string }>();
  const skills = data?.skills ?? [];
  const categories = useMemo(() => {
    const counts = new Map<string, number>();
    for (const skill of skills) {
      const key = skill.category ?? UNCATEGORISED;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].sort(([a], [b]) => a.localeCompare(b));
  }, [skills]);
  const category =
    picked?.profile === profile && categories.some(([key]) => key === picked.category)
      ? picked.category
      : undefined;
  const setCategory = (key: string | undefined) =>
    setPicked(key === undefined ? undefined : { profile, category: key });
  const clear = () => {
    setFilter("");
    setCategory(undefined);
  };
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = skills.filter((skill) => {
    if (category !== undefined && (skill.category ?? UNCATEGORISED) !== category) return false;
    const haystack = `${skill.name} ${skill.slug} ${skill.description} ${skill.category ?? ""}`
      .toLowerCase();
    return words.every((word) => haystack.includes(word));
  });

  if (error) return <ErrorNote error={error} onRetry={reload} />;
  if (loading && !data) return <Loading label="Loading skills…" />;
  return (
    <>
      <CatalogWarnings warnings={data?.warnings} />
      <div class="skills-toolbar">
        <input
          type="search"
          aria-label="Filter skills"
          placeholder="Filter by name, description or category"
          value={filter}
          onInput={(event) => setFilter((event.currentTarget as HTMLInputElement).value)}
        />
      </div>
      {categories.length > 1 && (
        <div class="skills-categories" role="group" aria-label="Categories">
          <CategoryButton
            label="All"
            count={skills.length}
            active={category === undefined}
            onClick={() => setCategory(undefined)}
          />
          {categories.map(([key, count]) => (
            <CategoryButton
              key={key}
              label={key === UNCATEGORISED ? "No category" : key}
              count={count}
              active={category === key}
              onClick={() => setCategory(category === key ? undefined : key)}
            />
          ))}
        </div>
      )}
      {skills.length === 0
        ? (
          <Empty>
            No skills in this profile yet. A skill is a folder with a <code>SKILL.md</code>{" "}
            in the profile's <code>skills/</code> folder.
          </Empty>
        )
        : shown.length === 0
        ? (
          <Empty>
            <p>No skill matches this filter.</p>
            <Button onClick={clear}>Clear the filter</Button>
          </Empty>
        )
        : (
          <ul class="skills-grid" aria-label="Skills">
            {shown.map((skill) => <SkillCard key={skill.dir} skill={skill} />)}
          </ul>
        )}
    </>
  );
}

function CategoryButton(
  props: { label: string; count: number; active: boolean; onClick: () => void },
) {
  return (
    <button
      type="button"
      class={`skills-chip${props.active ? " active" : ""}`}
      aria-pressed={props.active}
      onClick={props.onClick}
    >
      {props.label} <span class="skills-chip-count">{props.count}</span>
    </button>
  );
}

function SkillCard(props: { skill: SkillView }) {
  const { skill } = props;
  return (
    <li class={`card skills-card${skill.available ? "" : " unavailable"}`}>
      <Link href={`/skills/${encodeURIComponent(skill.slug)}`} class="skills-card-link">
        <span class="skills-card-name">{skill.name}</span>
      </Link>
      <div class="skills-card-meta">
        {skill.command && <code class="skills-tag skills-tag-code">{skill.command}</code>}
        {/* The category and the origin wrap together, never the origin alone. */}
        <span class="skills-card-tags">
          {skill.category && <span class="skills-tag">{skill.category}</span>}
          <span class="skills-tag muted">{originLabel(skill.origin)}</span>
        </span>
      </div>
      <p class="skills-card-description">
        {skill.description || <em class="muted">No description</em>}
      </p>
      {skill.note && <p class="skills-card-note muted">{skill.note}</p>}
    </li>
  );
}
