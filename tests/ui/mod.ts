/**
 * The browser rig's pieces for callers outside tests/ui/ (bench/ui.ts):
 * see tests/ui/_browser.ts.
 *
 * @module
 */

export { CHROMIUM, launchChromium } from "./_browser.ts";
