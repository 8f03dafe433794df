/**
 * The approval question of a dangerous command (`approval.request`): the
 * command, why it asks, and the four answers. A modal dialog that takes
 * focus on "Deny" (so a stray Enter is the safe answer); the keys o, s, a
 * and d answer once, for the session, always and deny; Escape denies. It
 * closes when answered or when the question expires (`approval.expire`).
 */

import { useEffect, useRef } from "preact/hooks";
import type { PendingApproval } from "./chat_state.ts";
import type { ApprovalChoice } from "./controller.ts";

/** The answers, their keys and labels, in the order shown. */
const CHOICES: { choice: ApprovalChoice; key: string; label: string; variant: string }[] = [
  { choice: "once", key: "o", label: "Allow once", variant: "primary" },
  { choice: "session", key: "s", label: "Allow for this session", variant: "default" },
  { choice: "always", key: "a", label: "Always allow", variant: "default" },
  { choice: "deny", key: "d", label: "Deny", variant: "danger" },
];

function timeoutLabel(ms: number | null): string {
  if (ms === null) return "";
  const seconds = Math.round(ms / 1000);
  const time = seconds >= 120 ? `${Math.round(seconds / 60)} minutes` : `${seconds} seconds`;
  return `Unanswered after ${time}, it is denied.`;
}

/** The open approval question. */
export function ApprovalDialog(
  props: { approval: PendingApproval; onAnswer: (choice: ApprovalChoice) => void },
) {
  const dialog = useRef<HTMLDialogElement>(null);
  const deny = useRef<HTMLButtonElement>(null);
  const { approval, onAnswer } = props;
  useEffect(() => {
    const element = dialog.current!;
    const before = document.activeElement as HTMLElement | null;
    if (!element.open) element.showModal();
    deny.current?.focus();
    return () => {
      element.close();
      before?.focus();
    };
  }, [approval.id]);

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
      onKeyDown={(event) => {
        if (event.ctrlKey || event.metaKey || event.altKey) return;
        const found = CHOICES.find((entry) => entry.key === event.key.toLowerCase());
        if (!found) return;
        event.preventDefault();
        onAnswer(found.choice);
      }}
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
        Keys: <kbd>o</kbd> once, <kbd>s</kbd> session, <kbd>a</kbd> always, <kbd>d</kbd> or{" "}
        <kbd>Esc</kbd> deny. {timeoutLabel(approval.timeoutMs)}
      </p>
      <div class="dialog-actions">
        {CHOICES.map((entry) => (
          <button
            key={entry.choice}
            ref={entry.choice === "deny" ? deny : undefined}
            type="button"
            class={`btn btn-${entry.variant}`}
            aria-keyshortcuts={entry.key}
            onClick={() => onAnswer(entry.choice)}
          >
            {entry.label}
          </button>
        ))}
      </div>
    </dialog>
  );
}
