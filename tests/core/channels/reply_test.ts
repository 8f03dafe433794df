/**
 * core/channels/reply.ts: silence tokens, `MEDIA:` extraction, splitting at
 * a platform's limit (paragraphs, lines, sentences, words, graphemes; code
 * fences closed and reopened), planning a formatted reply and marking a
 * resent one.
 */

import assert from "node:assert/strict";
import {
  extractMedia,
  formatParts,
  isSilent,
  markPossibleDuplicate,
  NO_ANSWER_TEXT,
  planReply,
  RECOVERED_NOTICE,
  SILENCE_TOKENS,
  splitText,
} from "../../../core/channels/reply.ts";
import { markdownToPlainText, markdownToTelegramHtml } from "../../../core/channels/formats.ts";
import type { OutboundReply } from "../../../core/channels/contract.ts";

const same = (markdown: string) => markdown;

/** True when the text has a high surrogate without its low one, or the reverse. */
function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** The text without whitespace and fence characters: what splitting must keep. */
function content(text: string): string {
  return text.replace(/[\s`~]/g, "");
}

// ------------------------------------------------------------------ silence

Deno.test("every silence token is silent, whatever its case and whitespace", () => {
  for (const token of SILENCE_TOKENS) {
    for (const variant of [token, token.toLowerCase(), `  ${token}\n`, `\t${token} `]) {
      assert.equal(isSilent(variant), true, JSON.stringify(variant));
    }
  }
  for (const variant of ["no   reply", "No\nReply", "nO_rEpLy", "[ silent ]", "  [静默]  "]) {
    assert.equal(isSilent(variant), true, JSON.stringify(variant));
  }
});

Deno.test("an answer that only contains or resembles a silence token is not silent", () => {
  for (
    const answer of [
      "",
      "   ",
      "SILENT.",
      "[SILENT] done",
      "I will stay silent",
      "**SILENT**",
      "NOREPLY",
      "NO-REPLY",
      "静默了",
      "「静默」",
    ]
  ) {
    assert.equal(isSilent(answer), false, JSON.stringify(answer));
  }
});

// -------------------------------------------------------------------- media

Deno.test("MEDIA lines become media in order and leave the text", () => {
  const cases: { answer: string; text: string; paths: string[] }[] = [
    { answer: "Here:\nMEDIA:/tmp/a.png", text: "Here:", paths: ["/tmp/a.png"] },
    {
      answer: "MEDIA:/tmp/a.png\nMEDIA: /tmp/b.ogg \nDone.",
      text: "Done.",
      paths: ["/tmp/a.png", "/tmp/b.ogg"],
    },
    { answer: "  MEDIA:/srv/my file.pdf  ", text: "", paths: ["/srv/my file.pdf"] },
    {
      answer: 'MEDIA:`/tmp/q.png`\nMEDIA:"/tmp/r.png"',
      text: "",
      paths: ["/tmp/q.png", "/tmp/r.png"],
    },
    {
      answer: "MEDIA:C:\\Users\\me\\a.png\nMEDIA:D:/b.png",
      text: "",
      paths: ["C:\\Users\\me\\a.png", "D:/b.png"],
    },
    { answer: "MEDIA:\\\\host\\share\\c.png", text: "", paths: ["\\\\host\\share\\c.png"] },
    { answer: "MEDIA:/tmp/a.png\nagain\nMEDIA:/tmp/a.png", text: "again", paths: ["/tmp/a.png"] },
    { answer: "a\r\nMEDIA:/tmp/a.png\r\nb", text: "a\nb", paths: ["/tmp/a.png"] },
    { answer: "写好了 🎉\nMEDIA:/tmp/图表.png", text: "写好了 🎉", paths: ["/tmp/图表.png"] },
  ];
  for (const { answer, text, paths } of cases) {
    const result = extractMedia(answer);
    assert.equal(result.text, text, JSON.stringify(answer));
    assert.deepEqual(result.media, paths.map((path) => ({ path, asDocument: false })));
  }
});

Deno.test("a MEDIA line with a relative path, no path or other text stays text", () => {
  for (
    const answer of [
      "MEDIA:relative/a.png",
      "MEDIA:./a.png",
      "MEDIA:~/a.png",
      "MEDIA:",
      "See MEDIA:/tmp/a.png for the chart",
      "media:/tmp/a.png",
    ]
  ) {
    assert.deepEqual(extractMedia(answer), { text: answer, media: [] }, answer);
  }
});

Deno.test("MEDIA lines and the document directive inside a code fence are content", () => {
  const answer = "Write this:\n```\nMEDIA:/tmp/a.png\n[[as_document]]\n```\nMEDIA:/tmp/b.png";
  assert.deepEqual(extractMedia(answer), {
    text: "Write this:\n```\nMEDIA:/tmp/a.png\n[[as_document]]\n```",
    media: [{ path: "/tmp/b.png", asDocument: false }],
  });
});

Deno.test("[[as_document]] anywhere makes every media a document and leaves tidy text", () => {
  const cases: { answer: string; text: string }[] = [
    { answer: "Here [[as_document]] you go\nMEDIA:/tmp/a.png", text: "Here you go" },
    { answer: "[[as_document]]Here\nMEDIA:/tmp/a.png", text: "Here" },
    { answer: "Here.[[as_document]]\nMEDIA:/tmp/a.png", text: "Here." },
    { answer: "MEDIA:/tmp/a.png\n[[as_document]]", text: "" },
    { answer: "Top\n\n[[as_document]]\n\nBottom\nMEDIA:/tmp/a.png", text: "Top\n\nBottom" },
    { answer: "x [[as_document]] [[as_document]] y\nMEDIA:/tmp/a.png", text: "x y" },
  ];
  for (const { answer, text } of cases) {
    const result = extractMedia(answer);
    assert.equal(result.text, text, JSON.stringify(answer));
    assert.deepEqual(result.media, [{ path: "/tmp/a.png", asDocument: true }]);
  }
  const two = extractMedia("MEDIA:/a.png\n[[as_document]]\nMEDIA:/b.mp4");
  assert.deepEqual(two.media.map((item) => item.asDocument), [true, true]);
  assert.deepEqual(extractMedia("Just text [[as_document]]"), { text: "Just text", media: [] });
});

Deno.test("removing a MEDIA line between paragraphs leaves one blank line", () => {
  assert.equal(extractMedia("a\n\nMEDIA:/x.png\n\nb").text, "a\n\nb");
  assert.equal(extractMedia("\n\nMEDIA:/x.png\n\nb\n\n").text, "b");
  assert.equal(extractMedia("a\n\n\n\nb").text, "a\n\n\n\nb", "untouched blank lines stay");
  assert.equal(extractMedia("  indented\nMEDIA:/x.png").text, "  indented");
});

// ---------------------------------------------------------------- splitting

Deno.test("a text within the limit is one part; nothing gives no part", () => {
  assert.deepEqual(splitText("hello", 5), ["hello"]);
  assert.deepEqual(splitText("hello", 4096), ["hello"]);
  assert.deepEqual(splitText("", 10), []);
  assert.deepEqual(splitText(" \n\n \t\n", 10), []);
  assert.deepEqual(splitText("\n\n  hi\n\n", 10), ["  hi"]);
});

Deno.test("a limit that is not a whole number of at least 1 is a RangeError", () => {
  for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => splitText("abc", limit), RangeError, String(limit));
  }
});

Deno.test("splitting prefers paragraphs, then lines, then sentences, then words", () => {
  const cases: { text: string; limit: number; parts: string[] }[] = [
    { text: "one two\n\nthree four", limit: 12, parts: ["one two", "three four"] },
    { text: "aaa\n\nbbb\n\nccc", limit: 9, parts: ["aaa\n\nbbb", "ccc"] },
    { text: "aaa\n\nbbb\nccc", limit: 9, parts: ["aaa", "bbb\nccc"] },
    {
      text: "line one\nline two\nline three",
      limit: 18,
      parts: ["line one\nline two", "line three"],
    },
    { text: "First one. Second one. Third", limit: 24, parts: ["First one. Second one.", "Third"] },
    { text: "Really? Yes! Sure.", limit: 13, parts: ["Really? Yes!", "Sure."] },
    { text: 'He said "go." Then left', limit: 15, parts: ['He said "go."', "Then left"] },
    { text: "alpha beta gamma delta", limit: 11, parts: ["alpha beta", "gamma delta"] },
    { text: "这是第一句。这是第二句。", limit: 8, parts: ["这是第一句。", "这是第二句。"] },
    { text: "一二三，四五六，七八九", limit: 5, parts: ["一二三，", "四五六，", "七八九"] },
    { text: "abcdefghij", limit: 4, parts: ["abcd", "efgh", "ij"] },
  ];
  for (const { text, limit, parts } of cases) {
    assert.deepEqual(splitText(text, limit), parts, `${JSON.stringify(text)} at ${limit}`);
  }
});

Deno.test("a very long word is cut hard at the limit", () => {
  const word = "x".repeat(10_000);
  const parts = splitText(`start ${word} end`, 4096);
  assert.deepEqual(parts.map((part) => part.length), [5, 4096, 4096, 1812]);
  assert.ok(parts.join("") === `start${word} end`, "the word is kept whole across parts");
});

Deno.test("emoji and other characters outside the BMP are never cut in two", () => {
  const text = "😀🎉👍🏽a🇯🇵b𠀋c".repeat(5);
  for (let limit = 1; limit <= 12; limit++) {
    const parts = splitText(text, limit);
    assert.equal(parts.join(""), text, `limit ${limit}`);
    for (const part of parts) {
      assert.equal(hasLoneSurrogate(part), false, `limit ${limit}: ${JSON.stringify(part)}`);
      // The one allowed excess: a limit of 1 against a two-unit character.
      assert.ok(part.length <= Math.max(limit, 2), `limit ${limit}: ${part.length}`);
    }
  }
});

Deno.test("a grapheme cluster stays whole when it fits in a part", () => {
  const family = "👨‍👩‍👧‍👦"; // 11 code units joined by ZWJ
  const parts = splitText(`${family}${family}${family}`, 12);
  assert.deepEqual(parts, [family, family, family]);
  assert.deepEqual(splitText("🇯🇵🇫🇷🇧🇷", 6), ["🇯🇵", "🇫🇷", "🇧🇷"]);
  const accents = "e\u0301".repeat(10);
  for (const part of splitText(accents, 5)) assert.ok(!part.startsWith("\u0301"), part);
});

Deno.test("a code block cut in two is closed and reopened with its language", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `const value${i} = ${i}; // ${i}`);
  const text = `Intro.\n\n\`\`\`ts\n${lines.join("\n")}\n\`\`\`\n\nOutro.`;
  const parts = splitText(text, 200);
  assert.ok(parts.length > 3);
  for (const part of parts) {
    assert.ok(part.length <= 200, `${part.length}`);
    const fences = part.split("\n").filter((line) => line.startsWith("```"));
    assert.equal(fences.length % 2, 0, `unbalanced fences in ${JSON.stringify(part)}`);
    if (part.includes("const value")) {
      assert.ok(part.startsWith("```ts\n") || part.startsWith("Intro."), part);
    }
  }
  assert.ok(parts[parts.length - 1].endsWith("```\n\nOutro."));
  const code = parts.join("\n").split("\n").filter((line) => line.startsWith("const"));
  assert.deepEqual(code, lines);
});

Deno.test("tilde and long fences are reopened as written", () => {
  const body = Array.from({ length: 20 }, (_, i) => `row ${i}`).join("\n");
  for (const fence of ["~~~", "````", "~~~~~"]) {
    const parts = splitText(`${fence}python extra\n${body}\n${fence}`, 60);
    assert.ok(parts.length > 1);
    for (const part of parts) {
      assert.ok(part.startsWith(`${fence}python extra\n`), part);
      assert.ok(part.endsWith(`\n${fence}`), part);
      assert.ok(part.length <= 60);
    }
  }
});

Deno.test("a cut just before the closing fence does not open an empty block", () => {
  const text = "```\n" + "a".repeat(20) + "\n```\nafter the block";
  const parts = splitText(text, 28);
  assert.deepEqual(parts, ["```\n" + "a".repeat(20) + "\n```", "after the block"]);
});

Deno.test("a part never ends on a fence's opening line", () => {
  const text = "Some words here.\n```js\n" + "x();\n".repeat(10) + "```";
  for (let limit = 20; limit <= 60; limit++) {
    for (const part of splitText(text, limit)) {
      assert.ok(!/```js$/.test(part), `limit ${limit}: ${JSON.stringify(part)}`);
      assert.ok(part.length <= limit);
    }
  }
});

Deno.test("limits too small for the fence lines cut the block without reopening it", () => {
  const text = "```typescript\nconst a = 1;\n```";
  for (let limit = 1; limit <= 20; limit++) {
    const parts = splitText(text, limit);
    for (const part of parts) assert.ok(part.length <= limit, `limit ${limit}: ${part}`);
    assert.equal(content(parts.join("")), content(text));
  }
});

Deno.test("every limit from 1 to 5000 keeps the text, within the limit, with no empty part", () => {
  const corpus = [
    "# Heading\n\nA paragraph with **bold**, `code` and a [link](https://example.com/a_b).",
    "日本語の文章です。とても長い文になるかもしれません。句読点、読点もあります。",
    "Emoji 😀🎉👨‍👩‍👧 and flags 🇯🇵🇺🇸 in a sentence. " + "word ".repeat(300),
    "```\n" + Array.from({ length: 80 }, (_, i) => `line ${i}: ${"=".repeat(i % 40)}`).join("\n") +
    "\n```",
    "- item one\n- item two\n  - nested item\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    "supercalifragilistic".repeat(200),
    "Mixed 中文 and English 한국어 text. ".repeat(60).trimEnd(),
  ].join("\n\n");
  const limits = [1, 2, 3, 4, 5, 7, 10, 16, 33, 64, 100, 257, 500, 1000, 2048, 4096, 4500, 5000];
  for (const limit of limits) {
    const parts = splitText(corpus, limit);
    for (const part of parts) {
      assert.ok(part.trim() !== "", `limit ${limit}: empty part`);
      assert.ok(part.length <= Math.max(limit, 2), `limit ${limit}: part of ${part.length}`);
      assert.equal(hasLoneSurrogate(part), false, `limit ${limit}`);
    }
    assert.equal(content(parts.join("\n")), content(corpus), `limit ${limit}: text lost`);
  }
  assert.deepEqual(splitText(corpus, 100_000), [corpus]);
});

// ----------------------------------------------------------------- planning

/** A format that escapes every character as a numeric entity: five to eight times longer. */
const entities = (markdown: string) =>
  [...markdown].map((char) => `&#${char.codePointAt(0)};`).join("");
const decode = (html: string) =>
  html.replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)));

Deno.test("a silent answer plans no reply", () => {
  assert.equal(planReply("[SILENT]", { chunkLimit: 100, format: same }), null);
  assert.equal(planReply(" no_reply ", { chunkLimit: 100, format: same }), null);
});

Deno.test("text parts come first, formatted, then the files in order", () => {
  const reply = planReply("**Done.**\nMEDIA:/tmp/a.png\nSee above.\nMEDIA:/tmp/b.pdf", {
    chunkLimit: 4096,
    format: markdownToTelegramHtml,
  });
  assert.deepEqual(reply, {
    parts: [
      { kind: "text", text: "<b>Done.</b>\nSee above." },
      { kind: "media", media: { path: "/tmp/a.png", asDocument: false } },
      { kind: "media", media: { path: "/tmp/b.pdf", asDocument: false } },
    ],
  });
});

Deno.test("an answer with only files has only media parts", () => {
  const reply = planReply("MEDIA:/tmp/a.png\n[[as_document]]\n", { chunkLimit: 50, format: same });
  assert.deepEqual(reply, {
    parts: [{ kind: "media", media: { path: "/tmp/a.png", asDocument: true } }],
  });
});

Deno.test("an empty answer gets one part saying the agent gave no answer", () => {
  for (const answer of ["", "   \n", "[[as_document]]", "\n[[as_document]]\n\n"]) {
    assert.deepEqual(planReply(answer, { chunkLimit: 4096, format: markdownToPlainText }), {
      parts: [{ kind: "text", text: NO_ANSWER_TEXT }],
    });
  }
});

Deno.test("a long answer is split so every formatted part fits the limit", () => {
  const answer = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${"word ".repeat(i * 3)}`)
    .join("\n\n");
  for (const limit of [50, 100, 333, 1000, 4096]) {
    const reply = planReply(answer, { chunkLimit: limit, format: markdownToPlainText })!;
    for (const part of reply.parts) {
      assert.equal(part.kind, "text");
      if (part.kind === "text") {
        assert.ok(part.text.length <= limit, `${limit}: ${part.text.length}`);
      }
    }
    const text = reply.parts.map((part) => part.kind === "text" ? part.text : "").join(" ");
    assert.equal(content(text), content(answer));
  }
});

Deno.test("a format that grows the text past the limit takes smaller pieces", () => {
  const answer = "Résumé 😀 <b> & 中文 ".repeat(80) + "\n\n" + "x".repeat(300);
  for (const limit of [16, 40, 99, 256, 1000]) {
    const parts = formatParts(answer, limit, entities);
    for (const part of parts) assert.ok(part.length <= limit, `${limit}: ${part.length}`);
    assert.equal(content(parts.map(decode).join("")), content(answer), `limit ${limit}`);
  }
});

Deno.test("Telegram HTML with heavy escaping stays within the limit", () => {
  const answer = "a < b && c > d; ".repeat(200) + "\n\n```js\n" +
    "if (a < b && c) {}\n".repeat(50) +
    "```";
  for (const limit of [64, 100, 4096]) {
    const reply = planReply(answer, { chunkLimit: limit, format: markdownToTelegramHtml })!;
    for (const part of reply.parts) {
      if (part.kind !== "text") continue;
      assert.ok(part.text.length <= limit, `${limit}: ${part.text.length}`);
      assert.ok(!/<(?!\/?(?:b|i|s|code|pre|a|blockquote)\b)/.test(part.text), part.text);
    }
  }
});

Deno.test("a limit smaller than one escaped character is a RangeError naming it", () => {
  assert.throws(() => formatParts("<", 3, entities), /chunk limit of 3 is too small/);
  assert.throws(() => planReply("a", { chunkLimit: 0, format: same }), RangeError);
});

Deno.test("parts that format to nothing are dropped", () => {
  const dropCode = (markdown: string) => markdown.startsWith("```") ? "" : markdown;
  const parts = formatParts("before\n\n```\ncode\n```\n\nafter", 12, dropCode);
  assert.deepEqual(parts, ["before", "after"]);
});

// ------------------------------------------------------------ resent replies

const reply = (...parts: OutboundReply["parts"]): OutboundReply => ({ parts });

Deno.test("a resent reply gets the notice in front of its first text part", () => {
  const original = reply(
    { kind: "media", media: { path: "/tmp/a.png", asDocument: false } },
    { kind: "text", text: "Hello" },
    { kind: "text", text: "World" },
  );
  const marked = markPossibleDuplicate(original, markdownToPlainText, 4096);
  assert.deepEqual(marked, {
    parts: [
      original.parts[0],
      { kind: "text", text: `${RECOVERED_NOTICE}\n\nHello` },
      { kind: "text", text: "World" },
    ],
    possibleDuplicate: true,
  });
  assert.equal(original.possibleDuplicate, undefined, "the input is not changed");
  assert.equal((original.parts[1] as { text: string }).text, "Hello");
});

Deno.test("the notice is its own first part when the first text part has no room", () => {
  const full = "x".repeat(100);
  const marked = markPossibleDuplicate(reply({ kind: "text", text: full }), same, 100);
  assert.deepEqual(marked.parts, [
    { kind: "text", text: RECOVERED_NOTICE },
    { kind: "text", text: full },
  ]);
  assert.equal(marked.possibleDuplicate, true);
  const media = reply({ kind: "media", media: { path: "/a.png", asDocument: false } });
  assert.deepEqual(markPossibleDuplicate(media, same, 4096).parts, [
    { kind: "text", text: RECOVERED_NOTICE },
    media.parts[0],
  ]);
});

Deno.test("the notice is formatted for the platform and split under a tiny limit", () => {
  const upper = (markdown: string) => markdown.toUpperCase();
  const marked = markPossibleDuplicate(reply({ kind: "text", text: "hi" }), upper, 4096);
  assert.equal(
    (marked.parts[0] as { text: string }).text,
    `${RECOVERED_NOTICE.toUpperCase()}\n\nhi`,
  );
  const tiny = markPossibleDuplicate(reply({ kind: "text", text: "hi" }), same, 20);
  for (const part of tiny.parts) assert.ok((part as { text: string }).text.length <= 20);
  assert.equal(
    content(tiny.parts.map((part) => (part as { text: string }).text).join("")),
    content(RECOVERED_NOTICE + "hi"),
  );
});

Deno.test("marking a reply twice adds the notice once", () => {
  const once = markPossibleDuplicate(reply({ kind: "text", text: "hi" }), same, 4096);
  assert.equal(markPossibleDuplicate(once, same, 4096), once);
});
