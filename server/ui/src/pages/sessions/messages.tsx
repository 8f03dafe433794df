/**
 * A session's messages in a scrolling list that renders only those near the
 * viewport. The scroll bar spans the whole session (heights measured as
 * messages are shown, the average elsewhere), pages of messages are fetched
 * as the view reaches them, and the first message in view keeps its place
 * while heights above it settle. Work is spread over frames: a frame
 * renders at most a few messages it has not shown before (those in view
 * first), and settling after a change happens a frame at a time, so a
 * session of thousands of messages opens and scrolls without long tasks.
 * Opened at a message (a search hit), the list keeps that message centred
 * until you scroll.
 */

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "../../lib/api.ts";
import { ErrorNote } from "../../components/ui.tsx";
import { Heights } from "./heights.ts";
import { MessageItem } from "./message.tsx";
import type { MessageView } from "../../../../../core/sessions/views.ts";
import type { MessagesPage } from "../../../../../core/usecases/sessions.ts";

/** Messages fetched at a time. */
export const MESSAGE_PAGE = 100;
/** The height assumed for a message before any is measured. */
const GUESS = 140;
/** How far beyond the viewport messages are rendered, in px. */
const OVERSCAN = 800;
/**
 * Messages rendered for the first time in one frame, at most (a message
 * with long highlighted code takes a good part of a frame to lay out).
 */
const FRESH_PER_FRAME = 1;

/** Props of {@link MessageList}. */
export interface MessageListProps {
  sessionId: string;
  /** The page fetched first (from the start, or around `target`). */
  initial: MessagesPage;
  /** The id of the message to open at and highlight. */
  target?: number;
}

/** Everything the list keeps between renders (it changes too often for state). */
interface ListModel {
  heights: Heights;
  messages: (MessageView | undefined)[];
  requested: Set<number>;
  /** The item at the top of the view and how far the view starts below its top. */
  anchor: { index: number; delta: number };
  /** While set, the index kept in the middle of the view. */
  center: number | undefined;
  /** The scroll position the list itself last set (other positions are someone scrolling). */
  lastSetTop: number;
  view: { top: number; height: number };
  /** The range the last render covered. */
  rendered: [number, number];
  /** The messages shown (not as placeholders) by the last render. */
  shown: Set<number>;
  /** The last render left messages as placeholders for a later frame. */
  deferred: boolean;
  /** Slots measured since they were rendered (later changes come from the ResizeObserver). */
  measured: WeakSet<Element>;
  /** A size changed after measuring: the next frame measures every shown message again. */
  remeasure: boolean;
  /** The coming render was asked for inside a frame: settle right after it, in that frame. */
  settleNow: boolean;
}

function createModel(initial: MessagesPage, target: number | undefined): ListModel {
  const messages = new Array<MessageView | undefined>(initial.total);
  initial.messages.forEach((message, i) => (messages[initial.start + i] = message));
  const found = target === undefined
    ? -1
    : initial.messages.findIndex((message) => message.id === target);
  const center = found < 0 ? undefined : initial.start + found;
  const heights = new Heights(initial.total, GUESS);
  const height = globalThis.innerHeight || 800;
  const top = center === undefined ? 0 : Math.max(0, heights.offset(center) - height / 2);
  return {
    heights,
    messages,
    requested: new Set(),
    anchor: { index: center ?? 0, delta: 0 },
    center,
    lastSetTop: 0,
    view: { top, height },
    rendered: [0, -1],
    shown: new Set(),
    deferred: false,
    measured: new WeakSet(),
    remeasure: false,
    settleNow: false,
  };
}

/** The items to render for the view: those within {@link OVERSCAN} of it. */
function rangeFor(model: ListModel): [number, number] {
  const { heights, view } = model;
  if (heights.count === 0) return [0, -1];
  return [
    heights.indexAt(Math.max(0, view.top - OVERSCAN)),
    heights.indexAt(view.top + view.height + OVERSCAN),
  ];
}

/**
 * Which loaded messages of `[first, last]` this render shows: those shown
 * before, and at most {@link FRESH_PER_FRAME} new ones, nearest the view first.
 */
function pickShown(model: ListModel, first: number, last: number): Set<number> {
  const { heights, view, messages } = model;
  const shown = new Set<number>();
  const fresh: number[] = [];
  for (let i = first; i <= last; i++) {
    if (messages[i] === undefined) continue;
    if (model.shown.has(i)) shown.add(i);
    else fresh.push(i);
  }
  const top = heights.indexAt(view.top);
  const bottom = heights.indexAt(view.top + view.height);
  const distance = (i: number) => (i < top ? top - i : i > bottom ? i - bottom : 0);
  fresh.sort((a, b) => distance(a) - distance(b));
  for (const i of fresh.slice(0, FRESH_PER_FRAME)) shown.add(i);
  model.deferred = fresh.length > FRESH_PER_FRAME;
  return shown;
}

/** The session's messages, windowed; see the module comment. */
export function MessageList(props: MessageListProps) {
  const model = useRef<ListModel>();
  if (!model.current) model.current = createModel(props.initial, props.target);
  const m = model.current;
  const scroller = useRef<HTMLDivElement>(null);
  const topSpacer = useRef<HTMLDivElement>(null);
  const bottomSpacer = useRef<HTMLDivElement>(null);
  const [, setTick] = useState(0);
  const [loadError, setLoadError] = useState<unknown>();
  const rerender = () => setTick((n) => n + 1);
  const frame = useRef(0);
  const observer = useRef<ResizeObserver>();

  /**
   * Settles the list in the next frame, before it is painted (measure,
   * re-anchor, render what the view needs). A render caused by scrolling
   * or a fetched page is laid out there too, so the script of the render
   * and the layout of what it added fall in separate tasks.
   */
  const nextFrame = () => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const all = m.remeasure;
      m.remeasure = false;
      sync(all, true);
    });
  };

  const fetchPage = async (page: number) => {
    if (m.requested.has(page)) return;
    m.requested.add(page);
    try {
      const answer = await api<MessagesPage>(
        "GET",
        `/api/sessions/${encodeURIComponent(props.sessionId)}/messages`,
        { query: { limit: MESSAGE_PAGE, offset: page * MESSAGE_PAGE } },
      );
      answer.messages.forEach((message, i) => {
        const index = answer.start + i;
        if (index < m.messages.length) m.messages[index] = message;
      });
      setLoadError(undefined);
      rerender();
    } catch (error) {
      m.requested.delete(page);
      setLoadError(error);
    }
  };

  /** Fetches the pages that hold messages of `[first, last]` not loaded yet. */
  const fetchMissing = (first: number, last: number) => {
    const firstPage = Math.floor(first / MESSAGE_PAGE);
    for (let page = firstPage; page <= Math.floor(last / MESSAGE_PAGE); page++) {
      const from = Math.max(first, page * MESSAGE_PAGE);
      const to = Math.min(last, page * MESSAGE_PAGE + MESSAGE_PAGE - 1);
      for (let i = from; i <= to; i++) {
        if (m.messages[i] === undefined) {
          fetchPage(page);
          break;
        }
      }
    }
  };

  /**
   * A scroll position the list did not set is someone scrolling: the item
   * now at the top becomes the anchor, and the centred message is let go.
   */
  const absorbScroll = (element: HTMLElement): number => {
    const top = element.scrollTop;
    if (Math.abs(top - m.lastSetTop) <= 2) return top;
    m.center = undefined;
    const index = m.heights.indexAt(top);
    m.anchor = { index, delta: top - m.heights.offset(index) };
    m.lastSetTop = top;
    return top;
  };

  /**
   * Measures what is shown (every shown message with `measureAll`, else the
   * new ones), sizes the spacers, puts the anchor (or the centred message)
   * back in place, and renders what the view now needs: at once when this
   * runs `inFrame` (a frame callback), else in the next frame.
   */
  const sync = (measureAll: boolean, inFrame: boolean) => {
    const element = scroller.current;
    if (!element) return;
    // Reads first (one layout), then writes: no layout is forced in between.
    const top = absorbScroll(element);
    const { heights } = m;
    const viewHeight = element.clientHeight;
    const placeholders: HTMLElement[] = [];
    for (const child of element.children) {
      const slot = child as HTMLElement;
      const index = slot.dataset.index;
      if (index === undefined) continue;
      if (slot.dataset.placeholder !== undefined) {
        placeholders.push(slot);
        continue;
      }
      if (!measureAll && m.measured.has(slot)) continue;
      heights.set(Number(index), slot.offsetHeight);
      if (!m.measured.has(slot)) {
        m.measured.add(slot);
        observer.current?.observe(slot);
      }
    }
    // Placeholders follow the estimate, which moves as more messages are measured.
    for (const slot of placeholders) {
      slot.style.height = `${heights.size(Number(slot.dataset.index))}px`;
    }
    const [first, last] = m.rendered;
    topSpacer.current!.style.height = `${heights.offset(first)}px`;
    bottomSpacer.current!.style.height = `${heights.total - heights.offset(last + 1)}px`;
    const desired = m.center !== undefined
      ? heights.offset(m.center) - Math.max(0, (viewHeight - heights.size(m.center)) / 2)
      : heights.offset(m.anchor.index) + m.anchor.delta;
    if (Math.abs(top - desired) > 1) {
      element.scrollTop = Math.max(0, desired);
      // Read back: the browser keeps the position within the content.
      m.lastSetTop = element.scrollTop;
    } else {
      m.lastSetTop = top;
    }
    m.view = { top: m.lastSetTop, height: viewHeight };
    const [nextFirst, nextLast] = rangeFor(m);
    fetchMissing(nextFirst, nextLast);
    if (nextFirst !== first || nextLast !== last || m.deferred) {
      if (inFrame) {
        m.settleNow = true;
        rerender();
      } else {
        nextFrame();
      }
    }
  };

  useEffect(() => {
    // Heights that change after a message is shown (a code block highlighted, details opened).
    observer.current = new ResizeObserver((entries) => {
      const changed = entries.some((entry) => {
        const index = Number((entry.target as HTMLElement).dataset.index);
        const height = entry.borderBoxSize?.[0]?.blockSize ?? entry.contentRect.height;
        return Math.abs(m.heights.size(index) - height) >= 0.5;
      });
      if (changed) {
        m.remeasure = true;
        nextFrame();
      }
    });
    return () => {
      observer.current?.disconnect();
      cancelAnimationFrame(frame.current);
    };
  }, []);

  useLayoutEffect(() => {
    if (m.settleNow) {
      m.settleNow = false;
      sync(false, false);
    } else {
      nextFrame();
    }
  });

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    absorbScroll(element);
    m.view = { top: element.scrollTop, height: element.clientHeight };
    const [first, last] = rangeFor(m);
    if (first !== m.rendered[0] || last !== m.rendered[1]) rerender();
  };

  const [first, last] = rangeFor(m);
  const shown = pickShown(m, first, last);
  m.rendered = [first, last];
  m.shown = shown;
  const items = [];
  for (let i = first; i <= last; i++) {
    const message = m.messages[i];
    items.push(
      message && shown.has(i)
        ? (
          <div key={i} class="sessions-slot" data-index={i}>
            <MessageItem message={message} target={message.id === props.target} />
          </div>
        )
        : (
          <div
            key={`p${i}`}
            class="sessions-slot sessions-placeholder muted"
            data-index={i}
            data-placeholder=""
            style={{ height: `${m.heights.size(i)}px` }}
          >
            {message ? "" : "Loading…"}
          </div>
        ),
    );
  }
  return (
    <>
      {loadError !== undefined && (
        <ErrorNote
          error={loadError}
          onRetry={() => {
            setLoadError(undefined);
            fetchMissing(...m.rendered);
          }}
        />
      )}
      <div
        ref={scroller}
        class="sessions-scroller"
        role="region"
        aria-label="Messages"
        tabIndex={0}
        onScroll={onScroll}
      >
        <div
          ref={topSpacer}
          aria-hidden="true"
          style={{ height: `${m.heights.offset(first)}px` }}
        />
        {items}
        <div
          ref={bottomSpacer}
          aria-hidden="true"
          style={{ height: `${m.heights.total - m.heights.offset(last + 1)}px` }}
        />
      </div>
    </>
  );
}
