/**
 * Creating or editing a bundle: name, description, the skills it loads
 * (picked from the profile's skills, in the order picked) and an optional
 * instruction. The server checks it as `herald bundles create` does, and
 * what it refuses is shown at the field it is about.
 */

import { useState } from "preact/hooks";
import { api, ApiError, errorMessage } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import {
  Dialog,
  Field,
  fieldErrorId,
  fieldHintId,
  FormActions,
  Loading,
} from "../../components/ui.tsx";
import type { BundleView } from "../../../../../core/skills/views.ts";
import type { SkillList } from "../../../../../core/usecases/skills.ts";

/** Where an error the server gave belongs. */
type Place = "name" | "skills" | "form";

/** The field a refused save is about, and what to tell the person there. */
function placeError(error: unknown): { field: Place; message: string } {
  if (!(error instanceof ApiError)) return { field: "form", message: errorMessage(error) };
  if (error.code === "bundle_exists") {
    return {
      field: "name",
      message: `A bundle named “${
        error.details.bundle ?? ""
      }” already exists; choose another name or edit that bundle.`,
    };
  }
  if (error.code === "bundle_invalid") {
    const field = error.details.field === "skills"
      ? "skills"
      : error.details.field === "name"
      ? "name"
      : "form";
    if (field === "skills") {
      return { field, message: "Pick at least one skill for the bundle to load." };
    }
    return { field, message: error.message };
  }
  if (error.code === "bad_request") {
    // The body's schema names each field that does not fit: `name: must not be empty`.
    const first = /^(name|skills)(?:\.\d+)?: (.*?)(?:;|$)/.exec(String(error.details.issues ?? ""));
    if (first) return { field: first[1] as Place, message: `The ${first[1]} ${first[2]}.` };
  }
  return { field: "form", message: error.message };
}

const NAME_HINT = (
  <>
    It becomes the chat command <code>/name</code> (lower case, dashes for spaces).
  </>
);

/** The create form (no `bundle`) or the edit form of `bundle`. */
export function BundleForm(props: {
  bundle?: BundleView;
  onClose: () => void;
  onSaved: (bundle: BundleView) => void;
}) {
  const editing = props.bundle;
  const profile = useProfile();
  const skills = useAsync(
    (signal) => api<SkillList>("GET", "/api/skills", { signal }),
    [profile],
  );
  const [name, setName] = useState(editing?.name ?? "");
  const [description, setDescription] = useState(editing?.description ?? "");
  const [instruction, setInstruction] = useState(editing?.instruction ?? "");
  const [picked, setPicked] = useState<string[]>(editing ? [...editing.skills] : []);
  const [filter, setFilter] = useState("");
  const [problem, setProblem] = useState<{ field: Place; message: string }>();
  const [saving, setSaving] = useState(false);

  const toggle = (ref: string) =>
    setPicked((now) => now.includes(ref) ? now.filter((item) => item !== ref) : [...now, ref]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaving(true);
    setProblem(undefined);
    const body = { name, description, skills: picked, instruction };
    try {
      const answer = editing
        ? await api<{ bundle: BundleView }>(
          "PUT",
          `/api/bundles/${encodeURIComponent(editing.slug)}`,
          {
            body,
          },
        )
        : await api<{ bundle: BundleView }>("POST", "/api/bundles", { body });
      props.onSaved(answer.bundle);
    } catch (error) {
      setProblem(placeError(error));
      setSaving(false);
    }
  };

  const installed = skills.data?.skills ?? [];
  // A bundle may name a skill by slug or by folder path (`dev/review`).
  const refOf = (skill: SkillList["skills"][number]) =>
    picked.find((ref) => ref === skill.slug || ref.toLowerCase() === skill.path.toLowerCase()) ??
      skill.slug;
  const known = new Set(installed.map(refOf));
  // Skills the bundle names that are not installed stay listed, so they can be kept or dropped.
  const extra = picked.filter((ref) => !known.has(ref));
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (text: string) => words.every((word) => text.toLowerCase().includes(word));
  const options = [
    ...extra.map((ref) => ({ ref, label: ref, hint: "not installed" })),
    ...installed.map((skill) => ({
      ref: refOf(skill),
      label: skill.name,
      hint: skill.description,
    })),
  ].filter((option) =>
    picked.includes(option.ref) || matches(`${option.ref} ${option.label} ${option.hint}`)
  );
  const messageAt = (place: Place) => problem?.field === place ? problem.message : undefined;
  /** The refusal of the skills or of the whole form, where it belongs. */
  const note = (place: "skills" | "form") =>
    problem?.field === place && (
      <p id={`bundle-${place}-error`} class="field-error" role="alert">{problem.message}</p>
    );

  return (
    <Dialog
      title={editing ? `Edit ${editing.command}` : "New bundle"}
      onClose={props.onClose}
      class="skills-dialog"
    >
      <form onSubmit={submit} noValidate>
        <Field id="bundle-name" label="Name" hint={NAME_HINT} error={messageAt("name")}>
          <input
            id="bundle-name"
            type="text"
            value={name}
            required
            autoFocus
            aria-invalid={problem?.field === "name"}
            aria-describedby={`${fieldHintId("bundle-name")} ${fieldErrorId("bundle-name")}`}
            onInput={(event) => setName((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <Field id="bundle-description" label="Description" hint="Shown in help and autocomplete.">
          <input
            id="bundle-description"
            type="text"
            value={description}
            aria-describedby={fieldHintId("bundle-description")}
            onInput={(event) => setDescription((event.currentTarget as HTMLInputElement).value)}
          />
        </Field>
        <fieldset class="skills-picker" aria-describedby="bundle-skills-error">
          <legend>
            Skills <span class="muted">({picked.length} picked, loaded in this order)</span>
          </legend>
          {picked.length > 0 && (
            <ol class="skills-picked" aria-label="Picked skills">
              {picked.map((ref) => (
                <li key={ref}>
                  <span>{ref}</span>
                  <button
                    type="button"
                    class="btn btn-ghost"
                    aria-label={`Remove ${ref}`}
                    onClick={() => toggle(ref)}
                  >
                    ×
                  </button>
                </li>
              ))}
            </ol>
          )}
          <input
            type="search"
            aria-label="Find a skill"
            placeholder="Find a skill"
            value={filter}
            onInput={(event) => setFilter((event.currentTarget as HTMLInputElement).value)}
          />
          {skills.error !== undefined && (
            <p class="field-error" role="alert">{errorMessage(skills.error)}</p>
          )}
          {skills.loading && !skills.data
            ? <Loading label="Loading skills…" />
            : (
              <ul class="skills-options">
                {options.map((option) => (
                  <li key={option.ref}>
                    <label>
                      <input
                        type="checkbox"
                        checked={picked.includes(option.ref)}
                        onChange={() => toggle(option.ref)}
                      />
                      <span class="skills-option-name">{option.label}</span>
                      <span class="muted skills-option-hint">{option.hint}</span>
                    </label>
                  </li>
                ))}
                {options.length === 0 && <li class="muted">No skill matches.</li>}
              </ul>
            )}
          {note("skills")}
        </fieldset>
        <Field
          id="bundle-instruction"
          label="Instruction (optional)"
          hint="Guidance placed before the skills when the bundle is used."
        >
          <textarea
            id="bundle-instruction"
            rows={3}
            value={instruction}
            aria-describedby={fieldHintId("bundle-instruction")}
            onInput={(event) => setInstruction((event.currentTarget as HTMLTextAreaElement).value)}
          />
        </Field>
        {note("form")}
        <FormActions
          label={editing ? "Save bundle" : "Create bundle"}
          busyLabel="Saving…"
          busy={saving}
          onCancel={props.onClose}
        />
      </form>
    </Dialog>
  );
}
