/**
 * config.yaml as text: a textarea with a line-number gutter. Saving sends
 * the text with the version it was loaded at (`PUT /api/config/raw`); a
 * parse error (422) is marked at its line in the gutter and in the text,
 * with the message, and the caret moves there; a save over someone else's
 * (409 `config_changed`) says so and offers to reload.
 *
 * @module
 */

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, ApiError } from "../../lib/api.ts";
import { useProfile } from "../../lib/profile.ts";
import { useAsync } from "../../lib/use_async.ts";
import { Button, ErrorNote, Loading, toast } from "../../components/ui.tsx";
import { offsetOf } from "./config_form.ts";
import type { ConfigWarning } from "../../../../../core/config/load.ts";
import type { RawConfigSaved, RawConfigView } from "../../../../../core/usecases/config.ts";

/** Pixels per line of the editor (the CSS sets the same line height). */
const LINE_HEIGHT = 20;
/** The editor's top and left padding in pixels (the CSS sets the same). */
const PAD_TOP = 8;
const PAD_LEFT = 10;

/** Where a save found the text not to parse. */
interface ParseProblem {
  line: number;
  column: number;
  reason: string;
}

/** The raw YAML editor of the selected profile's config.yaml. */
export function RawEditor() {
  const profile = useProfile();
  const state = useAsync(
    (signal) => api<RawConfigView>("GET", "/api/config/raw", { signal }),
    [profile],
  );
  if (state.error) return <ErrorNote error={state.error} onRetry={state.reload} />;
  if (!state.data) return <Loading label="Loading config.yaml…" />;
  return (
    <EditorBody key={`${profile}:${state.data.version}`} raw={state.data} reload={state.reload} />
  );
}

function EditorBody(props: { raw: RawConfigView; reload: () => void }) {
  const [text, setText] = useState(props.raw.text);
  const [version, setVersion] = useState(props.raw.version);
  const [saved, setSaved] = useState(props.raw.text);
  const [problem, setProblem] = useState<ParseProblem | null>(null);
  const [conflict, setConflict] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [warnings, setWarnings] = useState<ConfigWarning[]>([]);
  const [saving, setSaving] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const layer = useRef<HTMLDivElement>(null);
  const gutter = useRef<HTMLDivElement>(null);

  const lines = text.split("\n").length;
  const dirty = text !== saved;

  const syncScroll = () => {
    const top = area.current?.scrollTop ?? 0;
    const left = area.current?.scrollLeft ?? 0;
    if (gutter.current) gutter.current.style.transform = `translateY(${-top}px)`;
    if (layer.current) layer.current.style.transform = `translate(${-left}px, ${-top}px)`;
  };

  // After a parse error: the caret goes to its line and column, scrolled into view.
  useLayoutEffect(() => {
    const editor = area.current;
    if (!problem || !editor) return;
    const offset = offsetOf(editor.value, problem.line, problem.column);
    editor.focus();
    editor.setSelectionRange(offset, offset);
    editor.scrollTop = Math.max(0, (problem.line - 1) * LINE_HEIGHT - editor.clientHeight / 2);
    syncScroll();
  }, [problem]);

  useEffect(syncScroll, [lines]);

  const save = async () => {
    if (saving) return;
    setSaving(true);
    setFailure(null);
    setConflict(false);
    try {
      const result = await api<RawConfigSaved>("PUT", "/api/config/raw", {
        body: { text, version },
      });
      setVersion(result.version);
      setSaved(text);
      setProblem(null);
      setWarnings(result.warnings);
      toast("Saved config.yaml");
    } catch (error) {
      if (
        error instanceof ApiError && error.status === 422 && typeof error.details.line === "number"
      ) {
        setProblem({
          line: error.details.line,
          column: Number(error.details.column ?? 1),
          reason: String(error.details.reason ?? error.message),
        });
      } else if (error instanceof ApiError && error.code === "config_changed") {
        setConflict(true);
      } else {
        setFailure(error);
      }
    } finally {
      setSaving(false);
    }
  };

  const describedBy = [problem ? "raw-problem" : "", "raw-help"].filter(Boolean).join(" ");
  return (
    <div class="settings-raw">
      <p class="muted" id="raw-help">
        Editing <code>{props.raw.file}</code> as text.
        {props.raw.redacted.length > 0 &&
          " Secret values are shown hidden (…1234); leave them as they are to keep them."}{" "}
        Ctrl+S saves.
      </p>
      {problem && (
        <div class="note note-error" id="raw-problem" role="alert">
          <span>
            Line {problem.line}, column {problem.column}: {problem.reason}. Nothing was written.
          </span>
        </div>
      )}
      {conflict && (
        <div class="note note-warn" role="alert">
          <span>
            config.yaml was changed by someone else since you loaded it, so nothing was written.
            Reload it to see their change, then apply your edit again.
          </span>
          <Button onClick={props.reload}>Reload config.yaml</Button>
        </div>
      )}
      {failure !== null && <ErrorNote error={failure} />}
      {warnings.map((warning) => (
        <div class="note note-warn" key={warning.path + warning.message}>
          <span>
            {warning.path && <code>{warning.path}</code>} {warning.message}
          </span>
        </div>
      ))}
      <div class="settings-raw-editor">
        <div class="settings-raw-gutter" aria-hidden="true">
          <div ref={gutter}>
            {Array.from({ length: lines }, (_, index) => (
              <div
                key={index}
                class={problem?.line === index + 1 ? "settings-raw-line-error" : undefined}
                data-line={index + 1}
                title={problem?.line === index + 1 ? problem.reason : undefined}
              >
                {problem?.line === index + 1 ? "▶ " : ""}
                {index + 1}
              </div>
            ))}
          </div>
        </div>
        <div class="settings-raw-text">
          <div class="settings-raw-layer" aria-hidden="true">
            <div ref={layer}>
              {problem && (
                <>
                  <div
                    class="settings-raw-band"
                    style={{ top: `${PAD_TOP + (problem.line - 1) * LINE_HEIGHT}px` }}
                  />
                  <div
                    class="settings-raw-column"
                    style={{
                      top: `${PAD_TOP + (problem.line - 1) * LINE_HEIGHT}px`,
                      left: `calc(${PAD_LEFT}px + ${problem.column - 1}ch)`,
                    }}
                  />
                </>
              )}
            </div>
          </div>
          <textarea
            ref={area}
            aria-label="config.yaml"
            aria-describedby={describedBy}
            aria-invalid={problem ? true : undefined}
            spellcheck={false}
            autoComplete="off"
            wrap="off"
            value={text}
            onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
            onScroll={syncScroll}
            onKeyDown={(event) => {
              if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
                event.preventDefault();
                save();
              }
            }}
          />
        </div>
      </div>
      <div class="settings-savebar">
        <span class="muted" aria-live="polite">{dirty ? "Unsaved changes" : "Saved"}</span>
        <Button
          disabled={!dirty || saving}
          onClick={() => {
            setText(saved);
            setProblem(null);
          }}
        >
          Discard
        </Button>
        <Button variant="primary" disabled={!dirty || saving} onClick={save}>
          {saving ? "Saving…" : "Save"}
        </Button>
      </div>
    </div>
  );
}
