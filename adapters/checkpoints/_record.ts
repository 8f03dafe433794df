/**
 * The JSON form of one checkpoint on disk, checked when read: a record this
 * build cannot read is skipped, never a crash.
 *
 * @module
 */

import { z } from "zod";
import type { CheckpointRecord } from "../../core/agent/checkpoints.ts";

const FileStateSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("absent"), missingDirs: z.array(z.string()).optional() }),
  z.object({
    kind: z.literal("file"),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    size: z.number().int().min(0),
    mode: z.number().int().min(0).optional(),
  }),
  z.object({ kind: z.literal("skipped"), reason: z.string() }),
]);

/** One checkpoint file (`records/<id>.json`). */
export const CheckpointRecordSchema: z.ZodType<CheckpointRecord> = z.object({
  id: z.string().regex(/^chk_[0-9a-z]+$/),
  sessionId: z.string(),
  messageId: z.number().int(),
  label: z.string(),
  createdAt: z.number(),
  files: z.array(z.object({
    path: z.string(),
    before: FileStateSchema,
    after: FileStateSchema.optional(),
  })),
});
