/**
 * `herald completion bash|zsh|fish`: a shell completion script generated
 * from the command tree (commands, subcommands, options), so it never falls
 * behind the program. Profile names for `-p` are read when Tab is pressed,
 * through the hidden `herald completion --list-profiles`.
 *
 * @module
 */

import { type Command, Option } from "commander";
import { HeraldError } from "../../core/errors.ts";
import { listProfileNames } from "../../core/usecases/profiles.ts";
import { openProfileHome } from "../../adapters/home/mod.ts";
import type { CliContext } from "../context.ts";

/** The shells a script can be generated for. */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;

/** One of {@link COMPLETION_SHELLS}. */
export type CompletionShell = typeof COMPLETION_SHELLS[number];

/** One command of the tree, as completion sees it. */
export interface CompletionNode {
  /** The words that lead to it, space-separated (`""` for the program, `"sessions list"`). */
  path: string;
  /** Names of its visible subcommands. */
  subcommands: string[];
  /** Every option spelling it accepts, global ones included. */
  options: string[];
  /** The spellings among {@link options} that take a value. */
  valueOptions: string[];
  /** A one-line description of each subcommand and option spelling, where there is one. */
  descriptions: Record<string, string>;
}

/** Options of the program valid on every command (taken out of argv by cli/argv.ts). */
const GLOBAL_VALUE_OPTIONS = ["-p", "--profile", "-C", "--cd"];
/** Descriptions of the flags the tree does not declare as options (see cli/argv.ts). */
const EXTRA_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "-h": "show help",
  "--help": "show help",
  "-c": "continue the last session started in this folder",
  "--continue": "continue the last session started in this folder",
  "-V": "print the version and commit",
};
const SAFE_WORD = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

function firstLine(text: string): string {
  return text.split("\n")[0].trim();
}

function spellings(option: Option): string[] {
  return [option.short, option.long].filter((flag): flag is string =>
    flag !== undefined && SAFE_WORD.test(flag.replace(/^-+/, ""))
  );
}

/**
 * The command tree of `program`, flattened, program first.
 *
 * @example
 * ```ts
 * completionTree(program).find((node) => node.path === "sessions")?.subcommands // ["list", "show", ...]
 * ```
 */
export function completionTree(program: Command): CompletionNode[] {
  const help = program.createHelp();
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string[]) => {
    const visible = help.visibleCommands(command).filter((sub) => SAFE_WORD.test(sub.name()));
    // What --help lists, so the global -p and -C (listed, not parsed, see cli/app.ts) are in.
    const own = help.visibleOptions(command).filter((option) => !option.hidden);
    const options = new Set([...own.flatMap(spellings), "-h", "--help", ...GLOBAL_VALUE_OPTIONS]);
    if (path.length === 0) ["-c", "--continue", "-V"].forEach((flag) => options.add(flag));
    const valueOptions = new Set([
      ...own.filter((option) => option.required || option.optional).flatMap(spellings),
      ...GLOBAL_VALUE_OPTIONS,
    ]);
    const descriptions: Record<string, string> = { ...EXTRA_DESCRIPTIONS };
    for (const sub of visible) descriptions[sub.name()] = firstLine(sub.description());
    for (const option of own) {
      for (const flag of spellings(option)) descriptions[flag] = firstLine(option.description);
    }
    nodes.push({
      path: path.join(" "),
      subcommands: visible.map((sub) => sub.name()),
      options: [...options],
      valueOptions: [...valueOptions],
      descriptions,
    });
    for (const sub of visible) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return nodes;
}

/** A shell `case` function printing one space-separated list per command path. */
function caseFunction(
  name: string,
  nodes: readonly CompletionNode[],
  pick: (node: CompletionNode) => string[],
): string {
  const arms = nodes
    .filter((node) => pick(node).length > 0)
    .map((node) => `    "${node.path}") echo "${pick(node).join(" ")}" ;;`);
  return [`${name}() {`, '  case "$1" in', ...arms, "  esac", "}"].join("\n");
}

/** The helper functions the bash and zsh scripts share. */
function sharedFunctions(nodes: readonly CompletionNode[]): string {
  return [
    caseFunction("_herald_subcommands", nodes, (node) => node.subcommands),
    caseFunction("_herald_options", nodes, (node) => node.options),
    caseFunction("_herald_value_options", nodes, (node) => node.valueOptions),
  ].join("\n\n");
}

/**
 * Walks the words before the cursor (`$1` is the index of the first one,
 * `$2` the cursor's) and sets `hpath` to the command path and `hskip` to 1
 * when the word under the cursor is an option's value. Shared by bash and
 * zsh, which differ only in how the words are reached (`_herald_word i`).
 */
const WALK = `_herald_walk() {
  local i word next
  hpath=""
  hskip=0
  for (( i = $1; i < $2; i++ )); do
    word="$(_herald_word "$i")"
    if (( hskip )); then hskip=0; continue; fi
    case "$word" in
      --) break ;;
      -*=*) ;;
      -*) case " $(_herald_value_options "$hpath") " in *" $word "*) hskip=1 ;; esac ;;
      *)
        for next in $(_herald_subcommands "$hpath"); do
          if [[ "$next" == "$word" ]]; then hpath="\${hpath:+$hpath }$word"; break; fi
        done
        ;;
    esac
  done
}`;

function bashScript(nodes: readonly CompletionNode[]): string {
  return `# bash completion for herald, generated by \`herald completion bash\`.
# Load it now:     source <(herald completion bash)
# Load it always:  herald completion bash > ~/.local/share/bash-completion/completions/herald

${sharedFunctions(nodes)}

_herald_word() { printf '%s' "\${COMP_WORDS[$1]}"; }

${WALK}

_herald() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" hpath hskip
  (( COMP_CWORD > 0 )) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  _herald_walk 1 "$COMP_CWORD"
  case "$prev" in
    -p|--profile)
      COMPREPLY=($(compgen -W "$(command herald completion --list-profiles 2>/dev/null)" -- "$cur"))
      return ;;
    -C|--cd)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$cur"))
      return ;;
  esac
  if (( hskip )); then COMPREPLY=(); return; fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_herald_options "$hpath")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_herald_subcommands "$hpath")" -- "$cur"))
  fi
}

complete -o default -F _herald herald
`;
}

function zshScript(nodes: readonly CompletionNode[]): string {
  return `#compdef herald
# zsh completion for herald, generated by \`herald completion zsh\`.
# Load it now (after compinit):  source <(herald completion zsh)
# Load it always:                herald completion zsh > "\${fpath[1]}/_herald"

${sharedFunctions(nodes)}

_herald_word() { printf '%s' "\${words[$1]}"; }

${WALK}

_herald() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}" hpath hskip
  local -a candidates
  _herald_walk 2 "$CURRENT"
  case "$prev" in
    -p|--profile)
      candidates=(\${(f)"$(command herald completion --list-profiles 2>/dev/null)"})
      compadd -a candidates
      return ;;
    -C|--cd) _files -/; return ;;
  esac
  if (( hskip )); then _files; return; fi
  if [[ "$cur" == -* ]]; then
    candidates=(\${=$(_herald_options "$hpath")})
  else
    candidates=(\${=$(_herald_subcommands "$hpath")})
  fi
  if (( \${#candidates} )); then compadd -a candidates; else _files; fi
}

if [[ "\${funcstack[1]}" == "_herald" ]]; then
  _herald "$@"
else
  compdef _herald herald
fi
`;
}

function fishList(words: readonly string[]): string {
  return words.join(" ");
}

/** ` -d '<text>'` for a fish `complete` line, or "" when there is no text. */
function fishDescription(text: string | undefined): string {
  return text ? ` -d '${text.replace(/[\\']/g, "\\$&")}'` : "";
}

function fishScript(nodes: readonly CompletionNode[]): string {
  const lines = [
    "# fish completion for herald, generated by `herald completion fish`.",
    "# Load it now:     herald completion fish | source",
    "# Load it always:  herald completion fish > ~/.config/fish/completions/herald.fish",
    "",
    "function __herald_list --argument-names kind hpath",
    "    switch $kind$hpath",
    ...nodes.flatMap((node) => [
      `        case 'sub${node.path}'`,
      `            echo ${fishList(node.subcommands)}`,
      `        case 'value${node.path}'`,
      `            echo ${fishList(node.valueOptions)}`,
    ]),
    "    end",
    "end",
    "",
    "# The command path before the cursor, space-separated.",
    "function __herald_path",
    "    set -l tokens (commandline -opc)",
    "    set -e tokens[1]",
    "    set -l hpath ''",
    "    set -l skip 0",
    "    for word in $tokens",
    "        if test $skip = 1",
    "            set skip 0",
    "            continue",
    "        end",
    "        switch $word",
    "            case --",
    "                break",
    "            case '-*=*'",
    "            case '-*'",
    "                if contains -- $word (string split -- ' ' (__herald_list value $hpath))",
    "                    set skip 1",
    "                end",
    "            case '*'",
    "                if contains -- $word (string split -- ' ' (__herald_list sub $hpath))",
    '                    set hpath (string trim "$hpath $word")',
    "                end",
    "        end",
    "    end",
    "    echo $hpath",
    "end",
    "",
    "function __herald_at --argument-names wanted",
    "    set -l hpath (__herald_path)",
    '    test "$hpath" = "$wanted"',
    "end",
    "",
    "complete -c herald -f",
    "complete -c herald -s p -l profile -x -d 'run against a named profile' -a '(herald completion --list-profiles 2>/dev/null)'",
    "complete -c herald -s C -l cd -x -d 'run in this folder' -a '(__fish_complete_directories)'",
  ];
  for (const node of nodes) {
    const at = `-n '__herald_at "${node.path}"'`;
    for (const sub of node.subcommands) {
      lines.push(`complete -c herald ${at} -a ${sub}${fishDescription(node.descriptions[sub])}`);
    }
    if (node.subcommands.length === 0) lines.push(`complete -c herald ${at} -F`);
    const value = new Set(node.valueOptions);
    for (const flag of node.options) {
      if (GLOBAL_VALUE_OPTIONS.includes(flag)) continue;
      const spec = flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`;
      lines.push(
        `complete -c herald ${at} ${spec}${value.has(flag) ? " -r" : ""}` +
          fishDescription(node.descriptions[flag]),
      );
    }
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The completion script for `shell`, generated from `program`.
 *
 * @example
 * ```ts
 * const script = completionScript("bash", program);
 * // ... complete -o default -F _herald herald
 * ```
 */
export function completionScript(shell: CompletionShell, program: Command): string {
  const nodes = completionTree(program);
  switch (shell) {
    case "bash":
      return bashScript(nodes);
    case "zsh":
      return zshScript(nodes);
    case "fish":
      return fishScript(nodes);
  }
}

/** Adds `completion` to `program`. */
export function registerCompletion(program: Command, ctx: () => CliContext): void {
  program.command("completion [shell]")
    .description(`print a shell completion script (${COMPLETION_SHELLS.join(", ")})`)
    .addOption(new Option("--list-profiles", "print the profile names, one a line").hideHelp())
    .addHelpText(
      "after",
      "\nLoad it in bash with `source <(herald completion bash)`, in zsh (after compinit) with\n" +
        "`source <(herald completion zsh)`, in fish with `herald completion fish | source`.\n",
    )
    .action(async (shell: string | undefined, options: { listProfiles?: boolean }) => {
      const c = ctx();
      if (options.listProfiles) {
        const names = await listProfileNames(openProfileHome(c.root, c.env))
          .catch(() => ["default"]);
        for (const name of names) {
          c.io.out(`${name}\n`);
        }
        return;
      }
      if (!COMPLETION_SHELLS.includes(shell as CompletionShell)) {
        throw new HeraldError(
          "usage",
          "usage",
          shell === undefined
            ? `Name a shell: herald completion ${COMPLETION_SHELLS.join("|")}`
            : `Unknown shell "${shell}"; choose one of ${COMPLETION_SHELLS.join(", ")}`,
        );
      }
      c.io.out(completionScript(shell as CompletionShell, program));
    });
}
