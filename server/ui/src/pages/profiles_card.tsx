/**
 * One profile on the Profiles page: its description (marked "generated"
 * while the auxiliary model's words stand), edited in place or generated,
 * its model and skills, and the buttons to switch to it or clone it.
 */

import { useState } from "preact/hooks";
import { errorMessage } from "../lib/api.ts";
import { setProfile } from "../lib/profile.ts";
import type { ProfileView } from "../../../../core/profiles/views.ts";
import type { DescribeResult } from "../../../../core/usecases/profiles.ts";
import { Button, ConfirmDialog, toast } from "../components/ui.tsx";
import { generateDescription, setDescription } from "./profiles_api.ts";

/** A profile's card; `onChanged` reloads the list after its description changed. */
export function ProfileCard(
  props: {
    row: ProfileView;
    pinned: boolean;
    onChanged: () => void;
    onClone: (name: string) => void;
  },
) {
  const { row } = props;
  const [editing, setEditing] = useState(false);
  const [generating, setGenerating] = useState(false);
  const [confirmReplace, setConfirmReplace] = useState(false);
  const headingId = `profiles-name-${row.name}`;

  // A description nobody wrote is replaced without asking; one a person wrote asks first.
  const generate = async () => {
    setGenerating(true);
    try {
      const result = await generateDescription(row.name, false);
      toast(resultMessage(result), result.status === "failed" ? "error" : "info");
      props.onChanged();
    } catch (error) {
      toast(`Could not generate a description for "${row.name}": ${errorMessage(error)}`, "error");
    } finally {
      setGenerating(false);
    }
  };
  const personal = row.description.trim() !== "" && !row.description_auto;

  return (
    <article
      class={row.active ? "card profiles-card profiles-selected" : "card profiles-card"}
      aria-labelledby={headingId}
    >
      <header class="profiles-card-head">
        <h2 id={headingId}>{row.name}</h2>
        {row.active && <span class="badge profiles-badge-selected">selected</span>}
        {row.sticky && (
          <span class="badge" title="The default for commands without -p (herald profile use)">
            sticky default
          </span>
        )}
        <span class="profiles-facts muted">
          {row.model ?? "no model set"}
          {row.provider ? ` · ${row.provider}` : ""} · {row.skill_count}{" "}
          {row.skill_count === 1 ? "skill" : "skills"}
        </span>
      </header>
      {editing
        ? (
          <DescriptionEditor
            row={row}
            onDone={(saved) => {
              setEditing(false);
              if (saved) props.onChanged();
            }}
          />
        )
        : (
          <p class={row.description ? "profiles-description" : "profiles-description muted"}>
            {row.description || "No description yet."}
            {row.description && row.description_auto && (
              <span
                class="badge profiles-badge-generated"
                title="Written by the auxiliary model; edit it to make it yours"
              >
                generated
              </span>
            )}
          </p>
        )}
      {row.warnings.map((warning) => <p key={warning} class="note note-warn">{warning}</p>)}
      <div class="profiles-actions">
        {!editing && (
          <Button
            onClick={() => setEditing(true)}
            aria-label={`Edit the description of ${row.name}`}
          >
            Edit description
          </Button>
        )}
        <Button
          disabled={generating}
          onClick={() => (personal ? setConfirmReplace(true) : generate())}
          aria-label={`Generate a description of ${row.name}`}
        >
          {generating ? "Generating…" : "Generate"}
        </Button>
        {!props.pinned && (
          <Button onClick={() => props.onClone(row.name)} aria-label={`Clone ${row.name}`}>
            Clone
          </Button>
        )}
        {!row.active && (
          <Button
            variant="primary"
            onClick={() => setProfile(row.name === "default" ? "" : row.name)}
            aria-label={`Switch to ${row.name}`}
          >
            Switch to it
          </Button>
        )}
      </div>
      {confirmReplace && (
        <ConfirmDialog
          title="Replace your description?"
          cancelLabel="Keep it"
          confirmLabel="Replace"
          busyLabel="Generating…"
          danger
          onConfirm={async () => {
            const result = await generateDescription(row.name, true);
            if (result.status === "failed") throw new Error(resultMessage(result));
            toast(resultMessage(result));
            props.onChanged();
          }}
          onClose={() => setConfirmReplace(false)}
        >
          <p>
            The description of <strong>{row.name}</strong>{" "}
            was written by a person. A generated one replaces it.
          </p>
          <blockquote class="profiles-quote">{row.description}</blockquote>
        </ConfirmDialog>
      )}
    </article>
  );
}

function resultMessage(result: DescribeResult): string {
  if (result.status === "failed") {
    return `Could not generate a description for "${result.profile}": ${result.error.message}`;
  }
  return result.status === "kept"
    ? `Kept the description of "${result.profile}"`
    : `Generated a description for "${result.profile}"`;
}

/** The description in a text box: Save (or Ctrl+Enter) stores it, Cancel (or Escape) drops it. */
function DescriptionEditor(props: { row: ProfileView; onDone: (saved: boolean) => void }) {
  const [text, setText] = useState(props.row.description);
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    try {
      await setDescription(props.row.name, text);
      toast(`Saved the description of "${props.row.name}"`);
      props.onDone(true);
    } catch (error) {
      toast(`Could not save the description: ${errorMessage(error)}`, "error");
      setBusy(false);
    }
  };
  return (
    <form
      class="profiles-editor"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <label class="field">
        <textarea
          rows={3}
          value={text}
          autoFocus
          aria-label={`Description of ${props.row.name}`}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              props.onDone(false);
            } else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
              event.preventDefault();
              save();
            }
          }}
        />
        <span class="field-hint">
          Saving marks it as yours: Generate then asks before replacing it.
        </span>
      </label>
      <div class="profiles-actions">
        <Button onClick={() => props.onDone(false)}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Saving…" : "Save"}
        </Button>
      </div>
    </form>
  );
}
