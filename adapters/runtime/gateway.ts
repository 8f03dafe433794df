/**
 * A profile's gateway put together from real pieces: its config and
 * credentials, a channel for each platform it enables (from the bundled
 * plugins, adapters/channels/mod.ts), the inbound journal and the delivery
 * ledger in its state.db, its pairing store, the chat → session store, and
 * a conversation of the profile's agent for each chat. `herald gateway run` starts what this
 * returns (through gateway_process.ts). It lives in adapters/runtime, the
 * composition point: adapters/channels holds the parts and never imports
 * the runtime.
 *
 * A platform is enabled by `platforms.<id>.enabled: true` in config.yaml
 * or `<ID>_ENABLED=true` in the profile's environment (`API_SERVER_ENABLED`,
 * `TELEGRAM_ENABLED`, ...). An enabled platform does not run, and is shown
 * `refused` with the reason, when its plugin cannot create its channel (a
 * missing token) or when its bot credential is held by another profile's
 * running gateway; the other platforms run.
 *
 * Conversations are opened as the dashboard opens them
 * (server/ws/methods/session.ts): the profile's agent runtime, loaded
 * lazily, with the source `gateway:<platform>`; the conversations of one
 * platform share one runtime (shared_runtime.ts). Nobody watches them, so
 * they are unattended: a dangerous command runs only when the profile
 * allows it (`approvals.allow`, yolo mode); anything else is denied and
 * logged.
 *
 * @module
 */

import { isRecord } from "../../core/_util/json.ts";
import { join } from "node:path";
import { Conversation } from "../../core/agent/conversation.ts";
import type {
  Channel,
  ChannelClock,
  ChannelContext,
  ChannelPlugin,
  ChatAddress,
  ConversationOpener,
} from "../../core/channels/contract.ts";
import { formatAddress } from "../../core/channels/contract.ts";
import { type AccessPolicy, accessPolicy, accessWarning } from "../../core/channels/access.ts";
import { platformEnabled } from "../../core/messaging/platforms.ts";
import { type AttachmentPolicy, readAttachmentPolicy } from "../../core/channels/attachments.ts";
import type { EnvLookup, ProcessEnv } from "../../core/config/mod.ts";

export { platformEnabled };
import {
  GatewayRunner,
  type GatewayStatusSnapshot,
  type KeptAttachment,
  type PlatformStatus,
} from "../../core/gateway/mod.ts";
import type { ApprovalSurface } from "../../core/tools/approval_policy.ts";
import { mediaGuard } from "./media_guard.ts";
import { noListener, SYSTEM_CLOCK } from "./channel_defaults.ts";

export { SYSTEM_CLOCK };
import { loadConfigFile } from "../home/config_file.ts";
import { readProfileCredentials } from "../home/credentials.ts";
import type { ProfilePaths } from "../home/layout.ts";
import { openDeliveryLedger, openInboundJournal } from "../sqlite/mod.ts";
import {
  acquireCredentialLock,
  type CredentialLock,
  discoverPlugins,
  openChatSessionStore,
  openPairingStore,
} from "../channels/mod.ts";
import { openAgentRuntimeLazily } from "./lazy_agent_runtime.ts";
import { SharedRuntimes } from "./shared_runtime.ts";
import { openAutomations } from "./automations.ts";
import { errorText } from "../../core/errors.ts";

/** What a gateway is composed from. */
export interface GatewayComposeOptions {
  paths: ProfilePaths;
  /** The root home (where credential locks live, shared by every profile). */
  root: string;
  /** The process environment: the credentials fallback after `.env`. */
  env: ProcessEnv;
  /** The working folder of the agent's tools. */
  cwd: string;
  /** This process's pid, written into the credential locks. */
  pid: number;
  /** Takes one log line (never a secret). */
  log(line: string): void;
  /** Told when the runner's counts change (a turn started or ended, a message queued). */
  changed?(): void;
  /** Real time unless a test passes its own. */
  clock?: ChannelClock;
  /** The channels' HTTP client (the global `fetch` by default). */
  fetch?: typeof fetch;
  /** The plugins to use instead of the bundled ones (tests). */
  plugins?: readonly ChannelPlugin[];
  /**
   * Opens the channels' HTTP listeners (the program running the gateway
   * passes cli/listen.ts). Without it, a platform that needs one is refused.
   */
  listen?: ChannelContext["listen"];
}

/** A composed gateway, not started yet. */
export interface ComposedGateway {
  runner: GatewayRunner;
  /** What to warn about at start: access, attachment settings, platforms that do not run. */
  warnings: string[];
  /** Enabled platforms that do not run, each `refused` with why. */
  refused: PlatformStatus[];
  /** The runner's status with the refused platforms added. */
  status(): GatewayStatusSnapshot;
  /** Releases the credential locks and closes the ledger; call after `runner.stop()`. */
  close(): void;
}

/** A file or folder name made of safe characters only (no separators, no dots in front). */
function safeName(text: string, fallback: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(0, 100);
  return cleaned === "" ? fallback : cleaned;
}

/**
 * Where an admitted file of a chat is kept for the agent's tools:
 * `<home>/gateway/attachments/<platform>/<chat>/<time>-<name>`.
 */
function attachmentSaver(home: string, clock: ChannelClock) {
  return async (chat: ChatAddress, file: KeptAttachment): Promise<string> => {
    const folder = join(
      home,
      "gateway",
      "attachments",
      safeName(chat.platform, "platform"),
      safeName(chat.chatId, "chat"),
    );
    await Deno.mkdir(folder, { recursive: true });
    const stamp = new Date(clock.now()).toISOString().replace(/[:.]/g, "-");
    const path = join(folder, `${stamp}-${safeName(file.name, "file")}`);
    await Deno.writeFile(path, file.bytes, { mode: 0o600, createNew: true });
    return path;
  };
}

/**
 * Composes the gateway of the profile at `options.paths`.
 *
 * @throws ConfigParseError when config.yaml is not valid YAML.
 * @throws StoreError when state.db cannot be opened.
 *
 * @example
 * ```ts
 * const gateway = await composeGateway({ paths, root, env, cwd: Deno.cwd(), pid: Deno.pid, log });
 * for (const warning of gateway.warnings) console.error(warning);
 * await gateway.runner.start();
 * // ...
 * await gateway.runner.stop();
 * gateway.close();
 * ```
 */
export async function composeGateway(options: GatewayComposeOptions): Promise<ComposedGateway> {
  const { paths, log } = options;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const credentials = await readProfileCredentials(paths, options.env);
  const lookup: EnvLookup = credentials.lookup;
  const loaded = await loadConfigFile(paths.config, lookup);
  const warnings = loaded.warnings.map((warning) => `${paths.config}: ${warning.message}`);
  const platformsRaw = isRecord(loaded.raw.platforms) ? loaded.raw.platforms : {};
  const settingsOf = (id: string): Readonly<Record<string, unknown>> => {
    const value = platformsRaw[id];
    return isRecord(value) ? value : {};
  };

  let plugins = options.plugins;
  if (!plugins) {
    const discovered = await discoverPlugins();
    warnings.push(...discovered.problems);
    plugins = discovered.plugins;
  }
  const known = new Set(plugins.map((plugin) => plugin.id));
  for (const id of Object.keys(platformsRaw)) {
    if (!known.has(id) && settingsOf(id).enabled === true) {
      warnings.push(
        `platforms.${id} is enabled but no bundled platform is called "${id}" (known: ${
          [...known].join(", ")
        }); it is ignored`,
      );
    }
  }

  // `/cron run` in a chat runs the job here, as the ticker would.
  const automations = openAutomations(paths, options.env, {
    ticker: `gateway:${options.pid}`,
    log,
  });
  // One runtime per platform, shared by its conversations (see shared_runtime.ts).
  const runtimes = new SharedRuntimes((platform) =>
    openAgentRuntimeLazily(paths, {
      safeMode: false,
      source: `gateway:${platform}`,
      cwd: options.cwd,
      env: options.env,
      unattended: true,
      approvals: unattendedApprovals(platform, log),
      automations,
      onWarning: (file, message) => log(`${platform}: warning: ${file}: ${message}`),
    })
  );
  const opener = (platform: string): ConversationOpener => ({
    async open(openOptions = {}) {
      const runtime = await runtimes.lease(platform);
      return await Conversation.open({
        runtime,
        ...(openOptions.resume === undefined ? {} : { resume: openOptions.resume }),
        ...(openOptions.origin === undefined ? {} : { origin: openOptions.origin }),
      });
    },
  });

  const channels: Channel[] = [];
  const refused: PlatformStatus[] = [];
  const locks: CredentialLock[] = [];
  const access = new Map<string, AccessPolicy>();
  const attachments = new Map<string, AttachmentPolicy>();
  const refuse = (plugin: ChannelPlugin, reason: string) => {
    refused.push({
      platform: plugin.id,
      label: plugin.label,
      state: "refused",
      lastError: reason,
      since: clock.now(),
    });
    warnings.push(`${plugin.id}: not started: ${reason}`);
  };

  for (const plugin of plugins) {
    const settings = settingsOf(plugin.id);
    if (!platformEnabled(plugin.id, lookup, settings)) continue;
    const dataDir = join(paths.home, "gateway", safeName(plugin.id, "platform"));
    const context: ChannelContext = {
      profile: paths.name,
      env: lookup,
      settings,
      fetch: options.fetch ?? fetch,
      clock,
      dataDir,
      log: (line) => log(`${plugin.id}: ${line}`),
      conversations: opener(plugin.id),
      listen: options.listen ?? noListener,
    };
    let channel: Channel;
    try {
      await Deno.mkdir(dataDir, { recursive: true });
      channel = await plugin.create(context);
    } catch (error) {
      refuse(plugin, errorText(error));
      continue;
    }
    if (channel.credentialKey !== undefined) {
      const lock = await acquireCredentialLock(
        options.root,
        plugin.id,
        channel.credentialKey,
        { profile: paths.name, pid: options.pid },
      );
      if (!lock.held) {
        const holder = lock.holder;
        refuse(
          plugin,
          holder
            ? `its bot credential is already in use by profile "${holder.profile}" ` +
              `(gateway pid ${holder.pid}); one bot serves one profile: stop that gateway ` +
              `(herald -p ${holder.profile} gateway stop) or give this profile its own bot`
            : "its bot credential is already in use by another profile's running gateway; " +
              "one bot serves one profile",
        );
        await channel.stop?.().catch(() => {});
        continue;
      }
      locks.push(lock);
    }
    channels.push(channel);
    const read = readAttachmentPolicy(settings);
    attachments.set(plugin.id, read.policy);
    for (const warning of read.warnings) warnings.push(`platforms.${plugin.id}: ${warning}`);
    const policy = accessPolicy(plugin.id, lookup, settings);
    access.set(plugin.id, policy);
    // A channel that cannot send answers its own requests (the API server): no chat access applies.
    const warning = channel.outbound ? accessWarning(policy) : undefined;
    if (warning) warnings.push(warning);
  }

  const ledger = openDeliveryLedger(paths.stateDb);
  let journal;
  try {
    journal = openInboundJournal(paths.stateDb);
  } catch (error) {
    ledger.close();
    throw error;
  }
  const runner = new GatewayRunner({
    profile: paths.name,
    channels,
    openConversation: (chat, resume) =>
      opener(chat.platform).open({
        origin: formatAddress(chat),
        ...(resume === undefined ? {} : { resume }),
      }),
    chatSessions: openChatSessionStore(paths.home),
    ledger,
    journal,
    pairing: openPairingStore(paths.home),
    access: (platform) => access.get(platform) ?? accessPolicy(platform, lookup, {}),
    attachments: (platform) =>
      attachments.get(platform) ?? readAttachmentPolicy(settingsOf(platform)).policy,
    clock,
    log,
    saveAttachment: attachmentSaver(paths.home, clock),
    mediaRefusal: mediaGuard(options.root, options.env.HOME ?? options.env.USERPROFILE),
    ...(options.changed ? { changed: options.changed } : {}),
  });

  let closed = false;
  return {
    runner,
    warnings,
    refused,
    status() {
      const snapshot = runner.status();
      return { ...snapshot, platforms: [...snapshot.platforms, ...refused] };
    },
    close() {
      if (closed) return;
      closed = true;
      for (const lock of locks) lock.release();
      ledger.close();
      journal.close();
    },
  };
}

/**
 * The approval surface of a gateway's conversations: nobody can be asked,
 * so what the profile does not allow is denied, and the log says so (the
 * rule, never the command, which may hold a secret).
 */
function unattendedApprovals(platform: string, log: (line: string) => void): ApprovalSurface {
  return {
    onNotice(notice) {
      const { tool, reason, ruleKey } = notice.request;
      if (notice.code === "non_interactive") {
        log(
          `${platform}: denied a dangerous ${tool} call (${reason}): nobody can approve it on a ` +
            `gateway; to allow it, run \`herald approvals allow ${ruleKey}\``,
        );
      } else {
        log(`${platform}: approval of ${tool} (${reason}): ${notice.code}`);
      }
    },
  };
}
