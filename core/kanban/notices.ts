/**
 * What a chat subscribed to a task is told: one line per event that ends
 * or stops the task (completed, blocked, gave up, back to triage,
 * archived), and whether the subscription is over.
 *
 * @module
 */

import { clipLine } from "../_util/verb_args.ts";
import type { TaskEvent, TaskRecord } from "./board.ts";

/** The longest result or reason quoted in a notice. */
const QUOTE_CHARS = 300;

/** What a subscriber is told about a run of new events. */
export interface SubscriptionNotices {
  /** One message per telling event, oldest first. */
  texts: string[];
  /** The last event read (the subscription's new cursor). */
  lastSeq: number;
  /** True when the task ended for good (done or archived): the subscription can go. */
  done: boolean;
}

function quote(value: unknown): string {
  return typeof value === "string" && value.trim() ? `: ${clipLine(value, QUOTE_CHARS)}` : "";
}

/**
 * The notices for `events` (a task's events after the subscription's
 * cursor) given the task as it is now.
 *
 * @example
 * ```ts
 * subscriptionNotices(task, [{ seq: 9, kind: "completed", ... }], 4).texts;
 * // ['✓ t_1a2b3c4d "Write the docs" completed by writer: Notes in docs/RELEASE.md']
 * ```
 */
export function subscriptionNotices(
  task: TaskRecord,
  events: readonly TaskEvent[],
  cursor: number,
): SubscriptionNotices {
  const label = `${task.id} "${clipLine(task.title, 80)}"`;
  const texts: string[] = [];
  let lastSeq = cursor;
  let done = false;
  for (const event of events) {
    lastSeq = Math.max(lastSeq, event.seq);
    const payload = event.payload ?? {};
    switch (event.kind) {
      case "completed":
        texts.push(`✓ ${label} completed by ${task.assignee}${quote(task.result)}`);
        done = true;
        break;
      case "blocked":
        texts.push(`⏸ ${label} is blocked${quote(payload.reason)}`);
        break;
      case "gave_up":
        texts.push(
          `✗ ${label} was given up after ${payload.failures} failed attempts${
            quote(payload.error)
          }; unblock it to try again`,
        );
        break;
      case "block_loop_detected":
        texts.push(`↺ ${label} needed input again and went back to triage${quote(payload.reason)}`);
        break;
      case "archived":
        texts.push(`${label} was archived`);
        done = true;
        break;
    }
  }
  return { texts, lastSeq, done };
}
