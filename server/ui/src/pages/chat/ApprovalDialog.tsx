/**
 * The approval question of a dangerous command (`approval.request`): the
 * command, why it asks, and the four answers as buttons. A modal dialog
 * that takes focus on "Deny" (so a stray Enter is the safe answer); Escape
 * denies. It closes when answered or when the question expires
 * (`approval.expire`).
 *
 * It opens while a turn runs, when the user may be typing in the message
 * box: no letter answers, and every key press is ignored until the keyboard
 * has been quiet for a moment after it opened (as the terminal's grace and
 * typing-burst guard), so text meant for the chat never answers it.
 */

import { useEffect, useRef } from "preact/hooks";
import type { PendingApproval } from "./chat_state.ts";
import type { ApprovalChoice } from "./controller.ts";

/** The answers and their labels, in the order shown. */
const CHOICES: { choice: ApprovalChoice; label: string; variant: string }[] = [
  { choice: "once", label: "Allow once", variant: "primary" },
  { choice: "session", label: "Allow for this session", variant: "default" },
  { choice: "always", label: "Always allow", variant: "default" },
  { choice: "deny", label: "Deny", variant: "danger" },
];

/** Keys are ignored this long (ms) after the dialog opens. */
const GRACE_MS = 1000;
/** A key press this soon (ms) after the previous one is part of a typing burst: ignored. */
const BURST_MS = 400;

function timeoutLabel(ms: number | null): string {
  if (ms === null) return "";
  const seconds = Math.round(ms / 1000);
  const time = seconds >= 120 ? `${Math.round(seconds / 60)} minutes` : `${seconds} seconds`;
  return `Unanswered after ${time}, it is denied.`;
}

/**
 * Whether a key press arrives too soon to be meant for the dialog: held
 * down, within the grace after opening, or in a burst of typing. `last`
 * holds when the previous key came, and is updated.
 */
function tooSoon(event: KeyboardEvent, openedAt: number, last: { at: number }): boolean {
  const now = performance.now();
  const early = event.repeat || now - openedAt < GRACE_MS || now - last.at < BURST_MS;
  last.at = now;
  return early;
}

/** The open approval question. */
export function ApprovalDialog(
  props: { approval: PendingApproval; onAnswer: (choice: ApprovalChoice) => void },
) {
  const dialog = useRef<HTMLDialogElement>(null);
  const deny = useRef<HTMLButtonElement>(null);
  const openedAt = useRef(0);
  const lastKey = useRef({ at: 0 });
  const { approval, onAnswer } = props;
  useEffect(() => {
    const element = dialog.current!;
    const before = document.activeElement as HTMLElement | null;
    openedAt.current = performance.now();
    if (!element.open) element.showModal();
    deny.current?.focus();
    return () => {
      element.close();
      before?.focus();
    };
  }, [approval.id]);

  // A Space whose keydown was ignored must not click on its keyup.
  const spaceIgnored = useRef(false);
  // Seen before the focused button: a key that comes too soon does nothing (no Enter or
  // Space on a button, no Escape). Tab still moves between the answers.
  const onKeyDownCapture = (event: KeyboardEvent) => {
    if (event.key === "Tab" || event.key === "Shift") return;
    if (!tooSoon(event, openedAt.current, lastKey.current)) return;
    event.preventDefault();
    event.stopPropagation();
    if (event.key === " ") spaceIgnored.current = true;
  };
  const onKeyUpCapture = (event: KeyboardEvent) => {
    if (event.key !== " " || !spaceIgnored.current) return;
    spaceIgnored.current = false;
    event.preventDefault();
    event.stopPropagation();
  };

  return (
    <dialog
      ref={dialog}
      class="dialog chat-approval"
      aria-labelledby="chat-approval-title"
      aria-describedby="chat-approval-reason"
      onCancel={(event) => {
        event.preventDefault();
        onAnswer("deny");
      }}
      onKeyDownCapture={onKeyDownCapture}
      onKeyUpCapture={onKeyUpCapture}
    >
      <h2 id="chat-approval-title">Allow this {approval.tool} call?</h2>
      <pre class="chat-approval-command"><code>{approval.command}</code></pre>
      <p id="chat-approval-reason">{approval.reason}</p>
      {approval.ruleKey && (
        <p class="muted chat-approval-hint">
          "Always allow" adds <code>{approval.ruleKey}</code> to <code>approvals.allow</code>.
        </p>
      )}
      <p class="muted chat-approval-hint">
        <kbd>Esc</kbd> denies. {timeoutLabel(approval.timeoutMs)}
      </p>
      <div class="dialog-actions">
        {CHOICES.map((entry) => (
          <button
            key={entry.choice}
            ref={entry.choice === "deny" ? deny : undefined}
            type="button"
            class={`btn btn-${entry.variant}`}
            onClick={() => onAnswer(entry.choice)}
          >
            {entry.label}
          </button>
        ))}
      </div>
    </dialog>
  );
}
