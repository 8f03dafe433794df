/**
 * `herald update`: the decisions and the order of the steps, pure over the
 * {@link UpdatePorts} that adapters/install/update.ts implements (git, the
 * release download, the snapshot, the start probe, the rollback, gateway
 * restarts and receipts).
 *
 * Only an install Herald manages is touched: a git checkout (pinned to its
 * branch; a detached HEAD follows `main`) or Herald's own release binary.
 * The order of an applied update:
 *
 * 1. refuse what cannot be updated safely (unmanaged install, uncommitted
 *    changes to tracked files, a branch that diverged from its remote);
 * 2. snapshot every profile's config, `.env`, cron jobs and pairing data;
 * 3. put the new code in place (fast-forward + `deno install --frozen`, or
 *    the verified binary);
 * 4. the new code must start (`--version` and `--help` in a subprocess),
 *    else the previous code is put back and the update fails;
 * 5. restart each running gateway once its in-flight turns have finished;
 * 6. a receipt of all of it, also for a refused, failed or rolled-back update.
 *
 * `--check` and `--plan` stop after the fetch and change nothing.
 *
 * @module
 */

import { HeraldError } from "../errors.ts";

/** The branch a detached checkout follows when no `--branch` is given. */
export const DEFAULT_BRANCH = "main";

/** What kind of install runs this Herald, and whether `herald update` may touch it. */
export type InstallFacts =
  | { kind: "checkout"; dir: string }
  | { kind: "binary"; dir: string; binary: string; releaseUrl: string | null }
  | { kind: "unmanaged"; reason: string; hint: string };

/** What is installed now. */
export interface CurrentCode {
  /** The full commit installed. */
  commit: string;
  /** The branch checked out (or the release's branch); null for a detached checkout. */
  branch: string | null;
  /** Tracked files with uncommitted changes (a checkout only). */
  dirty: string[];
}

/** What the remote (or the release) offers for a branch, after a fetch. */
export interface Available {
  /** The commit an update would move to. */
  commit: string;
  /** Commits the installed branch lacks. */
  behind: number;
  /** Commits the installed branch has that the remote lacks (a diverged branch when behind too). */
  ahead: number;
  /** One line per new commit, newest first (at most a few). */
  subjects: string[];
  /**
   * Commits of a detached HEAD that no branch, remote or tag holds: moving to
   * the update would leave them reachable only from the reflog.
   */
  unreachable?: number;
}

/** What the start probe of the new code said. */
export interface ProbeResult {
  ok: boolean;
  /** The version line on success, else what failed (output tail, exit code or timeout). */
  output: string;
}

/** What the snapshot holds. */
export interface SnapshotResult {
  dir: string;
  files: string[];
}

/** The outcome of one gateway restart. */
export interface GatewayRestart {
  profile: string;
  ok: boolean;
  message: string;
}

/** How the code is fetched, put in place, probed and put back. */
export interface UpdateSource {
  /** What is installed now. */
  current(): Promise<CurrentCode>;
  /** Fetches what `branch` offers (git metadata or the release's stamp); the installed code is untouched. */
  available(branch: string): Promise<Available>;
  /** Puts `to` in place (fast-forward or switch, dependencies; or the new binary). */
  apply(plan: UpdatePlan): Promise<void>;
  /** Runs the installed code (`--version`, `--help`) in a subprocess with a time limit. */
  probe(): Promise<ProbeResult>;
  /** Puts the code of `plan.from` back, as it was before {@link apply}. */
  rollback(plan: UpdatePlan): Promise<void>;
}

/** A receipt: one per update, in `logs/update_receipts/`. */
export interface UpdateReceipt {
  version: 1;
  id: string;
  started_at: string;
  finished_at: string;
  install: { kind: InstallFacts["kind"]; dir: string | null };
  branch: string | null;
  from: string | null;
  to: string | null;
  result: UpdateResultKind;
  /** Null when no rollback was needed; else whether it worked and why it ran. */
  rollback: { reason: string; ok: boolean; error: string | null } | null;
  snapshot: string | null;
  gateways: GatewayRestart[];
  steps: string[];
  error: string | null;
  durations_ms: Record<string, number>;
}

/** The ports {@link runUpdate} works through. */
export interface UpdatePorts {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Which install this is. */
  install(): Promise<InstallFacts>;
  /** The source of a managed install. */
  source(install: Exclude<InstallFacts, { kind: "unmanaged" }>): UpdateSource;
  /** Copies every profile's config, `.env`, cron jobs and pairing data; the id names the folder. */
  snapshot(id: string): Promise<SnapshotResult>;
  /** Profiles whose gateway runs now. */
  runningGateways(): Promise<string[]>;
  /** Waits for the profile's in-flight turns, then restarts its gateway with the new code. */
  restartGateway(profile: string): Promise<GatewayRestart>;
  /** Writes a receipt (and `latest.json`), keeping the newest few; returns its path. */
  writeReceipt(receipt: UpdateReceipt): Promise<string>;
  /** Asks the person whether to apply; undefined when nobody can be asked. */
  confirm?: (question: string) => Promise<boolean>;
  /** A progress line for people. */
  progress(line: string): void;
  /**
   * Runs `work` as the only install, update or bootstrap of `install` at a
   * time (across processes); throws when another one holds it too long.
   */
  exclusive?<T>(
    install: Exclude<InstallFacts, { kind: "unmanaged" }>,
    work: () => Promise<T>,
  ): Promise<T>;
}

/** What `herald update` was asked. */
export interface UpdateRequest {
  branch?: string;
  check?: boolean;
  plan?: boolean;
  yes?: boolean;
}

/** The decided update. */
export interface UpdatePlan {
  install: Exclude<InstallFacts, { kind: "unmanaged" }>;
  /** The branch followed after the update. */
  branch: string;
  /** The branch checked out before (null: detached, or a binary). */
  previousBranch: string | null;
  /** True when the checkout moves to another branch. */
  switching: boolean;
  from: string;
  to: string;
  behind: number;
  ahead: number;
  subjects: string[];
  /** True when nothing would change. */
  upToDate: boolean;
  /** The steps an update takes, in order, for people. */
  steps: string[];
}

/** How an update ended. */
export type UpdateResultKind =
  | "checked"
  | "planned"
  | "up_to_date"
  | "updated"
  | "rolled_back"
  | "failed"
  | "refused"
  | "declined";

/** What {@link runUpdate} returns. */
export interface UpdateOutcome {
  result: UpdateResultKind;
  plan: UpdatePlan | null;
  receipt: string | null;
  snapshot: string | null;
  gateways: GatewayRestart[];
  message: string;
}

/** `abc1234…` → `abc1234` (12 characters) for people. */
export function shortCommit(commit: string): string {
  return commit.slice(0, 12);
}

/**
 * The branch an update follows: `--branch`, else the checked-out branch,
 * else {@link DEFAULT_BRANCH} for a detached checkout.
 *
 * @example
 * ```ts
 * updateBranch(undefined, "release-2"); // "release-2"
 * updateBranch(undefined, null);        // "main"
 * updateBranch("next", "main");         // "next"
 * ```
 */
export function updateBranch(requested: string | undefined, current: string | null): string {
  const wanted = requested?.trim();
  if (wanted) return wanted;
  return current ?? DEFAULT_BRANCH;
}

/** Refuses a branch name git would read as an option or a range (`-x`, `a..b`, spaces). */
export function checkBranchName(branch: string): void {
  if (/^-|\.\.|[\s~^:?*[\\]|@\{|\/$|\.lock$/.test(branch) || branch === "") {
    throw new HeraldError(
      "update_branch_invalid",
      "usage",
      `"${branch}" is not a branch name git accepts; pass --branch <name>, for example --branch main`,
    );
  }
}

/** The refusal of an install Herald does not manage (exit 2). */
export function unmanagedError(install: Extract<InstallFacts, { kind: "unmanaged" }>): HeraldError {
  return new HeraldError(
    "update_unmanaged_install",
    "usage",
    `${install.reason}: ${install.hint}`,
    { details: { reason: install.reason, hint: install.hint } },
  );
}

/** The refusal of a checkout with uncommitted changes to tracked files (exit 1). */
export function dirtyError(dir: string, files: readonly string[]): HeraldError {
  const shown = files.slice(0, 5).join(", ") + (files.length > 5 ? `, ... (${files.length})` : "");
  return new HeraldError(
    "update_local_changes",
    "state",
    `${dir} has uncommitted changes to tracked files (${shown}); nothing was changed. Commit ` +
      `them (git -C ${dir} commit -am "..."), or put them aside (git -C ${dir} stash), then ` +
      "run herald update again",
    { details: { files: files.join(", ") } },
  );
}

/** The refusal of a detached checkout whose commits are on no branch (exit 1). */
export function unreachableError(dir: string, count: number): HeraldError {
  return new HeraldError(
    "update_unreachable_commits",
    "state",
    `${dir} is on a detached HEAD with ${count} commit${count === 1 ? "" : "s"} that no branch ` +
      `or tag holds; an update would leave ${
        count === 1 ? "it" : "them"
      } behind, so nothing was changed. ` +
      `Keep ${count === 1 ? "it" : "them"} with git -C ${dir} branch <name>, then run herald ` +
      "update again",
    { details: { unreachable: count } },
  );
}

/** The refusal of a branch that diverged from its remote (exit 1). */
export function divergedError(dir: string, branch: string, plan: Available): HeraldError {
  return new HeraldError(
    "update_diverged",
    "state",
    `${branch} in ${dir} has ${plan.ahead} commit${plan.ahead === 1 ? "" : "s"} that ` +
      `origin/${branch} lacks and lacks ${plan.behind}; an update only fast-forwards, so nothing ` +
      `was changed. Resolve it with git -C ${dir} pull --rebase origin ${branch} (or git -C ${dir} ` +
      `reset --hard origin/${branch} to drop your commits), then run herald update again`,
    { details: { ahead: plan.ahead, behind: plan.behind } },
  );
}

/**
 * The plan of an update from what is installed and what is available. Pure.
 *
 * @example
 * ```ts
 * const plan = decidePlan(install, { commit: "a", branch: "main", dirty: [] }, "main",
 *   { commit: "b", behind: 2, ahead: 0, subjects: [] });
 * plan.upToDate; // false
 * ```
 */
export function decidePlan(
  install: UpdatePlan["install"],
  current: CurrentCode,
  branch: string,
  available: Available,
): UpdatePlan {
  const switching = install.kind === "checkout" && current.branch !== branch;
  const upToDate = !switching && (available.behind === 0 || available.commit === current.commit);
  const plan: UpdatePlan = {
    install,
    branch,
    previousBranch: current.branch,
    switching,
    from: current.commit,
    to: available.commit,
    behind: available.behind,
    ahead: available.ahead,
    subjects: available.subjects,
    upToDate,
    steps: [],
  };
  plan.steps = planSteps(plan);
  return plan;
}

/** The steps an update of `plan` takes, for `--plan` and the receipt. */
export function planSteps(plan: UpdatePlan): string[] {
  if (plan.upToDate) return [`nothing to do: ${shortCommit(plan.from)} is the newest commit`];
  const steps = ["snapshot every profile's config.yaml, .env, cron/jobs.json and pairing.json"];
  if (plan.install.kind === "checkout") {
    if (plan.switching) {
      steps.push(
        `switch ${plan.install.dir} from ${
          plan.previousBranch ?? "a detached HEAD"
        } to ${plan.branch}`,
      );
    }
    steps.push(
      `fast-forward ${plan.branch} from ${shortCommit(plan.from)} to ${shortCommit(plan.to)} ` +
        `(${plan.behind} commit${plan.behind === 1 ? "" : "s"})`,
      "deno install --frozen (the npm dependencies)",
    );
  } else {
    steps.push(
      `download the release binary for ${shortCommit(plan.to)}, verify it against SHA256SUMS, ` +
        `replace ${plan.install.binary} (the old one kept until the new one starts)`,
    );
  }
  steps.push(
    "start the new code (herald --version, herald --help); if it fails, put " +
      `${shortCommit(plan.from)} back`,
    "restart each running gateway after its in-flight turns finish",
    "write a receipt in logs/update_receipts/",
  );
  return steps;
}

/** A receipt id from a time: `2026-11-24T21-13-37-123Z` (sorts by time, safe as a file name). */
export function receiptId(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, "-");
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `herald update`: detects the install, fetches, decides, and (unless
 * `--check` or `--plan`, or nothing is new) snapshots, applies, probes,
 * rolls back on a failed start, restarts running gateways and writes the
 * receipt.
 *
 * @throws HeraldError `update_unmanaged_install` (exit 2), `update_local_changes`,
 *   `update_diverged`, `update_needs_yes`, `update_rolled_back`, `update_failed` (exit 1).
 */
export async function runUpdate(
  request: UpdateRequest,
  ports: UpdatePorts,
): Promise<UpdateOutcome> {
  const exclusive = ports.exclusive;
  if (request.check || request.plan || !exclusive) return await updateOnce(request, ports);
  // Two updates at once (the CLI and the dashboard) could each keep the other's binary as the
  // one to roll back to: one at a time, from reading the current code to the rollback.
  const install = await ports.install();
  if (install.kind === "unmanaged") return await updateOnce(request, ports);
  return await exclusive(
    install,
    () => updateOnce(request, { ...ports, install: () => Promise.resolve(install) }),
  );
}

/** {@link runUpdate} without the lock. */
async function updateOnce(request: UpdateRequest, ports: UpdatePorts): Promise<UpdateOutcome> {
  const started = ports.now();
  const id = receiptId(started);
  const durations: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const at = ports.now();
    try {
      return await work();
    } finally {
      durations[name] = ports.now() - at;
    }
  };
  const dryRun = request.check === true || request.plan === true;
  const receipt: UpdateReceipt = {
    version: 1,
    id,
    started_at: new Date(started).toISOString(),
    finished_at: "",
    install: { kind: "unmanaged", dir: null },
    branch: null,
    from: null,
    to: null,
    result: "failed",
    rollback: null,
    snapshot: null,
    gateways: [],
    steps: [],
    error: null,
    durations_ms: durations,
  };
  const finish = async (result: UpdateResultKind, error?: unknown): Promise<string | null> => {
    receipt.result = result;
    receipt.error = error === undefined ? null : errorText(error);
    receipt.finished_at = new Date(ports.now()).toISOString();
    durations.total = ports.now() - started;
    return await ports.writeReceipt(receipt);
  };

  if (request.branch !== undefined) checkBranchName(request.branch.trim());
  const install = await ports.install();
  if (install.kind === "unmanaged") {
    const error = unmanagedError(install);
    if (!dryRun) await finish("refused", error);
    throw error;
  }
  receipt.install = { kind: install.kind, dir: install.dir };
  const source = ports.source(install);
  const current = await source.current();
  receipt.from = current.commit;
  const branch = updateBranch(request.branch, current.branch);
  receipt.branch = branch;
  if (install.kind === "checkout" && current.dirty.length > 0 && !dryRun) {
    const error = dirtyError(install.dir, current.dirty);
    await finish("refused", error);
    throw error;
  }
  ports.progress(
    install.kind === "checkout" ? `Fetching ${branch} from origin` : "Reading the release",
  );
  const available = await timed("fetch", () => source.available(branch));
  const plan = decidePlan(install, current, branch, available);
  receipt.to = plan.to;
  receipt.steps = plan.steps;
  const outcome = (result: UpdateResultKind, message: string): UpdateOutcome => ({
    result,
    plan,
    receipt: null,
    snapshot: receipt.snapshot,
    gateways: receipt.gateways,
    message,
  });
  const diverged = install.kind === "checkout" && plan.ahead > 0 && plan.behind > 0;
  const unreachable = install.kind === "checkout" ? available.unreachable ?? 0 : 0;

  if (request.check) {
    const note = diverged
      ? `; ${branch} diverged (${plan.ahead} local commits), so an update would be refused`
      : unreachable > 0
      ? `; the detached HEAD has ${unreachable} commits on no branch, so an update would be refused`
      : current.dirty.length > 0
      ? "; the checkout has uncommitted changes, so an update would be refused"
      : "";
    return outcome(
      "checked",
      plan.upToDate
        ? `Up to date: ${shortCommit(plan.from)} on ${branch}${note}`
        : `Update available: ${plan.behind} commit${plan.behind === 1 ? "" : "s"} behind ` +
          `(${shortCommit(plan.from)} -> ${shortCommit(plan.to)} on ${branch})${note}`,
    );
  }
  if (request.plan) return outcome("planned", plan.steps.join("\n"));
  if (diverged) {
    const error = divergedError(install.dir, branch, available);
    await finish("refused", error);
    throw error;
  }
  if (unreachable > 0) {
    const error = unreachableError(install.dir, unreachable);
    await finish("refused", error);
    throw error;
  }
  if (plan.upToDate) {
    const done = outcome(
      "up_to_date",
      `Already up to date: ${shortCommit(plan.from)} on ${branch}`,
    );
    done.receipt = await finish("up_to_date");
    return done;
  }

  if (!request.yes) {
    if (!ports.confirm) {
      throw new HeraldError(
        "update_needs_yes",
        "usage",
        `An update to ${shortCommit(plan.to)} (${plan.behind} commits) is available, but nobody ` +
          "can confirm it here; run herald update --yes to apply it, or herald update --plan to see the steps",
      );
    }
    const yes = await ports.confirm(
      `Update ${shortCommit(plan.from)} -> ${shortCommit(plan.to)} on ${branch}?`,
    );
    if (!yes) return outcome("declined", "Nothing was changed");
  }

  ports.progress("Snapshotting every profile's config, .env, cron jobs and pairing data");
  try {
    const snapshot = await timed("snapshot", () => ports.snapshot(id));
    receipt.snapshot = snapshot.dir;
  } catch (error) {
    await finish("failed", error);
    throw new HeraldError(
      "update_snapshot_failed",
      "state",
      `The snapshot before the update failed, so nothing was changed: ${errorText(error)}`,
    );
  }

  ports.progress(`Installing ${shortCommit(plan.to)}`);
  let failure: string | undefined;
  try {
    await timed("apply", () => source.apply(plan));
  } catch (error) {
    failure = `putting the new code in place failed: ${errorText(error)}`;
  }
  if (failure === undefined) {
    ports.progress("Starting the new code (herald --version)");
    const probe = await timed("probe", () => source.probe());
    if (!probe.ok) failure = `the new code does not start: ${probe.output}`;
  }
  if (failure !== undefined) {
    ports.progress(`Putting ${shortCommit(plan.from)} back: ${failure}`);
    let rollbackError: string | null = null;
    try {
      await timed("rollback", () => source.rollback(plan));
      const again = await source.probe();
      if (!again.ok) rollbackError = `the restored code does not start either: ${again.output}`;
    } catch (error) {
      rollbackError = errorText(error);
    }
    receipt.rollback = { reason: failure, ok: rollbackError === null, error: rollbackError };
    const message = rollbackError === null
      ? `The update to ${shortCommit(plan.to)} was rolled back: ${failure}. ` +
        `${shortCommit(plan.from)} is installed again and runs`
      : `The update to ${shortCommit(plan.to)} failed (${failure}) and putting ` +
        `${
          shortCommit(plan.from)
        } back failed too: ${rollbackError}. The snapshot is in ${receipt.snapshot}`;
    const path = await finish(rollbackError === null ? "rolled_back" : "failed", message);
    throw new HeraldError(
      rollbackError === null ? "update_rolled_back" : "update_failed",
      "state",
      `${message}; receipt: ${path}`,
    );
  }

  const running = await ports.runningGateways();
  if (running.length > 0) {
    ports.progress(`Restarting the gateway of ${running.join(", ")} after in-flight turns finish`);
    receipt.gateways = await timed("gateways", async () => {
      const done: GatewayRestart[] = [];
      for (const profile of running) done.push(await ports.restartGateway(profile));
      return done;
    });
  }
  const path = await finish("updated");
  const failed = receipt.gateways.filter((gateway) => !gateway.ok);
  const result = outcome(
    "updated",
    `Updated ${branch}: ${shortCommit(plan.from)} -> ${shortCommit(plan.to)}` +
      (failed.length > 0
        ? `; the gateway of ${failed.map((g) => g.profile).join(", ")} did not restart: ` +
          `run herald -p <profile> gateway restart`
        : ""),
  );
  result.receipt = path;
  return result;
}
