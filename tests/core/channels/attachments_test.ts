/**
 * core/channels/attachments.ts: the attachment policy read from a
 * platform's settings, what becomes of each inbound file (inline text, a
 * kept file, a refusal with a reason the user is told) and how the files
 * are described to the model.
 */

import assert from "node:assert/strict";
import {
  admitAttachment,
  type AdmittedAttachment,
  attachmentPolicy,
  DEFAULT_ATTACHMENT_POLICY,
  describeAttachmentsForPrompt,
  formatBytes,
  INLINE_TEXT_LIMIT,
  readAttachmentPolicy,
} from "../../../core/channels/attachments.ts";
import type { InboundAttachment } from "../../../core/channels/contract.ts";

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

/** An inbound attachment whose downloads are counted. */
function attachment(
  fields: Partial<Omit<InboundAttachment, "fetch">>,
  body: Uint8Array | string | Error = "",
): InboundAttachment & { fetches: number } {
  const bytes = typeof body === "string" ? encoder.encode(body) : body;
  const item = {
    kind: "file" as const,
    ...fields,
    fetches: 0,
    fetch(): Promise<Uint8Array> {
      item.fetches++;
      return bytes instanceof Error ? Promise.reject(bytes) : Promise.resolve(bytes);
    },
  };
  return item;
}

const policy = { ...DEFAULT_ATTACHMENT_POLICY };

// ------------------------------------------------------------------ settings

Deno.test("the policy defaults to 32 MiB and no other types", () => {
  assert.deepEqual(DEFAULT_ATTACHMENT_POLICY, { maxBytes: 32 * MiB, allowAnyType: false });
  assert.equal(INLINE_TEXT_LIMIT, 100 * 1024);
  assert.deepEqual(readAttachmentPolicy({}), { policy: DEFAULT_ATTACHMENT_POLICY, warnings: [] });
  assert.deepEqual(
    attachmentPolicy({ enabled: true, attachments: null }),
    DEFAULT_ATTACHMENT_POLICY,
  );
});

Deno.test("the policy reads max_bytes and allow_any_type from the platform's settings", () => {
  assert.deepEqual(
    readAttachmentPolicy({ attachments: { max_bytes: 1024, allow_any_type: true } }),
    { policy: { maxBytes: 1024, allowAnyType: true }, warnings: [] },
  );
  assert.deepEqual(attachmentPolicy({ attachments: { max_bytes: 0 } }), {
    maxBytes: 0,
    allowAnyType: false,
  });
});

Deno.test("invalid attachment settings fall back to the defaults with a warning", () => {
  const cases: [unknown, RegExp][] = [
    [
      { max_bytes: -1 },
      /max_bytes should be a whole number of bytes.*got -1; using 33554432 \(32 MiB\)/,
    ],
    [{ max_bytes: 1.5 }, /max_bytes .* got 1\.5/],
    [{ max_bytes: "32MB" }, /max_bytes .* got "32MB"/],
    [{ allow_any_type: "yes" }, /allow_any_type should be true or false, got "yes"; using false/],
    ["big", /attachments should be a mapping .* got "big"; using the defaults/],
    [[1, 2], /attachments should be a mapping/],
  ];
  for (const [attachments, warning] of cases) {
    const { policy, warnings } = readAttachmentPolicy({ attachments });
    assert.deepEqual(policy, DEFAULT_ATTACHMENT_POLICY, JSON.stringify(attachments));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], warning);
  }
  const mixed = readAttachmentPolicy({ attachments: { max_bytes: 10, allow_any_type: 1 } });
  assert.deepEqual(mixed.policy, { maxBytes: 10, allowAnyType: false });
  assert.equal(mixed.warnings.length, 1);
});

// ------------------------------------------------------------------ admitting

Deno.test("a file the platform says is too large is refused before downloading", async () => {
  const big = attachment({ name: "video.mp4", mimeType: "video/mp4", size: 40 * MiB });
  const result = await admitAttachment(big, policy);
  assert.equal(big.fetches, 0);
  assert.equal(result.kind, "refused");
  assert.match(
    (result as { reason: string }).reason,
    /^"video\.mp4" was not read: it is 40 MiB, over this chat's limit of 32 MiB\. .*max_bytes/,
  );
});

Deno.test("a download larger than the limit is refused after it", async () => {
  const item = attachment({ name: "notes.txt" }, "x".repeat(11));
  const result = await admitAttachment(item, { maxBytes: 10, allowAnyType: false });
  assert.equal(item.fetches, 1);
  assert.deepEqual(result.kind, "refused");
  assert.match((result as { reason: string }).reason, /it is 11 B, over this chat's limit of 10 B/);
});

Deno.test("a limit of 0 admits any size", async () => {
  const item = attachment({ name: "a.png", size: 64 * 1024 * MiB }, new Uint8Array([1, 2, 3]));
  const result = await admitAttachment(item, { maxBytes: 0, allowAnyType: false });
  assert.deepEqual(result, {
    kind: "file",
    name: "a.png",
    mimeType: "image/png",
    bytes: new Uint8Array([1, 2, 3]),
  });
});

Deno.test("text formats up to 100 KiB become inline text", async () => {
  const cases: [Partial<InboundAttachment>, string][] = [
    [{ name: "notes.md" }, "# Notes"],
    [{ name: "data.CSV" }, "a,b\n1,2"],
    [{ name: "config.yml", mimeType: "application/octet-stream" }, "a: 1"],
    [{ name: "untitled", mimeType: "text/plain; charset=utf-8" }, "plain"],
    [{ name: "payload", mimeType: "application/json" }, '{"a":1}'],
    [{ name: "feed", mimeType: "application/atom+xml" }, "<feed/>"],
    [{ name: "Dockerfile" }, "FROM scratch"],
    [{ name: "main.py" }, "print('中文 😀')"],
    [{ name: "server.log" }, "line\n".repeat(10)],
  ];
  for (const [fields, text] of cases) {
    assert.deepEqual(
      await admitAttachment(attachment(fields, text), policy),
      { kind: "inline_text", name: fields.name, text },
      fields.name,
    );
  }
});

Deno.test("inline text loses a byte order mark and stops at exactly 100 KiB", async () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode("hi")]);
  assert.deepEqual(await admitAttachment(attachment({ name: "a.txt" }, bom), policy), {
    kind: "inline_text",
    name: "a.txt",
    text: "hi",
  });
  const exact = "a".repeat(INLINE_TEXT_LIMIT);
  assert.equal(
    (await admitAttachment(attachment({ name: "a.txt" }, exact), policy)).kind,
    "inline_text",
  );
  const over = await admitAttachment(attachment({ name: "a.txt" }, exact + "a"), policy);
  assert.equal(over.kind, "file");
  assert.equal((over as { bytes: Uint8Array }).bytes.byteLength, INLINE_TEXT_LIMIT + 1);
});

Deno.test("a text file that is not valid UTF-8 is kept as a file", async () => {
  for (const bytes of [new Uint8Array([0xff, 0xfe, 0x41]), new Uint8Array([0x61, 0x00, 0x62])]) {
    const result = await admitAttachment(attachment({ name: "weird.txt" }, bytes), policy);
    assert.deepEqual(result, { kind: "file", name: "weird.txt", bytes });
  }
});

Deno.test("images, audio, video and stickers are kept as files with their type", async () => {
  const bytes = new Uint8Array([1, 2, 3]);
  const cases: [Partial<InboundAttachment>, string | undefined][] = [
    [{ kind: "image", mimeType: "image/jpeg" }, "image/jpeg"],
    [{ kind: "audio", name: "voice.ogg" }, "audio/ogg"],
    [{ kind: "video" }, undefined],
    [{ kind: "sticker", mimeType: "image/webp" }, "image/webp"],
    [{ kind: "file", name: "song.mp3" }, "audio/mpeg"],
    [{ kind: "file", name: "clip", mimeType: "video/webm" }, "video/webm"],
  ];
  for (const [fields, mimeType] of cases) {
    const result = await admitAttachment(attachment(fields, bytes), policy);
    assert.equal(result.kind, "file", JSON.stringify(fields));
    assert.equal((result as { mimeType?: string }).mimeType, mimeType);
  }
  const photo = await admitAttachment(attachment({ kind: "image" }, bytes), policy);
  assert.equal(photo.name, "photo");
});

Deno.test("other types are refused without downloading unless any type is allowed", async () => {
  for (
    const fields of [
      { name: "report.pdf", mimeType: "application/pdf" },
      { name: "setup.exe" },
      { name: "archive.zip", mimeType: "application/zip" },
      { name: "no-extension" },
    ]
  ) {
    const refused = attachment(fields, "bytes");
    const result = await admitAttachment(refused, policy);
    assert.equal(refused.fetches, 0);
    assert.equal(result.kind, "refused");
    const reason = (result as { reason: string }).reason;
    assert.ok(reason.startsWith(`"${fields.name}"`), reason);
    assert.match(reason, /only text files, images, audio and video.*allow_any_type: true/);
    const allowed = await admitAttachment(attachment(fields, "bytes"), {
      maxBytes: 1024,
      allowAnyType: true,
    });
    assert.equal(allowed.kind, "file");
  }
});

Deno.test("a failed download is refused with the platform's message", async () => {
  const item = attachment({ name: "a.txt" }, new Error("The file expired on the platform."));
  assert.deepEqual(await admitAttachment(item, policy), {
    kind: "refused",
    name: "a.txt",
    reason:
      '"a.txt" could not be downloaded: The file expired on the platform. Try sending it again.',
  });
});

Deno.test("a name's control characters are removed and a long name is shortened", async () => {
  const item = attachment({ name: "evil\nname\u0007.txt" }, "x");
  assert.equal((await admitAttachment(item, policy)).name, "evil name .txt");
  const long = attachment({ name: `${"n".repeat(300)}.txt` }, "x");
  const name = (await admitAttachment(long, policy)).name;
  assert.equal(name.length, 200);
  assert.ok(name.endsWith("…"));
});

Deno.test("a location becomes inline text", async () => {
  const item = attachment({ kind: "location" }, "35.68,139.76 Tokyo");
  assert.deepEqual(await admitAttachment(item, policy), {
    kind: "inline_text",
    name: "location",
    text: "35.68,139.76 Tokyo",
  });
});

// ------------------------------------------------------------------- prompt

Deno.test("nothing attached describes as nothing", () => {
  assert.equal(describeAttachmentsForPrompt([]), "");
});

Deno.test("the prompt shows inline text fenced, files by size and refusals by reason", () => {
  const admitted: AdmittedAttachment[] = [
    { kind: "inline_text", name: "notes.md", text: "# Hi\n```js\nx\n```\n" },
    { kind: "file", name: "photo.jpg", mimeType: "image/jpeg", bytes: new Uint8Array(1536) },
    { kind: "file", name: "blob", bytes: new Uint8Array(10) },
    { kind: "refused", name: "setup.exe", reason: "Not an accepted type." },
  ];
  assert.equal(
    describeAttachmentsForPrompt(admitted, [undefined, "/data/in/photo.jpg"]),
    [
      "The user attached 4 files:",
      "",
      'Text file "notes.md":',
      "````md",
      "# Hi",
      "```js",
      "x",
      "```",
      "````",
      "",
      'File "photo.jpg" (image/jpeg, 1.5 KiB), saved at /data/in/photo.jpg.',
      "",
      'File "blob" (10 B).',
      "",
      'Not received: "setup.exe". Not an accepted type.',
    ].join("\n"),
  );
  assert.equal(
    describeAttachmentsForPrompt([{ kind: "inline_text", name: "LICENSE", text: "MIT" }]),
    'The user attached 1 file:\n\nText file "LICENSE":\n```\nMIT\n```',
  );
});

Deno.test("byte counts read as people write them", () => {
  const cases: [number, string][] = [
    [0, "0 B"],
    [1023, "1023 B"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [100 * 1024, "100 KiB"],
    [32 * MiB, "32 MiB"],
    [40.25 * MiB, "40.3 MiB"],
    [5 * 1024 * MiB, "5 GiB"],
  ];
  for (const [bytes, text] of cases) assert.equal(formatBytes(bytes), text, String(bytes));
});
