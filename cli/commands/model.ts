/**
 * `herald model [name | provider:name] [--list] [--json]`: shows the
 * configured provider and model, and switches the model, picked from the
 * list the endpoint's `GET /models` gives on a terminal, or named directly.
 * The work is core's (core/usecases/setup.ts, core/usecases/model.ts).
 *
 * @module
 */

import type { Command } from "commander";
import { parseModelSpec } from "../../core/providers.ts";
import { setModel } from "../../core/usecases/model.ts";
import { listProfileModels } from "../../core/usecases/setup.ts";
import { createModelProbe } from "../../adapters/models/probe.ts";
import type { CliContext } from "../context.ts";
import { printJson } from "../io.ts";
import { type Choice, openPrompter, type Prompter } from "../prompt.ts";

/** Lists longer than this are searched by typing part of a name rather than shown whole. */
const LIST_LIMIT = 20;

/**
 * Asks for a model: a numbered list of `models` (searched by typing part
 * of a name when the list is long), with "type another name" at the end;
 * without models, the name is typed. An empty answer keeps `current`.
 *
 * @throws PromptCancelledError on Ctrl-C.
 */
export async function chooseModel(
  prompt: Prompter,
  models: readonly string[],
  current?: string,
): Promise<string> {
  const typed = (question = "Model name") =>
    prompt.askText(question, current ? { default: current } : {});
  if (models.length === 0) return await typed();
  let shown = [...models];
  while (shown.length > LIST_LIMIT) {
    const wanted = await prompt.askText(
      `Model (${shown.length} available; type a name or part of one to search)`,
      current ? { default: current } : {},
    );
    if (models.includes(wanted)) return wanted;
    const matches = models.filter((model) => model.toLowerCase().includes(wanted.toLowerCase()));
    // A name the list does not hold is taken as typed (servers may load models on demand).
    if (matches.length === 0) return wanted;
    shown = matches;
  }
  const other = Symbol("other");
  const choices: Choice<string | typeof other>[] = [
    ...shown.map((model) => ({
      label: model === current ? `${model} (current)` : model,
      value: model,
      name: model,
    })),
    { label: "another model (type its name)", value: other },
  ];
  const index = current === undefined ? -1 : shown.indexOf(current);
  const picked = await prompt.askChoice("Model", choices, index >= 0 ? { default: index } : {});
  return picked === other ? await typed() : picked;
}

/** Adds the `model` command to `program`. */
export function registerModel(program: Command, ctx: () => CliContext): void {
  program.command("model")
    .description("show the model and switch it (from the list the server gives, or by name)")
    .argument("[model]", "model name, or provider:model (for example openrouter:openai/gpt-4o)")
    .option("--list", "print the models the endpoint lists and change nothing")
    .option("--json", "print JSON")
    .action(async (spec: string | undefined, options: { list?: boolean; json?: boolean }) => {
      const c = ctx();
      const profile = await c.profileContext();
      if (spec !== undefined) {
        const { provider, model } = parseModelSpec(spec.trim());
        const result = await setModel(profile, { ...(provider ? { provider } : {}), model });
        if (options.json) return printJson(c.io, result);
        c.io.out(`Model set to ${result.provider ?? "(no provider)"} / ${result.model}\n`);
        return;
      }
      const { state, listing } = await listProfileModels(profile, createModelProbe());
      const models = listing?.ok ? listing.models : null;
      if (options.json) {
        return printJson(c.io, {
          profile: state.profile,
          provider: state.provider,
          model: state.model,
          base_url: state.base_url,
          models,
          problem: listing && !listing.ok ? listing.message : null,
        });
      }
      c.io.out(
        `Provider: ${state.provider ?? "(none)"}\nModel:    ${state.model ?? "(none)"}\n` +
          (state.base_url ? `Endpoint: ${state.base_url}\n` : ""),
      );
      const problem = listing && !listing.ok ? listing.message : null;
      if (state.provider === null) {
        c.io.err("No provider is configured; run `herald setup`\n");
        return;
      }
      if (problem) c.io.err(`herald: warning: ${problem}\n`);
      if (options.list || !c.interactive) {
        for (const model of models ?? []) {
          c.io.out(`${model === state.model ? "*" : " "} ${model}\n`);
        }
        return;
      }
      const prompt = openPrompter(c);
      let chosen: string;
      try {
        chosen = await chooseModel(prompt, models ?? [], state.model ?? undefined);
      } finally {
        await prompt.close();
      }
      if (chosen === state.model) {
        c.io.out(`Kept ${state.model}\n`);
        return;
      }
      const result = await setModel(profile, { model: chosen });
      c.io.out(`Model set to ${result.provider ?? "(no provider)"} / ${result.model}\n`);
    });
}
