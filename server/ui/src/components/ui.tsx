/**
 * The small pieces every page is built from: links, buttons, notes, empty
 * states, a modal dialog, a confirmation, a form field and toasts. Styles
 * live in styles.css under the same class names, those of the field and the
 * confirmation in ui.css.
 */

import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { hrefFor, linkClick } from "../lib/router.ts";
import { errorMessage } from "../lib/api.ts";
import "./ui.css";

/** A link inside the app (keeps the profile, navigates without a reload). */
export function Link(props: JSX.HTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { href, ...rest } = props;
  return <a {...rest} href={hrefFor(href)} onClick={linkClick} />;
}

/** A button; `variant` picks its look. */
export function Button(
  props: JSX.HTMLAttributes<HTMLButtonElement> & {
    variant?: "primary" | "danger" | "ghost" | "default";
    type?: "button" | "submit";
    disabled?: boolean;
  },
) {
  const { variant = "default", type = "button", class: className, ...rest } = props;
  return <button {...rest} type={type} class={`btn btn-${variant} ${className ?? ""}`} />;
}

/**
 * A form's buttons: Cancel (when the form can be left) and the submit
 * button, which shows `busyLabel` and is disabled while `busy`.
 */
export function FormActions(props: {
  label: string;
  busyLabel: string;
  busy: boolean;
  /** Disabled although not busy (nothing to save yet). */
  disabled?: boolean;
  onCancel?: () => void;
}) {
  return (
    <div class="dialog-actions">
      {props.onCancel && <Button onClick={props.onCancel}>Cancel</Button>}
      <Button type="submit" variant="primary" disabled={props.busy || props.disabled}>
        {props.busy ? props.busyLabel : props.label}
      </Button>
    </div>
  );
}

/** A line that says something is loading. */
export function Loading(props: { label?: string }) {
  return <p class="muted loading" role="status">{props.label ?? "Loading…"}</p>;
}

/** An error shown in place, with what to do when the error says. */
export function ErrorNote(props: { error: unknown; onRetry?: () => void }) {
  return (
    <div class="note note-error" role="alert">
      <span>{errorMessage(props.error)}</span>
      {props.onRetry && <Button variant="ghost" onClick={props.onRetry}>Try again</Button>}
    </div>
  );
}

/** What a list shows when it has nothing. */
export function Empty(props: { children: ComponentChildren }) {
  return <div class="empty muted">{props.children}</div>;
}

/** A page's heading row with optional actions on the right. */
export function PageHeader(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="page-header">
      <h1>{props.title}</h1>
      {props.children && <div class="page-actions">{props.children}</div>}
    </div>
  );
}

/** True when a pointer event happened outside `element`'s box (on a modal's backdrop). */
function outside(element: Element, event: MouseEvent): boolean {
  const box = element.getBoundingClientRect();
  return event.clientX < box.left || event.clientX > box.right || event.clientY < box.top ||
    event.clientY > box.bottom;
}

/**
 * A modal dialog (the native `<dialog>`: focus is trapped and Escape closes
 * it). It is shown while rendered; `onClose` is called on Escape or on a
 * click on the backdrop. A click in the dialog's own padding is not a
 * backdrop click (both have the dialog as their target; the position tells
 * them apart), and a dialog holding a form never closes on the backdrop,
 * so what was typed is not thrown away by a stray click (Escape and Cancel
 * still close it).
 */
export function Dialog(
  props: { title: string; onClose: () => void; children: ComponentChildren; class?: string },
) {
  const ref = useRef<HTMLDialogElement>(null);
  // A press that starts inside (selecting text) and ends on the backdrop is no backdrop click.
  const pressedOutside = useRef(false);
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    return () => dialog.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class={`dialog ${props.class ?? ""}`}
      aria-label={props.title}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
      onPointerDown={(event) => {
        const dialog = ref.current!;
        pressedOutside.current = event.target === dialog && outside(dialog, event);
      }}
      onClick={(event) => {
        const dialog = ref.current!;
        const fromBackdrop = pressedOutside.current;
        pressedOutside.current = false;
        if (event.target !== dialog || !fromBackdrop || !outside(dialog, event)) return;
        if (dialog.querySelector("form")) return;
        props.onClose();
      }}
    >
      <h2>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/**
 * Asks before doing something: the question, Cancel (focused, so Enter
 * does not confirm by accident) and the confirm button. While `onConfirm`
 * runs the button says `busyLabel`; when it throws, its error is shown in
 * the dialog and the dialog stays open; when it succeeds the dialog closes.
 *
 * @example
 * <ConfirmDialog
 *   title="Delete the bundle /review?"
 *   confirmLabel="Delete bundle"
 *   busyLabel="Deleting…"
 *   danger
 *   onConfirm={() => api("DELETE", "/api/bundles/review")}
 *   onClose={close}
 * >
 *   <p>Its file is deleted.</p>
 * </ConfirmDialog>
 */
export function ConfirmDialog(props: {
  title: string;
  /** What happens, and what stays. */
  children: ComponentChildren;
  confirmLabel: string;
  /** The confirm button's text while `onConfirm` runs (default: `confirmLabel`). */
  busyLabel?: string;
  cancelLabel?: string;
  /** The confirm button in the danger style (deleting, replacing). */
  danger?: boolean;
  /** Does the thing; a rejection is shown in the dialog. */
  onConfirm: () => unknown;
  /** Cancel, Escape, the backdrop, or a confirm that succeeded. */
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
    } catch (caught) {
      if (mounted.current) {
        setError(caught);
        setBusy(false);
      }
      return;
    }
    if (mounted.current) props.onClose();
  };
  return (
    <Dialog title={props.title} onClose={props.onClose} class="confirm-dialog">
      {props.children}
      {error !== undefined && <ErrorNote error={error} />}
      <div class="dialog-actions">
        <Button onClick={props.onClose} autoFocus>{props.cancelLabel ?? "Cancel"}</Button>
        <Button variant={props.danger ? "danger" : "primary"} onClick={confirm} disabled={busy}>
          {busy ? props.busyLabel ?? props.confirmLabel : props.confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}

/** The id of the hint under the field `id` (for `aria-describedby`). */
export function fieldHintId(id: string): string {
  return `${id}-hint`;
}

/** The id of the error under the field `id` (for `aria-describedby`). */
export function fieldErrorId(id: string): string {
  return `${id}-error`;
}

/**
 * One form field: its label (for the control with `id`), the control, a
 * hint, a warning and, when the form or the server refused it, the error
 * (ids {@link fieldHintId} and {@link fieldErrorId}, for the control's
 * `aria-describedby`).
 */
export function Field(props: {
  id: string;
  label: string;
  /** A config key or variable the field sets, shown as code beside the label. */
  code?: string;
  hint?: ComponentChildren;
  warning?: ComponentChildren;
  error?: ComponentChildren;
  /** For a control that labels itself (a switch): the label is not repeated. */
  inlineLabel?: boolean;
  class?: string;
  children: ComponentChildren;
}) {
  const key = props.code && <code class="form-field-key">{props.code}</code>;
  const invalid = props.error !== undefined && props.error !== null && props.error !== "" &&
    props.error !== false;
  return (
    <div class={`form-field${invalid ? " form-field-invalid" : ""} ${props.class ?? ""}`}>
      {props.inlineLabel
        ? (
          <div class="form-field-head">
            {props.children}
            {key}
          </div>
        )
        : (
          <>
            <div class="form-field-head">
              <label for={props.id}>{props.label}</label>
              {key}
            </div>
            {props.children}
          </>
        )}
      {props.hint && <p class="field-hint" id={fieldHintId(props.id)}>{props.hint}</p>}
      {props.warning && <p class="field-warning">{props.warning}</p>}
      {invalid && <p class="field-error" id={fieldErrorId(props.id)} role="alert">{props.error}</p>}
    </div>
  );
}

type Toast = { id: number; text: string; kind: "info" | "error" };
const toastListeners = new Set<(toasts: Toast[]) => void>();
let toasts: Toast[] = [];
let nextToast = 1;

/** Shows a short message at the bottom of the screen for a few seconds. */
export function toast(text: string, kind: "info" | "error" = "info"): void {
  const entry = { id: nextToast++, text, kind };
  toasts = [...toasts, entry];
  for (const listener of toastListeners) listener(toasts);
  setTimeout(() => {
    toasts = toasts.filter((item) => item !== entry);
    for (const listener of toastListeners) listener(toasts);
  }, kind === "error" ? 8000 : 4000);
}

/** Where toasts appear (rendered once by the app shell). */
export function Toasts() {
  const [items, setItems] = useState(toasts);
  useEffect(() => {
    toastListeners.add(setItems);
    return () => void toastListeners.delete(setItems);
  }, []);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {items.map((item) => <div key={item.id} class={`toast toast-${item.kind}`}>{item.text}</div>)}
    </div>
  );
}
