/**
 * The Automations page: the profile's scheduled jobs (`/automations`) and
 * the blueprint catalog (`/automations?tab=blueprints`, one blueprint's
 * form with `&blueprint=<key>`; slot values in the query fill the form).
 * The jobs refresh on the cron events and every half minute (`data-live`
 * says whether the events are watched); a job just scheduled
 * (`?job=<id>`) is marked.
 */

import { useState } from "preact/hooks";
import { useProfile } from "../lib/profile.ts";
import { navigate, useRoute } from "../lib/router.ts";
import { useAsync } from "../lib/use_async.ts";
import { Button, Link, PageHeader, toast } from "../components/ui.tsx";
import { loadJobs, useCronRefresh } from "./automations_api.ts";
import { JobsTab } from "./automations_jobs.tsx";
import { BlueprintsTab } from "./automations_blueprints.tsx";
import { NewJobDialog } from "./automations_new.tsx";
import "./automations.css";

/** The page at /automations. */
export function AutomationsPage() {
  const profile = useProfile();
  const route = useRoute();
  const tab = route.query.get("tab") === "blueprints" ? "blueprints" : "jobs";
  const highlight = route.query.get("job") ?? undefined;
  // Back on the jobs, or a job just made: ask again (the list on screen stays meanwhile).
  const jobs = useAsync((signal) => loadJobs(signal), [profile], [tab, highlight]);
  const live = useCronRefresh(jobs.reload, profile);
  const [creating, setCreating] = useState(false);

  return (
    <section class="page automations-page" data-live={live ? "true" : "false"}>
      <PageHeader title="Automations">
        <Button variant="primary" onClick={() => setCreating(true)}>New job</Button>
      </PageHeader>
      <div class="tabs" role="tablist" aria-label="Jobs and blueprints">
        <Link
          href="/automations"
          role="tab"
          class="tab"
          aria-selected={tab === "jobs" ? "true" : "false"}
        >
          Jobs{jobs.data ? ` (${jobs.data.jobs.length})` : ""}
        </Link>
        <Link
          href="/automations?tab=blueprints"
          role="tab"
          class="tab"
          aria-selected={tab === "blueprints" ? "true" : "false"}
        >
          Blueprints
        </Link>
      </div>
      <div role="tabpanel" aria-label={tab === "jobs" ? "Jobs" : "Blueprints"}>
        {tab === "jobs"
          ? (
            <JobsTab
              data={jobs.data}
              error={jobs.error}
              loading={jobs.loading}
              reload={jobs.reload}
              highlight={highlight}
              onNewJob={() => setCreating(true)}
            />
          )
          : (
            <BlueprintsTab
              selected={route.query.get("blueprint") ?? undefined}
              query={route.query}
            />
          )}
      </div>
      {creating && (
        <NewJobDialog
          onClose={() => setCreating(false)}
          onCreated={(job) => {
            setCreating(false);
            toast(`Created "${job.name}"`);
            jobs.reload();
            navigate(`/automations?job=${encodeURIComponent(job.id)}`);
          }}
        />
      )}
    </section>
  );
}
