/**
 * Where a Chromium trace's long tasks spent their time: for every task over
 * a threshold on a renderer's main thread, the time covered by script,
 * style, layout, paint and garbage collection, and the functions the V8
 * sampling profiler (in the trace's ProfileChunk events) found running most
 * (function, file, line and column of the built bundle).
 *
 * @module
 */

/** One long task of a trace, broken down. */
export interface TracedTask {
  durationMs: number;
  /** ms covered by each kind of work inside the task (nested work counts once per kind). */
  kinds: Record<string, number>;
  /** Functions with the most sampled self time: `function (file:line:column) N ms`. */
  hotFunctions: string[];
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: string;
  args?: { name?: string; data?: Record<string, unknown> };
}

interface CallFrame {
  functionName: string;
  url?: string;
  scriptId?: number | string;
  lineNumber?: number;
  columnNumber?: number;
}

/** One profiler sample: when, and the function on top of the stack. */
interface Sample {
  pid: number;
  at: number;
  weight: number;
  frame: CallFrame;
}

const KINDS: Record<string, string> = {
  FunctionCall: "script",
  EvaluateScript: "script",
  "v8.compile": "script",
  "v8.compileModule": "script",
  "v8.evaluateModule": "script",
  "v8.callFunction": "script",
  TimerFire: "script",
  EventDispatch: "script",
  FireAnimationFrame: "script",
  RunMicrotasks: "script",
  ParseHTML: "parse HTML",
  ParseAuthorStyleSheet: "parse CSS",
  UpdateLayoutTree: "style",
  RecalculateStyles: "style",
  Layout: "layout",
  PrePaint: "paint",
  Paint: "paint",
  Layerize: "paint",
  Commit: "paint",
  MajorGC: "GC",
  MinorGC: "GC",
  "V8.GC_MARK_COMPACTOR": "GC",
  "V8.GC_SCAVENGER": "GC",
};
const NOT_FUNCTIONS = new Set(["(root)", "(program)", "(idle)"]);

/**
 * The tasks over `thresholdMs` on renderer main threads in a trace
 * (Chromium's JSON trace format), longest first, at most `limit`.
 */
export function summariseLongTasks(
  traceJson: Uint8Array,
  thresholdMs = 50,
  limit = 5,
): TracedTask[] {
  const parsed = JSON.parse(new TextDecoder().decode(traceJson));
  const events: TraceEvent[] = Array.isArray(parsed) ? parsed : parsed.traceEvents ?? [];
  const mainThreads = new Set(
    events
      .filter((event) =>
        event.ph === "M" && event.name === "thread_name" && event.args?.name === "CrRendererMain"
      )
      .map(threadKey),
  );
  const byThread = new Map<string, TraceEvent[]>();
  for (const event of events) {
    if (event.ph !== "X" || event.dur === undefined || !mainThreads.has(threadKey(event))) continue;
    const list = byThread.get(threadKey(event)) ?? [];
    list.push(event);
    byThread.set(threadKey(event), list);
  }
  const samples = profilerSamples(events);
  const tasks: TracedTask[] = [];
  for (const list of byThread.values()) {
    for (const task of list) {
      if (task.name !== "RunTask" || task.dur! < thresholdMs * 1000) continue;
      const end = task.ts + task.dur!;
      const inside = list.filter((event) =>
        event !== task && event.ts >= task.ts && event.ts + event.dur! <= end
      );
      tasks.push({
        durationMs: task.dur! / 1000,
        kinds: coveredByKind(inside),
        hotFunctions: hotFunctions(
          samples.filter((sample) =>
            sample.pid === task.pid && sample.at >= task.ts && sample.at < end
          ),
        ),
      });
    }
  }
  return tasks.sort((a, b) => b.durationMs - a.durationMs).slice(0, limit);
}

/** One line for a report: `120 ms: script 80 ms, layout 30 ms; most samples in ...`. */
export function describeTracedTask(task: TracedTask): string {
  const kinds = Object.entries(task.kinds)
    .filter(([, ms]) => ms >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${ms.toFixed(0)} ms`)
    .join(", ");
  return `${task.durationMs.toFixed(0)} ms: ${kinds || "no traced work inside"}` +
    (task.hotFunctions.length > 0 ? `; most sampled: ${task.hotFunctions.join(", ")}` : "");
}

function threadKey(event: TraceEvent): string {
  return `${event.pid}:${event.tid}`;
}

/** Per kind, the length of the union of its events' intervals (so nesting counts once). */
function coveredByKind(events: TraceEvent[]): Record<string, number> {
  const intervals = new Map<string, [number, number][]>();
  for (const event of events) {
    const kind = KINDS[event.name];
    if (!kind) continue;
    const list = intervals.get(kind) ?? [];
    list.push([event.ts, event.ts + event.dur!]);
    intervals.set(kind, list);
  }
  const covered: Record<string, number> = {};
  for (const [kind, list] of intervals) {
    list.sort((a, b) => a[0] - b[0]);
    let total = 0;
    let [start, end] = list[0];
    for (const [from, to] of list.slice(1)) {
      if (from > end) {
        total += end - start;
        [start, end] = [from, to];
      } else end = Math.max(end, to);
    }
    covered[kind] = (total + end - start) / 1000;
  }
  return covered;
}

/** The V8 sampling profiler's samples in a trace, each weighted by the time to the next one. */
function profilerSamples(events: TraceEvent[]): Sample[] {
  const profiles = new Map<
    string,
    { pid: number; at: number; frames: Map<number, CallFrame>; samples: [number, number][] }
  >();
  const urls = new Map<string, string>();
  for (const event of events) {
    if (event.ph !== "P" || (event.name !== "Profile" && event.name !== "ProfileChunk")) continue;
    const key = `${event.pid}:${event.id}`;
    const data = (event.args?.data ?? {}) as {
      startTime?: number;
      cpuProfile?: { nodes?: { id: number; callFrame: CallFrame }[]; samples?: number[] };
      timeDeltas?: number[];
    };
    let profile = profiles.get(key);
    if (!profile) {
      profile = { pid: event.pid, at: 0, frames: new Map(), samples: [] };
      profiles.set(key, profile);
    }
    if (event.name === "Profile") {
      profile.at = data.startTime ?? event.ts;
      continue;
    }
    for (const node of data.cpuProfile?.nodes ?? []) {
      profile.frames.set(node.id, node.callFrame);
      if (node.callFrame.url) urls.set(String(node.callFrame.scriptId), node.callFrame.url);
    }
    const ids = data.cpuProfile?.samples ?? [];
    const deltas = data.timeDeltas ?? [];
    for (let i = 0; i < ids.length; i++) {
      profile.at += deltas[i] ?? 0;
      profile.samples.push([profile.at, ids[i]]);
    }
  }
  const samples: Sample[] = [];
  for (const profile of profiles.values()) {
    profile.samples.forEach(([at, id], i) => {
      const frame = profile.frames.get(id);
      if (!frame || NOT_FUNCTIONS.has(frame.functionName)) return;
      const next = profile.samples[i + 1]?.[0] ?? at;
      samples.push({
        pid: profile.pid,
        at,
        weight: next - at,
        frame: { ...frame, url: frame.url || urls.get(String(frame.scriptId)) },
      });
    });
  }
  return samples;
}

/** The three functions with the most sampled time, labelled with where they are. */
function hotFunctions(samples: Sample[]): string[] {
  const byFunction = new Map<string, number>();
  for (const sample of samples) {
    const { functionName, url, lineNumber, columnNumber } = sample.frame;
    const file = url ? url.replace(/^.*\//, "") : "";
    const label = `${functionName || "(anonymous)"}${
      file ? ` (${file}:${(lineNumber ?? 0) + 1}:${(columnNumber ?? 0) + 1})` : ""
    }`;
    byFunction.set(label, (byFunction.get(label) ?? 0) + sample.weight);
  }
  return [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .filter(([, us]) => us >= 1000)
    .map(([label, us]) => `${label} ${(us / 1000).toFixed(0)} ms`);
}
