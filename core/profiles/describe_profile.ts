/**
 * Describing a profile, the one use case behind `herald profile describe`
 * (and any future API route): show the stored description, set one a person
 * wrote, or generate one with the `profile_describer` auxiliary model. The
 * decisions live here; the profile's files and the model client arrive as
 * {@link ProfileDescriberPorts} (adapters/home/profile_describer.ts).
 *
 * @module
 */

import type { EnvLookup } from "../config/load.ts";
import type { HeraldConfig } from "../config/schema.ts";
import { type ErrorKind, HeraldError, isCallerKind } from "../errors.ts";
import { callAuxiliary } from "../models/auxiliary.ts";
import type { ModelClientFactory } from "../models/settings.ts";
import {
  describerPrompt,
  EmptyDescriptionError,
  normalizeDescription,
  PROFILE_DESCRIBER_TASK,
  type ProfileSkill,
} from "./describe.ts";
import { isUserAuthored, type ProfileMeta } from "./meta.ts";

/** The I/O describing one profile needs. */
export interface ProfileDescriberPorts {
  /** The profile's name (`default` for the root home). */
  profile: string;
  /** `profile.yaml` as stored; a corrupt file reads as the defaults (the adapter reports it). */
  readMeta(): Promise<ProfileMeta>;
  /** Stores the description fields (creating the home when missing); returns what is stored. */
  writeDescription(description: string, auto: boolean): Promise<ProfileMeta>;
  /** The profile's installed skills. */
  listSkills(): Promise<readonly ProfileSkill[]>;
  /** The profile's config and the credentials a session would use. */
  loadConfig(): Promise<{ config: HeraldConfig; credentials: EnvLookup }>;
  /** Makes the model client for the auxiliary call. */
  createClient: ModelClientFactory;
}

/** What to do with a profile's description. */
export type DescribeRequest =
  | { mode: "show" }
  | { mode: "set"; text: string }
  /** Generate one; a user-authored description is kept unless `overwrite`. */
  | { mode: "auto"; overwrite: boolean };

/** What describing one profile did. */
export type DescribeResult =
  | ({ profile: string; status: "shown" | "set" | "generated" | "kept" } & ProfileMeta)
  | { profile: string; status: "failed"; error: { code: string; message: string } };

/**
 * Shows, sets or generates one profile's description.
 *
 * @throws EmptyDescriptionError when the model's answer held no description (nothing is written).
 * @throws ModelError when no auxiliary model can be used or the call fails.
 *
 * @example
 * ```ts
 * const result = await describeProfile(ports, { mode: "auto", overwrite: false });
 * ```
 */
export async function describeProfile(
  ports: ProfileDescriberPorts,
  request: DescribeRequest,
): Promise<DescribeResult> {
  const profile = ports.profile;
  switch (request.mode) {
    case "show":
      return { profile, status: "shown", ...(await ports.readMeta()) };
    case "set":
      return { profile, status: "set", ...(await ports.writeDescription(request.text, false)) };
    case "auto":
      return await generateDescription(ports, request.overwrite);
  }
}

/** What describing several profiles did. */
export interface DescribeProfilesOutcome {
  /** One result per profile, in order. */
  results: DescribeResult[];
  /** Set when any profile failed: one error naming them, to raise after showing the results. */
  error?: HeraldError;
}

/**
 * Describes several profiles in order. A generated description that fails
 * with a {@link HeraldError} becomes a `failed` result and the rest go on
 * (the outcome's `error` then names the failed profiles); other errors
 * propagate.
 *
 * @example
 * ```ts
 * const { results, error } = await describeProfiles(everyProfile, { mode: "auto", overwrite: false });
 * ```
 */
export async function describeProfiles(
  targets: readonly ProfileDescriberPorts[],
  request: DescribeRequest,
): Promise<DescribeProfilesOutcome> {
  const results: DescribeResult[] = [];
  const failures: HeraldError[] = [];
  for (const ports of targets) {
    if (request.mode !== "auto") {
      results.push(await describeProfile(ports, request));
      continue;
    }
    try {
      results.push(await describeProfile(ports, request));
    } catch (error) {
      if (!(error instanceof HeraldError)) throw error;
      failures.push(error);
      results.push({
        profile: ports.profile,
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

/** Generates and stores a description (unless it is user-authored and not to be overwritten). */
async function generateDescription(
  ports: ProfileDescriberPorts,
  overwrite: boolean,
): Promise<DescribeResult> {
  const profile = ports.profile;
  const meta = await ports.readMeta();
  if (isUserAuthored(meta) && !overwrite) return { profile, status: "kept", ...meta };
  const { config, credentials } = await ports.loadConfig();
  const skills = await ports.listSkills();
  const prompt = describerPrompt({
    profile,
    model: config.model.default,
    provider: config.model.provider,
    skills,
  });
  const answer = await callAuxiliary(
    ports.createClient,
    config,
    credentials,
    PROFILE_DESCRIBER_TASK,
    prompt,
  );
  const description = normalizeDescription(answer);
  if (description === "") throw new EmptyDescriptionError(profile);
  return { profile, status: "generated", ...(await ports.writeDescription(description, true)) };
}
