/**
 * The Profiles page's "New profile" dialog: a fresh profile, or a copy of
 * another one (its settings only, or everything but its history), as
 * `herald profile create [--clone | --clone-all]` makes them.
 */

import { useState } from "preact/hooks";
import { Dialog, ErrorNote, FormActions } from "../components/ui.tsx";
import type { CreatedProfileView } from "../../../../core/profiles/views.ts";
import { createProfile, type NewProfile } from "./profiles_api.ts";

/** The dialog; `onCreated` gets the new profile, `onClose` is Cancel or Escape. */
export function CreateProfileDialog(
  props: {
    profiles: string[];
    initialSource?: string;
    onCreated: (created: CreatedProfileView) => void;
    onClose: () => void;
  },
) {
  const [name, setName] = useState("");
  const [source, setSource] = useState(props.initialSource ?? "");
  const [mode, setMode] = useState<"config" | "all">("config");
  const [keepChannels, setKeepChannels] = useState(false);
  const [seedSkills, setSeedSkills] = useState(true);
  const [description, setDescription] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    // A clone copies the source's skills; the bundled-skills choice is a fresh profile's only.
    const body: NewProfile = source === ""
      ? { name, bundled_skills: seedSkills }
      : { name, clone_from: source, clone_mode: mode, clone_channels: keepChannels };
    if (description.trim() !== "") body.description = description.trim();
    setBusy(true);
    setError(undefined);
    try {
      props.onCreated(await createProfile(body));
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };

  return (
    <Dialog title="New profile" onClose={props.onClose}>
      <form class="profiles-form" onSubmit={submit}>
        <label class="field">
          <span>Name</span>
          <input
            type="text"
            value={name}
            required
            autoFocus
            autoComplete="off"
            spellcheck={false}
            placeholder="work"
            aria-describedby="profiles-name-hint"
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <span id="profiles-name-hint" class="field-hint">
            Lowercase letters, digits, "_" and "-"; used as <code>herald -p {name || "name"}</code>
          </span>
        </label>
        <label class="field">
          <span>Clone from</span>
          <select value={source} onChange={(event) => setSource(event.currentTarget.value)}>
            <option value="">Nothing: a fresh profile</option>
            {props.profiles.map((profile) => (
              <option key={profile} value={profile}>{profile}</option>
            ))}
          </select>
        </label>
        {source
          ? (
            <fieldset class="profiles-fieldset">
              <legend>What to copy</legend>
              <label class="profiles-choice">
                <input
                  type="radio"
                  name="clone-mode"
                  checked={mode === "config"}
                  onChange={() => setMode("config")}
                />
                <span>Config only: settings, secrets, persona, skills and memories</span>
              </label>
              <label class="profiles-choice">
                <input
                  type="radio"
                  name="clone-mode"
                  checked={mode === "all"}
                  onChange={() => setMode("all")}
                />
                <span>Everything but the session history</span>
              </label>
              <label class="profiles-choice">
                <input
                  type="checkbox"
                  checked={keepChannels}
                  onChange={(event) => setKeepChannels(event.currentTarget.checked)}
                />
                <span>
                  Also copy the messaging bot tokens (two profiles would then answer one bot)
                </span>
              </label>
            </fieldset>
          )
          : (
            <label class="profiles-choice">
              <input
                type="checkbox"
                checked={seedSkills}
                onChange={(event) => setSeedSkills(event.currentTarget.checked)}
              />
              <span>Start with Herald's bundled skills</span>
            </label>
          )}
        <label class="field">
          <span>Description (optional)</span>
          <textarea
            rows={3}
            value={description}
            placeholder="What this profile is for; the kanban orchestrator routes work by it"
            onInput={(event) => setDescription(event.currentTarget.value)}
          />
        </label>
        {error !== undefined && <ErrorNote error={error} />}
        <FormActions
          label={source ? "Clone" : "Create"}
          busyLabel="Creating…"
          busy={busy}
          disabled={name.trim() === ""}
          onCancel={props.onClose}
        />
      </form>
    </Dialog>
  );
}
