/**
 * A code block with its language and a copy button. Highlighting loads on
 * demand: the first block with a language fetches the highlighter chunk
 * (lib/highlight.ts) with a dynamic import; until it arrives, and for blocks
 * without a language, the code shows plain. Tokens render as
 * `<span class="tok-KIND">` (colours in render.css).
 */

import { Component } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { LineTokens, Token } from "../lib/highlight.ts";
import { toast } from "./ui.tsx";
import "./render.css";

type Highlighter = typeof import("../lib/highlight.ts");

let highlighter: Highlighter | null = null;
let loading: Promise<Highlighter> | null = null;

/** Fetches the highlighter chunk once; a failed fetch is tried again by the next block. */
function loadHighlighter(): Promise<Highlighter> {
  loading ??= import("../lib/highlight.ts").then(
    (module) => (highlighter = module),
    (error) => {
      loading = null;
      throw error;
    },
  );
  return loading;
}

/** A code block: plain at first, highlighted once the highlighter has loaded. */
export function CodeBlock(props: { code: string; language?: string }) {
  const language = (props.language ?? "").trim();
  const [module, setModule] = useState<Highlighter | null>(highlighter);
  useEffect(() => {
    if (module || language === "") return;
    let live = true;
    loadHighlighter().then(
      (loaded) => live && setModule(loaded),
      () => {/* Stays plain: the code is all there, only its colours are missing. */},
    );
    return () => {
      live = false;
    };
  }, [language, module]);
  const tokens = useRef<LineTokens | null>(null);
  const lines = useMemo(() => {
    if (!module || language === "") return null;
    if (tokens.current?.language !== language) tokens.current = new module.LineTokens(language);
    return tokens.current.update(props.code);
  }, [module, language, props.code]);
  return (
    <div class="codeblock">
      <div class="codeblock-bar">
        <span class="codeblock-lang">{language || "text"}</span>
        <CopyButton code={props.code} />
      </div>
      <pre class="codeblock-pre" tabIndex={0}>
        <code
          class={language ? `language-${language}` : undefined}
          data-highlighted={lines ? "" : undefined}
        >
          {lines
            ? lines.map((line, index) => (
              <CodeLine key={index} tokens={line} newline={index < lines.length - 1} />
            ))
            : props.code}
        </code>
      </pre>
    </div>
  );
}

/** One highlighted line; skipped when its tokens are the same list as before. */
class CodeLine extends Component<{ tokens: Token[]; newline: boolean }> {
  override shouldComponentUpdate(next: { tokens: Token[]; newline: boolean }): boolean {
    return next.tokens !== this.props.tokens || next.newline !== this.props.newline;
  }

  override render() {
    const { tokens, newline } = this.props;
    return (
      <>
        {tokens.map((token, index) =>
          token.kind
            ? <span key={index} class={`tok-${token.kind}`}>{token.text}</span>
            : token.text
        )}
        {newline ? "\n" : null}
      </>
    );
  }
}

function CopyButton(props: { code: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    if (await copyText(props.code)) setCopied(true);
    else toast("Could not copy: select the code and press Ctrl+C (Cmd+C on a Mac).", "error");
  };
  return (
    <button type="button" class="codeblock-copy" aria-label="Copy code" onClick={copy}>
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

/** Puts text on the clipboard: the Clipboard API, or a selected textarea where it is missing. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Not a secure context, or no permission: fall back to the selection.
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}
