// deno-lint-ignore-file no-explicit-any no-var
/**
 * The browser globals that `page.evaluate` callbacks in the browser tests
 * (and bench/) name, loosely typed: the callbacks run in Chromium, not in
 * Deno. The DOM lib itself is not loaded, because in one type-check with the
 * rest of the suite its stream and WebSocket types clash with Deno's.
 */

declare var document: any;
declare function getComputedStyle(element: any): any;
declare var PerformanceObserver: any;
type HTMLElement = any;
type HTMLInputElement = any;
type HTMLTextAreaElement = any;
declare var MutationObserver: any;
declare function requestAnimationFrame(callback: (time: number) => void): number;
interface Navigator {
  clipboard: any;
}
