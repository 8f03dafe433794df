/**
 * A profile's messaging platforms reached directly, one call at a time,
 * without the gateway: core's {@link MessagingLinks} port, which the
 * dashboard's test call (`getMe`, bot info) and `herald send` use. Each call
 * creates the platform's channel from its bundled plugin with the profile's
 * credentials and settings, uses its probe or its outbound side, and lets it
 * go; no channel is started (nothing polls, no webhook listens). A send
 * that the caller retries goes on with the same channel and the same
 * planned reply, so the parts the platform confirmed are not sent again.
 * The chats the gateway talked to come from its `gateway_chats.json`.
 *
 * @module
 */

import { isRecord } from "../../core/_util/json.ts";
import { join } from "node:path";
import type {
  Channel,
  ChannelContext,
  ChannelPlugin,
  OutboundReply,
} from "../../core/channels/contract.ts";
import { PermanentSendError } from "../../core/channels/contract.ts";
import { planReply } from "../../core/channels/reply.ts";
import type { ProcessEnv } from "../../core/config/mod.ts";
import { HeraldError } from "../../core/errors.ts";
import { errorText } from "../../core/errors.ts";
import type {
  MessageSendOptions,
  MessageSent,
  MessageTarget,
  MessagingLinks,
  PlatformProbe,
} from "../../core/usecases/ports.ts";
import { loadConfigFile } from "../home/config_file.ts";
import { readProfileCredentials } from "../home/credentials.ts";
import type { ProfilePaths } from "../home/layout.ts";
import { discoverPlugins, openChatSessionStore } from "../channels/mod.ts";
import { resolveRoot } from "../home/layout.ts";
import { mediaGuard } from "./media_guard.ts";
import { noListener, SYSTEM_CLOCK } from "./channel_defaults.ts";

/** Options of {@link openMessagingLinks}. */
export interface MessagingLinksOptions {
  /** The HTTP client (the global `fetch` by default). */
  fetch?: typeof fetch;
  /** The plugins to use instead of the bundled ones (tests). */
  plugins?: readonly ChannelPlugin[];
  /** Takes the channels' log lines (dropped by default; never a secret). */
  log?(line: string): void;
}

/**
 * The messaging platforms of the profile at `paths`. `env` is the process
 * environment: the credentials fallback after the profile's `.env`.
 *
 * @example
 * ```ts
 * const links = openMessagingLinks(paths, Deno.env.toObject());
 * await links.probe("telegram"); // { ok: true, identity: "@my_bot" }
 * await links.send({ platform: "telegram", chatId: "42" }, "Hello");
 * ```
 */
export function openMessagingLinks(
  paths: ProfilePaths,
  env: ProcessEnv,
  options: MessagingLinksOptions = {},
): MessagingLinks {
  let pluginsLoaded: Promise<readonly ChannelPlugin[]> | undefined;
  const plugins = () =>
    pluginsLoaded ??= options.plugins
      ? Promise.resolve(options.plugins)
      : discoverPlugins().then((found) => found.plugins);

  const pluginOf = async (id: string): Promise<ChannelPlugin> => {
    const all = await plugins();
    const plugin = all.find((candidate) => candidate.id === id);
    if (plugin) return plugin;
    throw new HeraldError(
      "platform_unknown",
      "not_found",
      `No messaging platform "${id}" (known: ${all.map((p) => p.id).join(", ")})`,
      { details: { id } },
    );
  };

  /** Creates the channel of `plugin` for the profile, not started. */
  const channelOf = async (plugin: ChannelPlugin): Promise<Channel> => {
    const credentials = await readProfileCredentials(paths, env);
    const loaded = await loadConfigFile(paths.config, credentials.lookup);
    const platforms = isRecord(loaded.raw.platforms) ? loaded.raw.platforms : {};
    const settings = isRecord(platforms[plugin.id])
      ? platforms[plugin.id] as Record<string, unknown>
      : {};
    const context: ChannelContext = {
      profile: paths.name,
      env: credentials.lookup,
      settings,
      fetch: options.fetch ?? fetch,
      clock: SYSTEM_CLOCK,
      dataDir: join(paths.home, "gateway", plugin.id),
      log: (line) => options.log?.(`${plugin.id}: ${line}`),
      listen: noListener,
      conversations: {
        open: () =>
          Promise.reject(
            new HeraldError(
              "platform_cannot_converse",
              "state",
              "Conversations run only inside the gateway (herald gateway run)",
            ),
          ),
      },
    };
    return await plugin.create(context);
  };

  /** Lets a created channel go (it was never started; stop frees whatever it holds). */
  const release = async (channel: Channel) => {
    try {
      await channel.stop?.();
    } catch {
      // Nothing was started: there is nothing a failing stop could leave behind.
    }
  };

  /** Why a file may not be sent, judged as the gateway judges an answer's files. */
  const filesGuard = () => {
    let root = paths.home;
    try {
      root = resolveRoot(env);
    } catch {
      // No HOME and no HERALD_HOME: the profile's own home is what is known to protect.
    }
    return mediaGuard(root, env.HOME ?? env.USERPROFILE);
  };

  return {
    async knownChats(): Promise<MessageTarget[]> {
      return await openChatSessionStore(paths.home).list();
    },

    async platforms() {
      return (await plugins()).map((plugin) => plugin.id);
    },

    async probe(id: string): Promise<PlatformProbe> {
      const plugin = await pluginOf(id);
      const channel = await channelOf(plugin);
      try {
        if (!channel.probe) {
          throw new HeraldError(
            "platform_cannot_probe",
            "usage",
            `${plugin.label} has no bot to ask about (it answers requests itself)`,
            { details: { platform: id } },
          );
        }
        const result = await channel.probe();
        return {
          ok: result.ok,
          ...(result.identity === undefined ? {} : { identity: result.identity }),
          ...(result.error === undefined ? {} : { error: result.error }),
        };
      } finally {
        await release(channel);
      }
    },

    async send(
      to: MessageTarget,
      markdown: string,
      sendOptions: MessageSendOptions = {},
    ): Promise<MessageSent> {
      const plugin = await pluginOf(to.platform);
      const channel = await channelOf(plugin);
      try {
        const outbound = channel.outbound;
        if (!outbound) {
          throw new HeraldError(
            "platform_cannot_send",
            "usage",
            `${plugin.label} cannot send messages to a chat (it answers requests itself)`,
            { details: { platform: to.platform } },
          );
        }
        const reply = planReply(markdown, outbound);
        if (reply === null) {
          throw new HeraldError(
            "empty_message",
            "usage",
            "The message is a silence token (such as NO_REPLY), which is never delivered; " +
              "send some other text",
          );
        }
        if (outbound.filesNeedServer && reply.parts.some((part) => part.kind === "media")) {
          throw new HeraldError(
            "platform_cannot_send_files",
            "usage",
            `${plugin.label} fetches files from the gateway's own web server, which a one-off ` +
              "send does not run; send the text alone, or ask the agent in a chat the gateway " +
              "serves to send the file",
            { details: { platform: to.platform } },
          );
        }
        if (sendOptions.protectFiles) refuseProtectedFiles(reply, filesGuard());
        const address = {
          platform: to.platform,
          chatId: to.chatId,
          ...(to.threadId === undefined ? {} : { threadId: to.threadId }),
        };
        // The same reply to the same outbound each time: a new attempt goes on from the
        // first part the platform did not confirm.
        for (let attempts = 1;; attempts++) {
          try {
            const receipt = await outbound.send(address, reply);
            return { messageIds: [...receipt.messageIds] };
          } catch (error) {
            const refused = refusal(plugin.label, to.platform, error);
            if (!(await sendOptions.retry?.(refused, attempts))) throw refused;
          }
        }
      } finally {
        await release(channel);
      }
    },
  };
}

/** The status of a failed platform call, when the platform answered (`status` 0 is no answer). */
function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && status > 0 ? status : undefined;
}

/**
 * A failed send as {@link MessagingLinks.send} reports it. Retryable: what
 * the channel did not call permanent, except a 4xx other than 408 and 429
 * (a wrong or revoked token answers 401: asking again will not help).
 */
function refusal(label: string, platform: string, error: unknown): HeraldError {
  const permanent = error instanceof PermanentSendError;
  const status = statusOf(error);
  const clientError = status !== undefined && status >= 400 && status < 500 &&
    status !== 408 && status !== 429;
  const retryAfter = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return new HeraldError(
    "platform_refused",
    "unavailable",
    `${label} did not take the message: ${errorText(error)}`,
    {
      details: {
        platform,
        retryable: !permanent && !clientError,
        status,
        retry_after_ms: typeof retryAfter === "number" ? retryAfter : undefined,
      },
    },
  );
}

/** Refuses `reply` when a file it would send is protected; nothing is sent then. */
function refuseProtectedFiles(reply: OutboundReply, reason: (path: string) => string | undefined) {
  for (const part of reply.parts) {
    if (part.kind !== "media") continue;
    const why = reason(part.media.path);
    if (why === undefined) continue;
    throw new HeraldError(
      "send_file_protected",
      "usage",
      `"${part.media.path}" may not be sent to a chat (${why}); nothing was sent`,
      { details: { path: part.media.path } },
    );
  }
}
