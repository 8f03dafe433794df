/** `/skills/<name>`: one skill, its facts and its SKILL.md rendered. */

import { api } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import { ErrorNote, Link, Loading } from "../../components/ui.tsx";
import { Markdown } from "../../components/Markdown.tsx";
import type { ShownSkill } from "../../../../../core/usecases/skills.ts";
import { originLabel } from "./origin.ts";

/** The skill called `name` (slug, name or folder path). */
export function SkillView(props: { name: string }) {
  const profile = useProfile();
  const { data, error, loading, reload } = useAsync(
    (signal) =>
      api<ShownSkill>("GET", `/api/skills/${encodeURIComponent(props.name)}`, {
        signal,
      }),
    [props.name, profile],
  );
  const skill = data?.skill;
  return (
    <section class="page skills-view">
      <Link href="/skills" class="skills-back">← Skills</Link>
      {error !== undefined && <ErrorNote error={error} onRetry={reload} />}
      {loading && !data && <Loading label="Loading the skill…" />}
      {skill && (
        <>
          <div class="page-header">
            <h1>{skill.name}</h1>
            {skill.command && <code class="skills-command">{skill.command}</code>}
          </div>
          {skill.description && <p class="skills-lead">{skill.description}</p>}
          <dl class="skills-facts">
            {skill.category && (
              <>
                <dt>Category</dt>
                <dd>{skill.category}</dd>
              </>
            )}
            {skill.version && (
              <>
                <dt>Version</dt>
                <dd>{skill.version}</dd>
              </>
            )}
            {skill.platforms && (
              <>
                <dt>Systems</dt>
                <dd>{skill.platforms.join(", ")}</dd>
              </>
            )}
            <dt>Origin</dt>
            <dd>{originLabel(skill.origin)}</dd>
            <dt>File</dt>
            <dd>
              <code>{skill.file}</code>
            </dd>
            {skill.files.length > 0 && (
              <>
                <dt>Also in the folder</dt>
                <dd>{skill.files.join(", ")}</dd>
              </>
            )}
          </dl>
          {skill.note && <p class="note note-warn">{skill.note}</p>}
          <article class="card skills-body" aria-label="SKILL.md">
            <Markdown text={skill.body} />
          </article>
        </>
      )}
    </section>
  );
}
