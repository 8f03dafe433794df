/**
 * The end-to-end helpers for callers outside tests/e2e/ (the benches):
 * see tests/e2e/_herald.ts and tests/e2e/_gateway.ts.
 *
 * @module
 */

export {
  type DashboardProcess,
  type DashboardProcessOptions,
  startDashboardProcess,
} from "./_herald.ts";
export { type GatewayRun, runGateway } from "./_gateway.ts";
