/**
 * The profile use cases: create (fresh or cloned), list, show, switch the
 * sticky default, delete, and describe, the last one also with the
 * `profile_describer` auxiliary model. Each is one function over the
 * {@link ProfileHome} port; `herald profile ...`, the dashboard (and later
 * the kanban plugin's `describe-auto`) call them and only render.
 *
 * @example
 * ```ts
 * const home = openProfileHome(root, env);
 * await createProfile(home, "work", { description: "Work email." });
 * const rows = await listProfiles(home, { active: "work" });
 * const described = await describeProfile(home, "work", { mode: "auto", overwrite: false });
 * ```
 *
 * @module
 */

import { type ErrorKind, HeraldError, isCallerKind, ProfileNameError } from "../errors.ts";
import { callAuxiliary } from "../models/auxiliary.ts";
import {
  CloneOptionsError,
  DEFAULT_PROFILE,
  DefaultProfileError,
  describerPrompt,
  EmptyDescriptionError,
  isUserAuthored,
  normalizeDescription,
  parseProfileName,
  parseProfileSelector,
  parseUserDescription,
  PROFILE_DESCRIBER_TASK,
  ProfileDeleteRefusedError,
  type ProfileMeta,
} from "../profiles/mod.ts";
import {
  type CreatedProfileView,
  type ProfileDetailView,
  profileDetailView,
  type ProfileFacts,
  type ProfileView,
  profileView,
} from "../profiles/views.ts";
import type { CloneMode, CreatedHomeProfile, HomeProfile, ProfileHome } from "./ports_home.ts";

/** Which profile the caller uses now, to mark it `active` in the views. */
export interface ProfileSelection {
  /** The profile commands use now (`-p`, else the sticky default, else `default`). */
  active: string;
  /** List only this profile (a dashboard pinned to it); the others are not read at all. */
  only?: string;
}

/** The sticky default, or undefined when none is set or `active_profile` is broken. */
async function stickyOrNone(home: ProfileHome): Promise<string | undefined> {
  try {
    return await home.readSticky();
  } catch (error) {
    if (error instanceof HeraldError) return undefined; // reported where the selection is made
    throw error;
  }
}

async function factsOf(
  profile: HomeProfile,
  active: string | undefined,
  sticky: string | undefined,
): Promise<ProfileFacts> {
  const [{ meta, warning }, skills, { model, provider }] = await Promise.all([
    profile.readMeta(),
    profile.listSkills(),
    profile.mainModel(),
  ]);
  return {
    name: profile.name,
    home: profile.home,
    active: profile.name === active,
    sticky: profile.name === sticky,
    meta,
    ...(warning === undefined ? {} : { metaWarning: warning }),
    skills,
    model,
    provider,
  };
}

/** Names of every profile: `default` first, then named profiles sorted. */
export function listProfileNames(home: ProfileHome): Promise<string[]> {
  return home.listNames();
}

/**
 * Every profile with its description, skill count and model (only
 * `selection.only` when set). A corrupt `profile.yaml` is not an error:
 * that profile shows no description and carries the problem in its
 * `warnings`.
 */
export async function listProfiles(
  home: ProfileHome,
  selection: ProfileSelection,
): Promise<ProfileView[]> {
  const sticky = await stickyOrNone(home);
  const names = await home.listNames();
  const listed = selection.only === undefined
    ? names
    : names.filter((name) => name === selection.only);
  const views: ProfileView[] = [];
  for (const name of listed) {
    views.push(profileView(await factsOf(await home.open(name), selection.active, sticky)));
  }
  return views;
}

/**
 * One profile (any existing one, `default` included) with its skills.
 *
 * @throws ProfileNotFoundError for a named profile that does not exist.
 */
export async function showProfile(
  home: ProfileHome,
  name: string,
  selection: ProfileSelection,
): Promise<ProfileDetailView> {
  const profile = await home.open(parseProfileSelector(name));
  return profileDetailView(await factsOf(profile, selection.active, await stickyOrNone(home)));
}

/** How {@link createProfile} fills a new profile. */
export interface CreateProfileOptions {
  /** A user-authored description, checked by {@link parseUserDescription}. */
  description?: string;
  /** Seed the bundled skills (the default); false writes the opt-out marker instead. */
  bundledSkills?: boolean;
  /** The profile the caller uses now, to mark `active` in the view. */
  active?: string;
}

/**
 * Creates a fresh named profile: an empty home with the bundled skills
 * seeded (or the opt-out marker) and an optional description.
 *
 * @throws ProfileNameError for an invalid or reserved name.
 * @throws DescriptionInvalidError for a description too long or holding control characters.
 * @throws ProfileExistsError when the profile exists already.
 */
export async function createProfile(
  home: ProfileHome,
  name: string,
  options: CreateProfileOptions = {},
): Promise<CreatedProfileView> {
  const profile = await home.create(parseProfileName(name, "name"), {
    description: newDescription(options.description),
    bundledSkills: options.bundledSkills,
  });
  return await createdView(home, profile, options, null, null);
}

/** A new profile's description as stored; undefined when none (or only blanks) was given. */
function newDescription(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const description = parseUserDescription(text);
  return description === "" ? undefined : description;
}

/** What {@link cloneProfile} copies, and from where. */
export interface CloneProfileOptions extends CreateProfileOptions {
  /** The existing profile to copy from (`default` for the root home). */
  from: string;
  /** `config`: settings, secrets, persona, skills, memories; `all`: everything but history. */
  mode: CloneMode;
  /** Keep the messaging platforms' secrets (bot tokens) in the copied `.env`. */
  keepChannels?: boolean;
}

/**
 * Creates a named profile as a copy of another: its settings, secrets,
 * persona, skills and memories (`config`) or everything but its history
 * (`all`). The messaging platforms' secrets (bot tokens) stay behind unless
 * `keepChannels`, so the two profiles never serve the same bot.
 *
 * @throws ProfileNameError for an invalid or reserved name, or source name (`clone_from`).
 * @throws DescriptionInvalidError for a description too long or holding control characters.
 * @throws ProfileNotFoundError when the source profile does not exist.
 * @throws ProfileExistsError when the profile exists already.
 */
export async function cloneProfile(
  home: ProfileHome,
  name: string,
  options: CloneProfileOptions,
): Promise<CreatedProfileView> {
  const parsed = parseProfileName(name, "name");
  const description = newDescription(options.description);
  const source = await home.open(sourceName(options.from));
  const profile = await home.create(parsed, {
    clone: { from: source.name, mode: options.mode, keepChannels: options.keepChannels },
    description,
    bundledSkills: options.bundledSkills,
  });
  return await createdView(home, profile, options, options.mode, source.name);
}

/** The codes of a {@link ProfileNameError}. */
type ProfileNameCode = ConstructorParameters<typeof ProfileNameError>[1];

/** The profile a clone copies, parsed; a bad name says it was the source's (`clone_from`). */
function sourceName(from: string): string {
  try {
    return parseProfileSelector(from);
  } catch (error) {
    if (!(error instanceof ProfileNameError)) throw error;
    throw new ProfileNameError(
      error.input,
      error.code as ProfileNameCode,
      `The profile to copy ("clone_from"): ${error.message}`,
      "clone_from",
    );
  }
}

/** A new profile as `herald profile create` and `POST /api/profiles` ask for it. */
export interface NewProfileOptions extends CreateProfileOptions {
  /** Copy this existing profile (`default` for the root home); without it the profile is fresh. */
  cloneFrom?: string;
  /** What a clone copies (default `config`); only with `cloneFrom`. */
  cloneMode?: CloneMode;
  /** Keep the messaging platforms' secrets in the copied `.env`; only with `cloneFrom`. */
  cloneChannels?: boolean;
}

/**
 * Creates a profile, fresh ({@link createProfile}) or, with `cloneFrom`,
 * as a copy of another ({@link cloneProfile}).
 *
 * @throws CloneOptionsError for `cloneMode` or `cloneChannels` without `cloneFrom`.
 * @throws ProfileNameError, DescriptionInvalidError, ProfileNotFoundError, ProfileExistsError
 * as those two do.
 */
export async function newProfile(
  home: ProfileHome,
  name: string,
  options: NewProfileOptions,
): Promise<CreatedProfileView> {
  const { cloneFrom, cloneMode, cloneChannels, ...fill } = options;
  if (cloneFrom === undefined) {
    if (cloneMode !== undefined) throw new CloneOptionsError("clone_mode");
    if (cloneChannels !== undefined) throw new CloneOptionsError("clone_channels");
    return await createProfile(home, name, fill);
  }
  return await cloneProfile(home, name, {
    ...fill,
    from: cloneFrom,
    mode: cloneMode ?? "config",
    keepChannels: cloneChannels ?? false,
  });
}

async function createdView(
  home: ProfileHome,
  profile: CreatedHomeProfile,
  options: CreateProfileOptions,
  clone: CloneMode | null,
  clonedFrom: string | null,
): Promise<CreatedProfileView> {
  const facts = await factsOf(profile, options.active, await stickyOrNone(home));
  return {
    ...profileView(facts),
    clone,
    cloned_from: clonedFrom,
    bundled_skills: options.bundledSkills ?? true,
    stripped_secrets: [...profile.strippedSecrets],
  };
}

/** What {@link deleteProfile} did. */
export interface DeletedProfileView {
  name: string;
  home: string;
  /** True when it was the sticky default, which now goes back to `default`. */
  cleared_sticky: boolean;
}

/** Options of {@link deleteProfile}. */
export interface DeleteProfileOptions {
  /**
   * Asks a person to confirm, after the profile is known to exist; false
   * cancels. It may throw to refuse (for example when nobody can be asked).
   * Without it the profile is deleted at once.
   */
  confirm?: (profile: { name: string; home: string }) => Promise<boolean>;
}

/**
 * Deletes a named profile and everything in it, and clears the sticky
 * default when it named this profile.
 *
 * @throws DefaultProfileError for `default`.
 * @throws ProfileNotFoundError when it does not exist.
 * @throws ProfileDeleteRefusedError (`profile_delete_cancelled`) when `confirm` said no.
 */
export async function deleteProfile(
  home: ProfileHome,
  name: string,
  options: DeleteProfileOptions = {},
): Promise<DeletedProfileView> {
  const parsed = parseProfileSelector(name);
  if (parsed === DEFAULT_PROFILE) throw new DefaultProfileError("deleted");
  const profile = await home.open(parsed);
  const target = { name: profile.name, home: profile.home };
  if (options.confirm && !(await options.confirm(target))) {
    throw new ProfileDeleteRefusedError(profile.name, "profile_delete_cancelled");
  }
  const { clearedSticky } = await home.remove(profile.name);
  return { ...target, cleared_sticky: clearedSticky };
}

/**
 * Makes `name` the sticky default used when no profile is selected;
 * `default` removes the sticky default. Returns the sticky profile now
 * (null for `default`).
 *
 * @throws ProfileNotFoundError for a named profile that does not exist.
 */
export async function useProfile(
  home: ProfileHome,
  name: string,
): Promise<{ sticky: string | null }> {
  const parsed = parseProfileSelector(name);
  if (parsed === DEFAULT_PROFILE) {
    await home.writeSticky(undefined);
    return { sticky: null };
  }
  await home.open(parsed);
  await home.writeSticky(parsed);
  return { sticky: parsed };
}

/** What to do with a profile's description. */
export type DescribeRequest =
  | { mode: "show" }
  | { mode: "set"; text: string }
  /** Generate one; a user-authored description is kept unless `overwrite`. */
  | { mode: "auto"; overwrite: boolean };

/** What describing one profile did (its JSON view). */
export type DescribeResult =
  | ({ profile: string; status: "shown" | "set" | "generated" | "kept" } & ProfileMeta)
  | { profile: string; status: "failed"; error: { code: string; message: string } };

/** Options of the describe use cases. */
export interface DescribeOptions {
  /** Told about problems in files that did not stop the work (a corrupt profile.yaml). */
  onWarning?: (message: string) => void;
}

/**
 * Shows, sets or generates one profile's description. `set` stores a
 * person's text as {@link parseUserDescription} reads it. `auto` asks the
 * `profile_describer` auxiliary model, telling it the profile's skills and
 * model, and keeps a user-authored description unless `overwrite`; this is
 * what `herald profile describe --auto` and the kanban plugin's
 * `describe-auto` call.
 *
 * @throws ProfileNotFoundError for a named profile that does not exist.
 * @throws DescriptionInvalidError when `set` text is too long or holds control characters.
 * @throws EmptyDescriptionError when the model's answer held no description (nothing is written).
 * @throws ModelError when no auxiliary model can be used or the call fails.
 */
export async function describeProfile(
  home: ProfileHome,
  name: string,
  request: DescribeRequest,
  options: DescribeOptions = {},
): Promise<DescribeResult> {
  const profile = await home.open(parseProfileSelector(name));
  return await describeOne(home, profile, request, options);
}

/** What describing several profiles did. */
export interface DescribeProfilesOutcome {
  /** One result per profile, in order. */
  results: DescribeResult[];
  /** Set when any profile failed: one error naming them, to raise after showing the results. */
  error?: HeraldError;
}

/**
 * Describes every profile in order (`profile describe --all`). A generated
 * description that fails with a {@link HeraldError} becomes a `failed`
 * result and the rest go on (the outcome's `error` then names the failed
 * profiles); other errors propagate.
 */
export async function describeEveryProfile(
  home: ProfileHome,
  request: DescribeRequest,
  options: DescribeOptions = {},
): Promise<DescribeProfilesOutcome> {
  const results: DescribeResult[] = [];
  const failures: HeraldError[] = [];
  for (const name of await home.listNames()) {
    const profile = await home.open(name);
    if (request.mode !== "auto") {
      results.push(await describeOne(home, profile, request, options));
      continue;
    }
    try {
      results.push(await describeOne(home, profile, request, options));
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      failures.push(error);
      results.push({
        profile: profile.name,
        status: "failed",
        error: { code: error.code, message: error.message },
      });
    }
  }
  if (failures.length === 0) return { results };
  const failed = results.filter((r) => r.status === "failed").map((r) => r.profile);
  const error = new HeraldError(
    "profile_describe_failed",
    failureKind(failures),
    `Could not describe ${failed.length} of ${results.length} profiles (${failed.join(", ")}); ` +
      "see the messages above",
  );
  return { results, error };
}

/** One kind for several failures: theirs when they agree, else `usage` when all are the caller's. */
function failureKind(failures: readonly HeraldError[]): ErrorKind {
  const [first] = failures;
  if (failures.every((failure) => failure.kind === first.kind)) return first.kind;
  return failures.every((failure) => isCallerKind(failure.kind)) ? "usage" : "state";
}

async function readMeta(profile: HomeProfile, options: DescribeOptions): Promise<ProfileMeta> {
  const { meta, warning } = await profile.readMeta();
  if (warning !== undefined) options.onWarning?.(warning);
  return meta;
}

async function describeOne(
  home: ProfileHome,
  profile: HomeProfile,
  request: DescribeRequest,
  options: DescribeOptions,
): Promise<DescribeResult> {
  const name = profile.name;
  switch (request.mode) {
    case "show":
      return { profile: name, status: "shown", ...(await readMeta(profile, options)) };
    case "set": {
      const { meta } = await profile.writeDescription(parseUserDescription(request.text), {
        auto: false,
      });
      return { profile: name, status: "set", ...meta };
    }
    case "auto":
      return await generateDescription(home, profile, request.overwrite, options);
  }
}

/**
 * Generates and stores a description, unless it is user-authored and not to
 * be overwritten: checked before asking the model, and again inside the
 * write, so a description a person saved while the model answered is kept.
 */
async function generateDescription(
  home: ProfileHome,
  profile: HomeProfile,
  overwrite: boolean,
  options: DescribeOptions,
): Promise<DescribeResult> {
  const name = profile.name;
  const meta = await readMeta(profile, options);
  if (isUserAuthored(meta) && !overwrite) return { profile: name, status: "kept", ...meta };
  const { config, credentials, warnings } = await profile.loadConfig();
  for (const warning of warnings) options.onWarning?.(warning);
  const skills = await profile.listSkills();
  const prompt = describerPrompt({
    profile: name,
    model: config.model.default,
    provider: config.model.provider,
    skills,
  });
  const answer = await callAuxiliary(
    home.createClient,
    config,
    credentials,
    PROFILE_DESCRIBER_TASK,
    prompt,
  );
  const description = normalizeDescription(answer);
  if (description === "") throw new EmptyDescriptionError(name);
  const stored = await profile.writeDescription(description, {
    auto: true,
    keepUserAuthored: !overwrite,
  });
  return { profile: name, status: stored.written ? "generated" : "kept", ...stored.meta };
}
