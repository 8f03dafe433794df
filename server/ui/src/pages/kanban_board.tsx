/**
 * The Kanban page's columns and cards. A card is dragged (HTML5 drag and
 * drop) onto another column to move it; while the server answers it shows
 * in the new column, and a refused move puts it back. A triage card has
 * its Decompose button.
 */

import { useState } from "preact/hooks";
import { Button } from "../components/ui.tsx";
import { COLUMN_LABELS, type KanbanCard, type TaskStatus } from "./kanban_api.ts";

/** The drag's data type: the card's id. */
const DRAG_TYPE = "application/x-herald-task";

/** The columns of the board, with their cards. */
export function KanbanColumns(props: {
  columns: { status: TaskStatus; tasks: KanbanCard[] }[];
  /** Cards on their way to another column (the server has not answered yet). */
  moving: Record<string, TaskStatus>;
  selected?: string;
  decomposing: Set<string>;
  onOpen: (id: string) => void;
  onMove: (card: KanbanCard, to: TaskStatus) => void;
  onDecompose: (id: string, title: string) => void;
}) {
  const [dragging, setDragging] = useState<KanbanCard>();
  const [over, setOver] = useState<TaskStatus>();
  const all = props.columns.flatMap((column) => column.tasks);
  const where = (card: KanbanCard) => props.moving[card.id] ?? card.status;

  return (
    <div class="kanban-board" role="group" aria-label="Board">
      {props.columns.map((column) => {
        const label = COLUMN_LABELS[column.status];
        const cards = all.filter((card) => where(card) === column.status);
        const target = dragging !== undefined && where(dragging) !== column.status;
        return (
          <section
            key={column.status}
            class={`kanban-column${target && over === column.status ? " kanban-drop" : ""}`}
            aria-label={label}
            data-status={column.status}
            onDragOver={(event) => {
              if (!target) return;
              event.preventDefault();
              event.dataTransfer!.dropEffect = "move";
              if (over !== column.status) setOver(column.status);
            }}
            onDragLeave={(event) => {
              const next = event.relatedTarget as Node | null;
              if (!next || !(event.currentTarget as Node).contains(next)) setOver(undefined);
            }}
            onDrop={(event) => {
              event.preventDefault();
              const id = event.dataTransfer?.getData(DRAG_TYPE) || dragging?.id;
              const card = all.find((entry) => entry.id === id);
              setOver(undefined);
              setDragging(undefined);
              if (card && where(card) !== column.status) props.onMove(card, column.status);
            }}
          >
            <h2 class="kanban-column-head">
              <span>{label}</span>
              <span class="kanban-count" aria-label={`${cards.length} tasks`}>{cards.length}</span>
            </h2>
            <ul class="kanban-cards" aria-label={`${label} tasks`}>
              {cards.map((card) => (
                <Card
                  key={card.id}
                  card={card}
                  pending={props.moving[card.id] !== undefined}
                  selected={card.id === props.selected}
                  decomposing={props.decomposing.has(card.id)}
                  onOpen={props.onOpen}
                  onDecompose={props.onDecompose}
                  onDragStart={() => setDragging(card)}
                  onDragEnd={() => {
                    setDragging(undefined);
                    setOver(undefined);
                  }}
                />
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

function Card(props: {
  card: KanbanCard;
  pending: boolean;
  selected: boolean;
  decomposing: boolean;
  onOpen: (id: string) => void;
  onDecompose: (id: string, title: string) => void;
  onDragStart: () => void;
  onDragEnd: () => void;
}) {
  const { card } = props;
  const classes = ["kanban-card"];
  if (props.pending) classes.push("kanban-card-pending");
  if (props.selected) classes.push("kanban-card-selected");
  return (
    <li
      class={classes.join(" ")}
      aria-label={card.title}
      data-id={card.id}
      draggable
      onDragStart={(event) => {
        event.dataTransfer?.setData(DRAG_TYPE, card.id);
        event.dataTransfer?.setData("text/plain", card.id);
        if (event.dataTransfer) event.dataTransfer.effectAllowed = "move";
        props.onDragStart();
      }}
      onDragEnd={props.onDragEnd}
    >
      <button
        type="button"
        class="kanban-card-title"
        aria-label={`Open ${card.title}`}
        onClick={() => props.onOpen(card.id)}
      >
        {card.title}
      </button>
      <div class="kanban-card-meta">
        <span class="kanban-assignee" title="Assignee">{card.assignee}</span>
        {card.priority !== 0 && (
          <span class="kanban-priority" title="Priority (higher goes first)">
            P{card.priority}
          </span>
        )}
        {card.parents > 0 && <span title="Tasks it waits for">waits on {card.parents}</span>}
        {card.children > 0 && <span title="Tasks waiting for it">blocks {card.children}</span>}
      </div>
      {card.status === "triage" && (
        <Button
          class="kanban-card-action"
          disabled={props.decomposing}
          aria-label={`Decompose ${card.title}`}
          onClick={() => props.onDecompose(card.id, card.title)}
        >
          {props.decomposing ? "Decomposing…" : "Decompose"}
        </Button>
      )}
    </li>
  );
}
