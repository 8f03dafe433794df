/**
 * The Bundles tab: the profile's skill bundles with their skills (those not
 * installed, or not for this system, marked), and creating, editing and
 * deleting them.
 */

import { useState } from "preact/hooks";
import { api } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import {
  Button,
  ConfirmDialog,
  Empty,
  ErrorNote,
  Link,
  Loading,
  toast,
} from "../../components/ui.tsx";
import { BundleForm } from "./bundle_form.tsx";
import type { BundleView } from "../../../../../core/skills/views.ts";
import type { BundleList } from "../../../../../core/usecases/bundles.ts";
import { CatalogWarnings } from "./warnings.tsx";

type Editing = { mode: "create" } | { mode: "edit"; bundle: BundleView } | {
  mode: "delete";
  bundle: BundleView;
};

/** The bundles, and the dialogs that change them. */
export function BundleList() {
  const profile = useProfile();
  const { data, error, loading, reload } = useAsync(
    (signal) => api<BundleList>("GET", "/api/bundles", { signal }),
    [profile],
  );
  const [editing, setEditing] = useState<Editing>();
  const close = () => setEditing(undefined);
  const saved = (bundle: BundleView, verb: string) => {
    close();
    reload();
    const skipped = [...bundle.missing, ...bundle.unavailable];
    toast(
      `${verb} ${bundle.command}` +
        (skipped.length ? `; it skips ${skipped.join(", ")} until installed` : "") +
        (bundle.note ? `. ${bundle.note}` : ""),
      bundle.note ? "error" : "info",
    );
  };

  if (error) return <ErrorNote error={error} onRetry={reload} />;
  if (loading && !data) return <Loading label="Loading bundles…" />;
  const bundles = data?.bundles ?? [];
  return (
    <>
      <div class="skills-toolbar">
        <p class="muted skills-intro">
          A bundle loads several skills at once with one <code>/name</code> command in chat.
        </p>
        <Button variant="primary" onClick={() => setEditing({ mode: "create" })}>New bundle</Button>
      </div>
      <CatalogWarnings warnings={data?.warnings} />
      {bundles.length === 0
        ? <Empty>No bundles yet. Create one to load several skills with one command.</Empty>
        : (
          <ul class="skills-bundles" aria-label="Bundles">
            {bundles.map((bundle) => (
              <BundleCard
                key={bundle.slug}
                bundle={bundle}
                onEdit={() => setEditing({ mode: "edit", bundle })}
                onDelete={() => setEditing({ mode: "delete", bundle })}
              />
            ))}
          </ul>
        )}
      {editing?.mode === "create" && (
        <BundleForm
          onClose={close}
          onSaved={(bundle) => saved(bundle, "Created")}
        />
      )}
      {editing?.mode === "edit" && (
        <BundleForm
          bundle={editing.bundle}
          onClose={close}
          onSaved={(bundle) => saved(bundle, "Saved")}
        />
      )}
      {editing?.mode === "delete" && (
        <DeleteBundleDialog
          bundle={editing.bundle}
          onClose={close}
          onDeleted={() => {
            close();
            reload();
            toast(`Deleted ${editing.bundle.command}`);
          }}
        />
      )}
    </>
  );
}

function BundleCard(props: { bundle: BundleView; onEdit: () => void; onDelete: () => void }) {
  const { bundle } = props;
  const missing = new Set(bundle.missing);
  const unavailable = new Set(bundle.unavailable);
  return (
    <li class="card skills-bundle" aria-label={`Bundle ${bundle.name}`}>
      <div class="skills-bundle-head">
        <div class="skills-bundle-title">
          <h2>{bundle.name}</h2>
          <code>{bundle.command}</code>
        </div>
        <div class="page-actions">
          <Button onClick={props.onEdit} aria-label={`Edit ${bundle.name}`}>Edit</Button>
          <Button variant="danger" onClick={props.onDelete} aria-label={`Delete ${bundle.name}`}>
            Delete
          </Button>
        </div>
      </div>
      <p class="skills-card-description">{bundle.label}</p>
      <ul class="skills-bundle-skills" aria-label="Skills in the bundle">
        {bundle.skills.map((ref) => (
          <li key={ref} class={missing.has(ref) || unavailable.has(ref) ? "skipped" : ""}>
            {missing.has(ref) || unavailable.has(ref)
              ? <span>{ref}</span>
              : <Link href={`/skills/${encodeURIComponent(ref)}`}>{ref}</Link>}
            {missing.has(ref) && <span class="muted">(not installed)</span>}
            {unavailable.has(ref) && <span class="muted">(not for this system)</span>}
          </li>
        ))}
      </ul>
      {bundle.instruction && (
        <details class="skills-instruction">
          <summary>Instruction</summary>
          <p>{bundle.instruction}</p>
        </details>
      )}
      {bundle.note && <p class="note note-warn">{bundle.note}</p>}
    </li>
  );
}

function DeleteBundleDialog(
  props: { bundle: BundleView; onClose: () => void; onDeleted: () => void },
) {
  return (
    <ConfirmDialog
      title={`Delete the bundle ${props.bundle.command}?`}
      confirmLabel="Delete bundle"
      busyLabel="Deleting…"
      danger
      onConfirm={async () => {
        await api("DELETE", `/api/bundles/${encodeURIComponent(props.bundle.slug)}`);
        props.onDeleted();
      }}
      onClose={props.onClose}
    >
      <p>
        Its file <code>{props.bundle.file}</code> is deleted; the skills it loads stay installed.
      </p>
    </ConfirmDialog>
  );
}
