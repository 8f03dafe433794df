/**
 * The Kanban page (`/kanban`): the shared board's columns (`?board=<slug>`,
 * archived behind a toggle), cards dragged between columns, a task's
 * drawer (`?task=<id>`), the "New task" form and the "Orchestration: Auto /
 * Manual" pill bound to `kanban.auto_decompose`. Everything follows the
 * board's events live (`data-live` says whether they are watched), so
 * what a worker or the CLI does shows without a reload.
 */

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useProfile } from "../lib/profile.ts";
import { navigate, useRoute } from "../lib/router.ts";
import { useAsync } from "../lib/use_async.ts";
import { errorMessage } from "../lib/api.ts";
import { Button, Empty, ErrorNote, Loading, PageHeader, toast } from "../components/ui.tsx";
import {
  changeTask,
  decomposeTask,
  type KanbanCard,
  loadBoard,
  loadBoards,
  loadOrchestration,
  loadRoster,
  setAutoDecompose,
  type TaskStatus,
  useKanbanLive,
} from "./kanban_api.ts";
import { KanbanColumns } from "./kanban_board.tsx";
import { TaskDrawer } from "./kanban_drawer.tsx";
import { NewTaskDialog } from "./kanban_new.tsx";
import "./kanban.css";

/** The page's URL with `changes` applied to its query (null removes a key). */
function withQuery(query: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(query);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  const text = next.toString();
  return text ? `/kanban?${text}` : "/kanban";
}

/** Calls `fn` once, `ms` after the last of a burst of calls. */
function useDebounced(fn: () => void, ms: number): () => void {
  const latest = useRef(fn);
  latest.current = fn;
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  return useMemo(() => () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), ms);
  }, [ms]);
}

/** The page at /kanban. */
export function KanbanPage() {
  const profile = useProfile();
  const route = useRoute();
  const board = route.query.get("board") || "default";
  const selected = route.query.get("task") ?? undefined;
  const [archived, setArchived] = useState(false);
  const [creating, setCreating] = useState(false);
  // Bumped by every event on this board: the open drawer loads again.
  const [version, setVersion] = useState(0);
  // Cards dragged to a column whose move the server has not answered yet.
  const [moving, setMoving] = useState<Record<string, TaskStatus>>({});
  const [decomposing, setDecomposing] = useState<Set<string>>(new Set());

  const data = useAsync((signal) => loadBoard(board, archived, signal), [profile, board], [
    archived,
  ]);
  const boards = useAsync((signal) => loadBoards(signal), [profile]);
  const roster = useAsync((signal) => loadRoster(signal), [profile]);
  const orchestration = useAsync((signal) => loadOrchestration(signal), [profile]);
  const reloadSoon = useDebounced(data.reload, 100);
  const live = useKanbanLive((event) => {
    if (event && event.board !== board) return;
    reloadSoon();
    setVersion((value) => value + 1);
  });
  // A fresh board answers every move that was waiting for it.
  useEffect(() => setMoving({}), [data.data]);

  const cards = useMemo(() => {
    const byId = new Map<string, KanbanCard>();
    for (const column of data.data?.columns ?? []) {
      for (const card of column.tasks) byId.set(card.id, card);
    }
    return byId;
  }, [data.data]);

  const open = (id: string | null) => navigate(withQuery(route.query, { task: id }));

  const move = async (card: KanbanCard, to: TaskStatus) => {
    if (card.status === to) return;
    setMoving((previous) => ({ ...previous, [card.id]: to }));
    try {
      await changeTask(card.id, { status: to });
      data.reload();
    } catch (error) {
      // Refused: the card goes back where it was, and the reason shows.
      setMoving((previous) => {
        const { [card.id]: _gone, ...rest } = previous;
        return rest;
      });
      toast(`Cannot move "${card.title}": ${errorMessage(error)}`, "error");
    }
  };

  const decompose = async (id: string, title: string) => {
    setDecomposing((previous) => new Set(previous).add(id));
    try {
      const answer = await decomposeTask(id);
      if (answer.ok) toast(`Decomposed "${title}": ${answer.message}`);
      else toast(`Cannot decompose "${title}": ${answer.message}`, "error");
      data.reload();
    } catch (error) {
      toast(`Cannot decompose "${title}": ${errorMessage(error)}`, "error");
    } finally {
      setDecomposing((previous) => {
        const next = new Set(previous);
        next.delete(id);
        return next;
      });
    }
  };

  const toggleOrchestration = async () => {
    const current = orchestration.data;
    if (!current) return;
    try {
      await setAutoDecompose(!current.auto_decompose);
      orchestration.reload();
    } catch (error) {
      toast(`Cannot change the orchestration: ${errorMessage(error)}`, "error");
    }
  };

  const total = data.data?.columns.reduce((sum, column) => sum + column.tasks.length, 0) ?? 0;
  const auto = orchestration.data?.auto_decompose;

  return (
    <section class="page kanban-page" data-live={live ? "true" : "false"}>
      <PageHeader title="Kanban">
        {orchestration.data && (
          <button
            type="button"
            class={`kanban-pill ${auto ? "kanban-pill-auto" : "kanban-pill-manual"}`}
            aria-pressed={auto ? "true" : "false"}
            title={(auto
              ? "Triage tasks are decomposed on each dispatcher tick"
              : "Triage tasks wait for Decompose") +
              ` (kanban.auto_decompose; orchestrator: ${orchestration.data.resolved.orchestrator_profile}). ` +
              "Click to change."}
            onClick={toggleOrchestration}
          >
            Orchestration: {auto ? "Auto" : "Manual"}
          </button>
        )}
        <Button variant="primary" onClick={() => setCreating(true)}>New task</Button>
      </PageHeader>
      <div class="kanban-toolbar">
        {(boards.data?.length ?? 0) > 1 && (
          <label class="kanban-board-select">
            <span>Board</span>
            <select
              value={board}
              onChange={(event) =>
                navigate(withQuery(route.query, {
                  board: (event.currentTarget as HTMLSelectElement).value,
                  task: null,
                }))}
            >
              {boards.data!.map((entry) => (
                <option key={entry.slug} value={entry.slug}>{entry.name || entry.slug}</option>
              ))}
            </select>
          </label>
        )}
        <label class="kanban-archived">
          <input
            type="checkbox"
            checked={archived}
            onChange={(event) => setArchived((event.currentTarget as HTMLInputElement).checked)}
          />{" "}
          Show archived
        </label>
        {data.data && <span class="muted">{total} {total === 1 ? "task" : "tasks"}</span>}
      </div>
      {data.error !== undefined && <ErrorNote error={data.error} onRetry={data.reload} />}
      {!data.data && data.error === undefined && <Loading />}
      {data.data && total === 0 && (
        <Empty>
          No tasks on this board yet. Press <strong>New task</strong>, or run{" "}
          <code>herald kanban create "Write the docs"</code>.
        </Empty>
      )}
      {data.data && (
        <div class="kanban-layout">
          <KanbanColumns
            columns={data.data.columns}
            moving={moving}
            selected={selected}
            decomposing={decomposing}
            onOpen={(id) => open(id)}
            onMove={move}
            onDecompose={decompose}
          />
          {selected && (
            <TaskDrawer
              key={selected}
              id={selected}
              version={version}
              cards={cards}
              roster={roster.data ?? []}
              decomposing={decomposing.has(selected)}
              onOpen={(id) => open(id)}
              onClose={() => open(null)}
              onDecompose={decompose}
              onChanged={data.reload}
            />
          )}
        </div>
      )}
      {creating && (
        <NewTaskDialog
          board={board}
          roster={roster.data ?? []}
          defaultAssignee={orchestration.data?.resolved.default_assignee}
          onClose={() => setCreating(false)}
          onCreated={(task) => {
            setCreating(false);
            toast(`Created "${task.title}" (${task.status})`);
            data.reload();
          }}
        />
      )}
    </section>
  );
}
