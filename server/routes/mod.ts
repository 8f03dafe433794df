/**
 * Every /api route family, registered in this order by createApp.
 *
 * @module
 */

import type { Hono } from "hono";
import type { RouteDeps } from "../deps.ts";
import { registerStatusRoutes } from "./status.ts";
import { registerConfigRoutes } from "./config.ts";
import { registerEnvRoutes } from "./env.ts";
import { registerModelRoutes } from "./model.ts";
import { registerMcpRoutes } from "./mcp.ts";
import { registerMessagingRoutes } from "./messaging.ts";
import { registerPairingRoutes } from "./pairing.ts";
import { registerCronRoutes } from "./cron.ts";
import { registerKanbanRoutes } from "./kanban.ts";
import { registerProvidersRoutes } from "./providers.ts";
import { registerSessionsRoutes } from "./sessions.ts";
import { registerSkillsRoutes } from "./skills.ts";
import { registerProfilesRoutes } from "./profiles.ts";
import { registerActionsRoutes } from "./actions.ts";
import { registerWsRoutes } from "./ws.ts";
import { registerPtyRoutes } from "./pty.ts";

/** Adds one family of routes to the app; `createApp` has filled in the deps' event bus. */
export type RouteFamily = (app: Hono, deps: RouteDeps) => void;

/** The route families, in registration order. */
export const API_ROUTES: readonly RouteFamily[] = [
  registerStatusRoutes,
  registerConfigRoutes,
  registerEnvRoutes,
  registerModelRoutes,
  registerMcpRoutes,
  registerMessagingRoutes,
  registerPairingRoutes,
  registerCronRoutes,
  registerKanbanRoutes,
  registerProvidersRoutes,
  registerSessionsRoutes,
  registerSkillsRoutes,
  registerProfilesRoutes,
  registerActionsRoutes,
  registerWsRoutes,
  registerPtyRoutes,
];
