/**
 * The Profiles page: every profile with its description (marked
 * "generated" until a person edits it), creating and cloning profiles,
 * editing or generating a description, and switching the page to a profile.
 */

import { useState } from "preact/hooks";
import { useProfile } from "../lib/profile.ts";
import { useAsync } from "../lib/use_async.ts";
import { Button, Empty, ErrorNote, Loading, PageHeader, toast } from "../components/ui.tsx";
import { announceProfiles, loadProfiles } from "./profiles_api.ts";
import { ProfileCard } from "./profiles_card.tsx";
import { CreateProfileDialog } from "./profiles_create.tsx";
import "./profiles.css";

/** The page at /profiles. */
export function ProfilesPage() {
  const profile = useProfile();
  const { data, error, loading, reload } = useAsync((signal) => loadProfiles(signal), [profile]);
  // undefined: closed; "": a fresh profile; a name: a clone of that profile.
  const [creating, setCreating] = useState<string>();
  const pinned = data?.pinned_profile ?? null;
  const names = data?.profiles.map((row) => row.name) ?? [];

  return (
    <section class="page profiles-page">
      <PageHeader title="Profiles">
        {!pinned && (
          <Button variant="primary" onClick={() => setCreating("")} disabled={!data}>
            New profile
          </Button>
        )}
      </PageHeader>
      <p class="muted profiles-intro">
        Each profile is a home of its own: config, secrets, skills, memories and sessions. The
        description says what it is for; the kanban orchestrator routes work by it.
      </p>
      {pinned && (
        <p class="note">
          This dashboard serves only "{pinned}" (started with --isolated); create profiles with{" "}
          <code>herald profile create</code>.
        </p>
      )}
      {error !== undefined && <ErrorNote error={error} onRetry={reload} />}
      {loading && !data && <Loading label="Loading profiles…" />}
      {data && data.profiles.length === 0 && <Empty>No profiles.</Empty>}
      {data && (
        <ul class="list profiles-list" aria-label="Profiles">
          {data.profiles.map((row) => (
            <li key={row.name}>
              <ProfileCard
                row={row}
                pinned={pinned !== null}
                onChanged={reload}
                onClone={(name) => setCreating(name)}
              />
            </li>
          ))}
        </ul>
      )}
      {creating !== undefined && (
        <CreateProfileDialog
          profiles={names}
          initialSource={creating}
          onClose={() => setCreating(undefined)}
          onCreated={(created) => {
            setCreating(undefined);
            toast(
              created.cloned_from
                ? `Created "${created.name}" from "${created.cloned_from}"`
                : `Created "${created.name}"`,
            );
            announceProfiles([...names, created.name].sort(byDefaultFirst));
            reload();
          }}
        />
      )}
    </section>
  );
}

/** `default` first, then by name (the order the server lists them in). */
function byDefaultFirst(a: string, b: string): number {
  if (a === "default") return -1;
  if (b === "default") return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
