/**
 * The small pieces every page is built from: links, buttons, notes, empty
 * states, a modal dialog and toasts. Styles live in styles.css under the
 * same class names.
 */

import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { hrefFor, linkClick } from "../lib/router.ts";
import { errorMessage } from "../lib/api.ts";

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

/**
 * A modal dialog (the native `<dialog>`: focus is trapped and Escape closes
 * it). It is shown while rendered; `onClose` is called on Escape or the
 * backdrop.
 */
export function Dialog(
  props: { title: string; onClose: () => void; children: ComponentChildren; class?: string },
) {
  const ref = useRef<HTMLDialogElement>(null);
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
      onClick={(event) => {
        if (event.target === ref.current) props.onClose();
      }}
    >
      <h2>{props.title}</h2>
      {props.children}
    </dialog>
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
