#!/bin/sh
# shellcheck disable=SC2317 # the stage functions are called by name ("$fn")
# Herald's staged installer for Linux and macOS (POSIX sh). installers/README.md tells the whole story.
#
#   sh install.sh                         # every stage in order (a full install)
#   sh install.sh --manifest              # the stage list as one JSON object
#   sh install.sh --stage repository      # one stage; exactly one JSON frame on stdout
#
# Two modes: from a git checkout (HERALD_REPO_URL, pinned by --commit over --tag over --branch), or
# from release binaries (--release-url <base>: <base>/herald-<os>-<arch> as build/targets.ts names
# it, verified against <base>/SHA256SUMS and pinned by <base>/install-stamp.json). Diagnostics go to stderr; stdout
# carries only JSON frames. Per-install state lives in $HERALD_INSTALL_DIR/.install-state/.

set -u

PROTOCOL_VERSION=1
DENO_VERSION=2.9.6

# BEGIN GENERATED STAGES (from installers/stages.tsv: deno run -A installers/stages.ts --write)
STAGES='prerequisites|System prerequisites|runtime|false|-|always
repository|Download Herald|runtime|false|prerequisites|always
venv|Python virtual environment (not needed)|runtime|false|-|always
python-deps|Python dependencies (not needed)|runtime|false|-|always
node-deps|Install npm dependencies|runtime|false|repository|always
path|Install the herald command|runtime|false|node-deps|always
config|Prepare the Herald home and skills|configuration|false|path|always
setup|Configure the model provider|configuration|true|config|always
gateway|Configure the gateway service|configuration|true|config|always
desktop|Desktop app|runtime|false|repository|desktop
complete|Finish install|runtime|false|config|always'
# END GENERATED STAGES

usage() {
  cat <<'EOF'
Usage: install.sh [options]                 run every stage in order
       install.sh --manifest [--include-desktop]
       install.sh --stage <name> [--json] [options]

Options:
  --manifest            print the stage list as one JSON object and exit
  --stage <name>        run one stage; prints exactly one JSON result frame on stdout
  --json                (full install) print a JSON frame per stage on stdout
  --non-interactive     skip the stages that ask questions (setup, gateway)
  --commit <sha>        pin the checkout to this commit (wins over --tag and --branch)
  --tag <tag>           pin the checkout to this tag (wins over --branch)
  --branch <name>       follow this branch (default: the repository's default branch)
  --replace-origin      let the checkout's origin change to HERALD_REPO_URL (refused otherwise)
  --release-url <base>  install release binaries from <base> (https; http only on 127.0.0.1/localhost)
  --include-desktop     add the desktop stage
  --no-skills           seed no bundled skills (writes .no-bundled-skills in the Herald home)
  --dir <folder>        where the code goes (HERALD_INSTALL_DIR; default ~/.herald/herald-agent)
  --home <folder>       the Herald home (HERALD_HOME; default ~/.herald)
  -h, --help            this text

Environment: HERALD_HOME, HERALD_INSTALL_DIR, HERALD_BIN_DIR (default ~/.local/bin),
HERALD_REPO_URL (default: the checkout this script is part of), HERALD_RELEASE_URL, HERALD_DENO.
EOF
}

say() { printf 'herald install: %s\n' "$*" >&2; }

# --- JSON -------------------------------------------------------------------------------------

# Prints $1 as a JSON string: quotes, backslashes, tabs and line breaks escaped, other control
# characters dropped.
json_string() {
  printf '"'
  printf '%s' "$1" | tr -d '\000-\010\013-\037\177' |
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' |
    awk '{ if (NR > 1) printf "%s", "\\n"; printf "%s", $0 }'
  printf '"'
}

# --- arguments --------------------------------------------------------------------------------

MANIFEST=0
STAGE=""
STAGE_GIVEN=0
JSON=0
NON_INTERACTIVE=0
PIN_COMMIT=""
PIN_TAG=""
PIN_BRANCH=""
INCLUDE_DESKTOP=0
NO_SKILLS=0
HELP=0
RELEASE_URL="${HERALD_RELEASE_URL:-}"
ARG_ERROR=""
OPT_DIR=""
OPT_HOME=""
REPLACE_ORIGIN=0

need_value() {
  if [ "$2" -lt 2 ]; then
    ARG_ERROR="$1 needs a value"
    return 1
  fi
  return 0
}

while [ $# -gt 0 ]; do
  case "$1" in
    --manifest) MANIFEST=1 ;;
    --stage)
      STAGE_GIVEN=1
      if [ $# -ge 2 ]; then
        STAGE=$2
        shift
      fi
      ;;
    --stage=*) STAGE_GIVEN=1 STAGE=${1#--stage=} ;;
    --json) JSON=1 ;;
    --non-interactive) NON_INTERACTIVE=1 ;;
    --include-desktop) INCLUDE_DESKTOP=1 ;;
    --no-skills) NO_SKILLS=1 ;;
    --replace-origin) REPLACE_ORIGIN=1 ;;
    -h | --help) HELP=1 ;;
    --commit | --tag | --branch | --release-url | --dir | --home)
      need_value "$1" $# || break
      case "$1" in
        --commit) PIN_COMMIT=$2 ;;
        --tag) PIN_TAG=$2 ;;
        --branch) PIN_BRANCH=$2 ;;
        --release-url) RELEASE_URL=$2 ;;
        --dir) OPT_DIR=$2 ;;
        --home) OPT_HOME=$2 ;;
      esac
      shift
      ;;
    *)
      [ -z "$ARG_ERROR" ] && ARG_ERROR="unknown option \"$1\""
      ;;
  esac
  shift
done

# A git ref name given on the command line: not an option, and one git accepts as a branch name.
ref_ok() {
  case "$1" in -* | "") return 1 ;; esac
  if command -v git >/dev/null 2>&1; then
    (cd / && git check-ref-format --branch "$1") >/dev/null 2>&1 || return 1
  fi
  return 0
}

if [ -z "$ARG_ERROR" ] && [ -n "$PIN_COMMIT" ]; then
  case "$PIN_COMMIT" in
    *[!0-9a-f]*) ARG_ERROR="--commit \"$PIN_COMMIT\" is not a commit hash (7 to 40 of 0-9a-f)" ;;
    *) [ "${#PIN_COMMIT}" -ge 7 ] && [ "${#PIN_COMMIT}" -le 40 ] ||
      ARG_ERROR="--commit \"$PIN_COMMIT\" is not a commit hash (7 to 40 of 0-9a-f)" ;;
  esac
fi
if [ -z "$ARG_ERROR" ] && [ -n "$PIN_TAG" ] && ! ref_ok "$PIN_TAG"; then
  ARG_ERROR="--tag \"$PIN_TAG\" is not a valid tag name"
fi
if [ -z "$ARG_ERROR" ] && [ -n "$PIN_BRANCH" ] && ! ref_ok "$PIN_BRANCH"; then
  ARG_ERROR="--branch \"$PIN_BRANCH\" is not a valid branch name"
fi

# --- layout -----------------------------------------------------------------------------------

# $1 as an absolute path (relative to the folder the installer started in).
absolute() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s/%s\n' "$(pwd)" "$1" ;;
  esac
}

USER_HOME=${HOME:-}
if [ -z "$USER_HOME" ] && { [ -z "${OPT_HOME:-${HERALD_HOME:-}}" ] || [ -z "${HERALD_BIN_DIR:-}" ]; }; then
  [ -n "$ARG_ERROR" ] || ARG_ERROR="HOME is empty; set HOME, or set HERALD_HOME and HERALD_BIN_DIR"
fi
HERALD_HOME=$(absolute "${OPT_HOME:-${HERALD_HOME:-$USER_HOME/.herald}}")
INSTALL_DIR=$(absolute "${OPT_DIR:-${HERALD_INSTALL_DIR:-$HERALD_HOME/herald-agent}}")
BIN_DIR=$(absolute "${HERALD_BIN_DIR:-$USER_HOME/.local/bin}")
STATE_DIR=$INSTALL_DIR/.install-state
MARKER_NAME=.herald-bootstrap-complete
export HERALD_HOME

# The checkout this script is part of, if it is in one (the default repository to install from).
SCRIPT_CHECKOUT=""
case "$0" in
  */install.sh)
    script_dir=$(cd "$(dirname "$0")" 2>/dev/null && pwd) || script_dir=""
    if [ -n "$script_dir" ] && [ -f "$script_dir/../cli/main.ts" ] && [ -e "$script_dir/../.git" ]; then
      SCRIPT_CHECKOUT=$(cd "$script_dir/.." && pwd)
    fi
    ;;
esac

state_get() { [ -f "$STATE_DIR/$1" ] && cat "$STATE_DIR/$1"; }
state_set() {
  mkdir -p "$STATE_DIR"
  printf '%s\n' "$2" >"$STATE_DIR/$1.tmp" && mv -f "$STATE_DIR/$1.tmp" "$STATE_DIR/$1"
}

# --- the stage table --------------------------------------------------------------------------

# Prints the table's lines for the stages of this run (desktop only with --include-desktop).
stage_lines() {
  printf '%s\n' "$STAGES" | while IFS='|' read -r name title category input needs when; do
    if [ "$when" = desktop ] && [ "$INCLUDE_DESKTOP" -ne 1 ]; then continue; fi
    printf '%s|%s|%s|%s|%s|%s\n' "$name" "$title" "$category" "$input" "$needs" "$when"
  done
}

# The table line of stage $1 (any stage, included or not), or nothing.
stage_line() {
  printf '%s\n' "$STAGES" | while IFS='|' read -r name rest; do
    if [ "$name" = "$1" ]; then printf '%s|%s\n' "$name" "$rest"; fi
  done
}

stage_names() { printf '%s\n' "$STAGES" | cut -d'|' -f1 | tr '\n' ' ' | sed 's/ $//'; }

print_manifest() {
  printf '{"protocolVersion":%s,"stages":[' "$PROTOCOL_VERSION"
  first=1
  stage_lines | while IFS='|' read -r name title category input needs when; do
    if [ "$first" -eq 1 ]; then first=0; else printf ','; fi
    printf '{"name":%s,"title":%s,"category":%s,"needsInput":%s}' \
      "$(json_string "$name")" "$(json_string "$title")" "$(json_string "$category")" "$input"
  done
  printf ']}\n'
}

# --- helpers the stages use -------------------------------------------------------------------

RUN_TMP=""

# Ends the stage with ok:false and this reason.
fail() {
  printf '%s' "$*" >"$RUN_TMP/reason"
  say "$*"
  exit 1
}

# Ends the stage with ok:true, skipped:true and this reason.
skip() {
  printf '%s' "$*" >"$RUN_TMP/skipped"
  say "skipped: $*"
  exit 0
}

# Adds a string field to the stage's frame.
detail() { printf 's\t%s\t%s\n' "$1" "$2" >>"$RUN_TMP/details"; }

# Adds a boolean field (true or false) to the stage's frame.
detail_bool() { printf 'b\t%s\t%s\n' "$1" "$2" >>"$RUN_TMP/details"; }

have() { command -v "$1" >/dev/null 2>&1; }

install_mode() {
  mode=$(state_get mode) || mode=""
  if [ -z "$mode" ]; then
    if [ -n "$RELEASE_URL" ]; then mode=binary; else mode=git; fi
  fi
  printf '%s\n' "$mode"
}

deno_is_pinned() { "$1" --version 2>/dev/null | head -n 1 | grep -q "^deno $DENO_VERSION "; }

sha256_of() {
  if have sha256sum; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# Whether URL $1 is plain http to this machine (127.x.x.x, localhost or [::1]); tests serve there.
loopback_http() {
  rest=${1#http://}
  [ "$rest" != "$1" ] || return 1
  host=${rest%%/*}
  case "$host" in
    "[::1]" | "[::1]:"*) return 0 ;;
  esac
  host=${host%:*}
  case "$host" in
    localhost) return 0 ;;
    *[!0-9.]*) return 1 ;;
    127.*) return 0 ;;
  esac
  return 1
}

# Refuses a release URL that is neither https nor loopback http.
check_release_url() {
  case "$1" in
    https://*) ;;
    *) loopback_http "$1" || fail "the release URL $1 is not https; only https (or http to 127.0.0.1) is accepted" ;;
  esac
}

download() {
  case "$1" in
    https://*)
      if have curl; then
        curl -fsSL --retry 2 --proto '=https' --proto-redir '=https' -o "$2" "$1"
      else
        wget -q --https-only -O "$2" "$1"
      fi
      ;;
    *)
      loopback_http "$1" || return 1
      if have curl; then
        curl -fsSL --retry 2 --proto '=http' --proto-redir '=http' -o "$2" "$1"
      else
        wget -q -O "$2" "$1"
      fi
      ;;
  esac
}

# The value of the string field $1 in the JSON file $2 (flat objects such as install-stamp.json).
json_field() {
  tr -d '\n' <"$2" | sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p"
}

# The expected hash of file name $1 in the SHA256SUMS file $2 (`<hex>  <name>` or `<hex> *<name>`).
listed_sum() {
  awk -v f="$1" '$2 == f || $2 == "*" f { print $1; exit }' "$2"
}

release_asset() {
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) fail "no Herald release binary for $(uname -s); install from a git checkout instead" ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) fail "no Herald release binary for the $(uname -m) architecture" ;;
  esac
  printf 'herald-%s-%s\n' "$os" "$arch"
}

# The herald command the path stage installed.
herald_cmd() {
  cmd=$(state_get herald) || cmd=""
  { [ -n "$cmd" ] && [ -x "$cmd" ]; } || fail "no herald command is installed; run the \"path\" stage first"
  printf '%s\n' "$cmd"
}

can_ask() { [ "$NON_INTERACTIVE" -ne 1 ] && [ -r /dev/tty ] && { : </dev/tty; } 2>/dev/null; }

# --- the stages -------------------------------------------------------------------------------

stage_prerequisites() {
  mkdir -p "$STATE_DIR" || fail "cannot create $INSTALL_DIR; set HERALD_INSTALL_DIR to a folder you can write"
  if [ -n "$RELEASE_URL" ]; then
    check_release_url "$RELEASE_URL"
    have curl || have wget || fail "neither curl nor wget is installed; install one and run this stage again"
    have sha256sum || have shasum || fail "neither sha256sum nor shasum is installed; install coreutils"
    state_set mode binary
    state_set release-url "$RELEASE_URL"
    detail mode binary
    return 0
  fi
  have git || fail "git is not installed; install git (or use --release-url for release binaries)"
  deno=""
  if [ -n "${HERALD_DENO:-}" ]; then
    deno_is_pinned "$HERALD_DENO" || fail "HERALD_DENO=$HERALD_DENO is not Deno $DENO_VERSION"
    deno=$HERALD_DENO
  elif have deno && deno_is_pinned "$(command -v deno)"; then
    deno=$(command -v deno)
  elif have npx; then
    say "fetching Deno $DENO_VERSION with npx"
    deno=$(npx -y "deno@$DENO_VERSION" eval 'console.log(Deno.execPath())' </dev/null | tail -n 1) || deno=""
  fi
  { [ -n "$deno" ] && [ -x "$deno" ]; } ||
    fail "Deno $DENO_VERSION is needed: install Node.js (npx fetches it) or put deno $DENO_VERSION on the PATH"
  case "$deno" in /*) ;; *) deno=$(cd "$(dirname "$deno")" && pwd)/$(basename "$deno") ;; esac
  state_set mode git
  state_set deno "$deno"
  detail mode git
  detail deno "$deno"
}

# Refuses to move the checkout to $1 when that would lose work: uncommitted changes to tracked files,
# or commits of HEAD (or of the local branch $2, which `checkout -B` resets) that no branch or tag of
# origin holds (now or before this fetch: $FETCHED_BEFORE) and that $1 does not contain (fast-forward
# only).
check_no_local_work() {
  git rev-parse -q --verify HEAD >/dev/null 2>&1 || return 0
  { git diff --quiet HEAD -- && git diff --cached --quiet --; } 2>/dev/null ||
    fail "$INSTALL_DIR has uncommitted changes; commit or discard them (git -C \"$INSTALL_DIR\" status), then run this stage again"
  for ref in HEAD ${2:+"refs/heads/$2"}; do
    git rev-parse -q --verify "$ref^{commit}" >/dev/null 2>&1 || continue
    # shellcheck disable=SC2086 # FETCHED_BEFORE is a list of hashes
    local_only=$(git rev-list -n 1 "$ref" --not --remotes=origin --tags $FETCHED_BEFORE --) || local_only=""
    [ -z "$local_only" ] && continue
    git merge-base --is-ancestor "$ref" "$1" 2>/dev/null ||
      fail "$INSTALL_DIR has local commits ($ref) that $1 does not contain; push or move them to another branch first (installing would lose them)"
  done
}

repository_git() {
  url=${HERALD_REPO_URL:-$(state_get repo-url || true)}
  [ -n "$url" ] || url=$SCRIPT_CHECKOUT
  [ -n "$url" ] || fail "set HERALD_REPO_URL to the Herald git repository, or pass --release-url for release binaries"
  case "$url" in -*) fail "the repository URL $url starts with \"-\"; give a URL or an absolute path" ;; esac
  cd "$INSTALL_DIR" || fail "cannot enter $INSTALL_DIR"
  old_url=""
  if [ ! -d .git ]; then
    for entry in * .[!.]* ..?*; do
      [ -e "$entry" ] || [ -L "$entry" ] || continue
      case "$entry" in
        .install-state | .herald-bootstrap-failed | .herald-bootstrap.lock) ;;
        *) fail "$INSTALL_DIR holds files but no git checkout; move them away or choose another HERALD_INSTALL_DIR" ;;
      esac
    done
    git init -q || fail "git init failed in $INSTALL_DIR"
    git remote add -- origin "$url" || fail "git remote add origin $url failed"
  else
    current=$(git remote get-url origin 2>/dev/null || true)
    if [ -z "$current" ]; then
      git remote add -- origin "$url" || fail "git remote add origin $url failed"
    elif [ "$current" != "$url" ]; then
      if [ "$REPLACE_ORIGIN" -ne 1 ] && git rev-parse -q --verify HEAD >/dev/null 2>&1; then
        fail "the checkout in $INSTALL_DIR comes from $current, not $url; pass --replace-origin to switch it, or set HERALD_REPO_URL=$current"
      fi
      say "the checkout's origin becomes $url"
      old_url=$current
      git remote set-url -- origin "$url" || fail "cannot set the checkout's origin to $url"
    fi
  fi
  exclude=.git/info/exclude
  mkdir -p .git/info
  for entry in /.install-state/ "/$MARKER_NAME" /.install_method /.herald-bootstrap-failed /.herald-bootstrap.lock; do
    grep -qxF "$entry" "$exclude" 2>/dev/null || printf '%s\n' "$entry" >>"$exclude"
  done
  FETCHED_BEFORE=$(git for-each-ref --format='%(objectname)' refs/remotes/origin refs/tags 2>/dev/null | tr '\n' ' ')
  say "fetching $url"
  if ! git fetch -q --tags --force origin '+refs/heads/*:refs/remotes/origin/*'; then
    [ -n "$old_url" ] && git remote set-url -- origin "$old_url"
    fail "git fetch from $url failed; check the address and your network"
  fi
  state_set repo-url "$url"
  default=$(git ls-remote --symref origin HEAD 2>/dev/null | sed -n 's#^ref: refs/heads/\(.*\)[[:space:]]HEAD$#\1#p')
  branch=${PIN_BRANCH:-${default:-main}}
  ref_ok "$branch" || fail "the remote's default branch \"$branch\" is not a valid branch name; pass --branch"
  if [ -n "$PIN_COMMIT" ]; then
    if ! git cat-file -e "$PIN_COMMIT^{commit}" 2>/dev/null; then
      git fetch -q -- origin "$PIN_COMMIT" 2>/dev/null || true
    fi
    target=$(git rev-parse -q --verify "$PIN_COMMIT^{commit}") ||
      fail "commit $PIN_COMMIT is not in $url"
    check_no_local_work "$target"
    git checkout -q --detach "$target" -- || fail "git checkout of $target failed (local changes in $INSTALL_DIR?)"
    detail pin commit
  elif [ -n "$PIN_TAG" ]; then
    target=$(git rev-parse -q --verify "refs/tags/$PIN_TAG^{commit}") || fail "tag $PIN_TAG is not in $url"
    check_no_local_work "$target"
    git checkout -q --detach "$target" -- || fail "git checkout of tag $PIN_TAG failed (local changes in $INSTALL_DIR?)"
    detail pin tag
    detail tag "$PIN_TAG"
  else
    target=$(git rev-parse -q --verify "refs/remotes/origin/$branch^{commit}") || fail "branch $branch is not in $url"
    check_no_local_work "$target" "$branch"
    git checkout -q -B "$branch" "refs/remotes/origin/$branch" -- ||
      fail "git checkout of branch $branch failed (local changes in $INSTALL_DIR?)"
    detail pin branch
  fi
  commit=$(git rev-parse HEAD)
  state_set pinned-commit "$commit"
  state_set pinned-branch "$branch"
  detail commit "$commit"
  detail branch "$branch"
}

repository_binary() {
  base=${RELEASE_URL:-$(state_get release-url || true)}
  [ -n "$base" ] || fail "no release URL; pass --release-url <base> to the prerequisites stage"
  base=${base%/}
  check_release_url "$base"
  asset=$(release_asset)
  work=$STATE_DIR/download
  rm -rf "$work"
  mkdir -p "$work"
  say "downloading $base/$asset"
  download "$base/SHA256SUMS" "$work/SHA256SUMS" || fail "cannot download $base/SHA256SUMS"
  download "$base/$asset" "$work/$asset" || fail "cannot download $base/$asset"
  download "$base/install-stamp.json" "$work/install-stamp.json" ||
    fail "cannot download $base/install-stamp.json"
  for file in "$asset" install-stamp.json; do
    expected=$(listed_sum "$file" "$work/SHA256SUMS")
    if [ -z "$expected" ]; then
      rm -rf "$work"
      fail "SHA256SUMS at $base does not list $file; refusing to install an unverified file"
    fi
    actual=$(sha256_of "$work/$file")
    if [ "$expected" != "$actual" ]; then
      rm -rf "$work"
      fail "checksum mismatch for $file: SHA256SUMS says $expected, the download is $actual; refusing to install it"
    fi
  done
  commit=$(json_field commit "$work/install-stamp.json")
  stamp_branch=$(json_field branch "$work/install-stamp.json")
  [ "${#commit}" -ge 7 ] || fail "the release's install-stamp.json names no commit"
  if [ -n "$PIN_COMMIT" ]; then
    case "$commit" in
      "$PIN_COMMIT"*) ;;
      *) fail "the release at $base is commit $commit, not the pinned $PIN_COMMIT" ;;
    esac
  fi
  chmod 755 "$work/$asset"
  "$work/$asset" --version >&2 || fail "the downloaded $asset does not run on this machine"
  mkdir -p "$INSTALL_DIR/bin"
  mv -f "$work/$asset" "$INSTALL_DIR/bin/herald"
  mv -f "$work/install-stamp.json" "$INSTALL_DIR/install-stamp.json"
  rm -rf "$work"
  branch=${PIN_BRANCH:-${stamp_branch:-main}}
  state_set pinned-commit "$commit"
  state_set pinned-branch "$branch"
  detail asset "$asset"
  detail commit "$commit"
  detail branch "$branch"
}

stage_repository() {
  if [ "$(install_mode)" = binary ]; then repository_binary; else repository_git; fi
  detail mode "$(install_mode)"
}

stage_venv() { skip "Herald needs no Python"; }

stage_python_deps() { skip "Herald needs no Python"; }

stage_node_deps() {
  [ "$(install_mode)" = binary ] && skip "a release binary carries its dependencies"
  deno=$(state_get deno) || fail "no Deno recorded; run the \"prerequisites\" stage first"
  cd "$INSTALL_DIR" || fail "cannot enter $INSTALL_DIR"
  DENO_NO_UPDATE_CHECK=1 "$deno" install --frozen ||
    fail "deno install failed in $INSTALL_DIR (see the lines above)"
}

# Where the herald command goes and whether that folder is on the PATH.
report_bin() {
  detail bin "$BIN_DIR/herald"
  case ":${PATH:-}:" in
    *":$BIN_DIR:"*) detail_bool onPath true ;;
    *)
      detail_bool onPath false
      say "$BIN_DIR is not on your PATH; add it (export PATH=\"$BIN_DIR:\$PATH\" in your shell's profile)"
      ;;
  esac
}

stage_path() {
  if [ "$(install_mode)" = binary ]; then
    target=$INSTALL_DIR/bin/herald
    [ -x "$target" ] || fail "$target is missing; run the \"repository\" stage first"
    link=$BIN_DIR/herald
    mkdir -p "$BIN_DIR" || fail "cannot create $BIN_DIR; set HERALD_BIN_DIR to a folder you can write"
    if [ -L "$link" ]; then
      points=$(readlink "$link") || points=""
      case "$points" in /*) ;; *) points=$BIN_DIR/$points ;; esac
      real_install=$(cd "$INSTALL_DIR" 2>/dev/null && pwd -P) || real_install=$INSTALL_DIR
      case "$points" in
        "$INSTALL_DIR"/* | "$real_install"/*) ;;
        *) fail "$link is a link to $points, not into $INSTALL_DIR; move it away or set HERALD_BIN_DIR to another folder" ;;
      esac
    elif [ -e "$link" ]; then
      grep -q '^# herald-launcher: ' "$link" 2>/dev/null ||
        fail "$link is not Herald's; move it away or set HERALD_BIN_DIR to another folder"
    fi
    { ln -sf "$target" "$link.tmp.$$" && mv -f "$link.tmp.$$" "$link"; } || fail "cannot write $link"
  else
    deno=$(state_get deno) || fail "no Deno recorded; run the \"prerequisites\" stage first"
    cd "$INSTALL_DIR" || fail "cannot enter $INSTALL_DIR"
    DENO_NO_UPDATE_CHECK=1 "$deno" run --allow-all --config "$INSTALL_DIR/deno.json" \
      "$INSTALL_DIR/scripts/install.ts" --dir "$BIN_DIR" ||
      fail "writing the herald launcher in $BIN_DIR failed (see the lines above)"
  fi
  state_set herald "$BIN_DIR/herald"
  report_bin
}

stage_config() {
  herald=$(herald_cmd)
  { mkdir -p "$HERALD_HOME" && chmod 700 "$HERALD_HOME"; } || fail "cannot create the Herald home $HERALD_HOME"
  if [ "$NO_SKILLS" -eq 1 ]; then
    : >>"$HERALD_HOME/.no-bundled-skills"
    detail skills "not seeded (.no-bundled-skills)"
  fi
  if [ -f "$HERALD_HOME/config.yaml" ]; then detail config kept; else detail config none; fi
  # Herald makes what is missing of its home (never overwriting a file) and seeds the bundled
  # skills unless .no-bundled-skills is there.
  "$herald" skills list >/dev/null || fail "herald could not prepare its home $HERALD_HOME (see the lines above)"
  detail home "$HERALD_HOME"
}

stage_setup() {
  [ "$NON_INTERACTIVE" -eq 1 ] && skip "non-interactive: run \`herald setup\` to choose a model provider"
  can_ask || skip "no terminal to ask on: run \`herald setup\` to choose a model provider"
  herald=$(herald_cmd)
  "$herald" setup </dev/tty >&2 || fail "herald setup did not finish; run \`herald setup\` again"
}

stage_gateway() {
  [ "$NON_INTERACTIVE" -eq 1 ] && skip "non-interactive: run \`herald gateway install\` to run the gateway as a service"
  can_ask || skip "no terminal to ask on: run \`herald gateway install\` to run the gateway as a service"
  herald=$(herald_cmd)
  printf 'Run the messaging gateway as a background service now? [y/N] ' >&2
  answer=""
  read -r answer </dev/tty || answer=""
  case "$answer" in
    y | Y | yes | YES) ;;
    *) skip "not now: run \`herald gateway install\` later" ;;
  esac
  "$herald" gateway install >&2 || fail "herald gateway install failed (see the lines above)"
  "$herald" gateway start >&2 || fail "herald gateway start failed (see the lines above)"
}

stage_desktop() { skip "Herald has no desktop app to build yet; the dashboard is \`herald dashboard\`"; }

# Writes the bootstrap-complete marker. (`herald bootstrap-marker write` takes this over later.)
stage_complete() {
  [ -d "$INSTALL_DIR" ] || fail "$INSTALL_DIR is missing; run the \"repository\" stage first"
  mode=$(install_mode)
  if [ "$mode" = git ]; then
    commit=$(git -C "$INSTALL_DIR" rev-parse HEAD 2>/dev/null) || commit=""
  else
    commit=$(state_get pinned-commit) || commit=""
  fi
  [ "${#commit}" -ge 7 ] || fail "cannot tell which commit is installed; run the \"repository\" stage again"
  branch=$(state_get pinned-branch) || branch=""
  [ -n "$branch" ] || branch=main
  completed=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
  marker=$INSTALL_DIR/$MARKER_NAME
  printf '{"schemaVersion":1,"pinnedCommit":%s,"pinnedBranch":%s,"completedAt":%s}\n' \
    "$(json_string "$commit")" "$(json_string "$branch")" "$(json_string "$completed")" \
    >"$marker.tmp.$$" || fail "cannot write $marker"
  mv -f "$marker.tmp.$$" "$marker" || fail "cannot write $marker"
  printf '%s\n' "$mode" >"$INSTALL_DIR/.install_method"
  detail marker "$marker"
  detail commit "$commit"
  detail branch "$branch"
}

# --- running a stage --------------------------------------------------------------------------

FRAME_SENT=0

# Prints one result frame on stdout: ok, stage, skipped, reason and the stage's details.
send_frame() {
  extra=""
  if [ -n "$RUN_TMP" ] && [ -f "$RUN_TMP/details" ]; then
    while IFS='	' read -r type key value; do
      case "$type" in
        b) extra="$extra,$(json_string "$key"):$value" ;;
        *) extra="$extra,$(json_string "$key"):$(json_string "$value")" ;;
      esac
    done <"$RUN_TMP/details"
  fi
  if [ -n "$4" ]; then reason=$(json_string "$4"); else reason=null; fi
  FRAME_SENT=1
  printf '{"ok":%s,"stage":%s,"skipped":%s,"reason":%s%s}\n' "$1" "$(json_string "$2")" "$3" "$reason" "$extra"
}

cleanup() {
  if [ -n "$RUN_TMP" ]; then rm -rf "$RUN_TMP"; fi
}

# Ends process $1 and everything it started (pgrep walks the tree where it is installed).
kill_tree() {
  if have pgrep; then
    for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  fi
  kill -TERM "$1" 2>/dev/null || true
}

# On exit (also after INT, TERM or HUP): stops a stage still running, prints the frame of the
# stage that ran when one is owed and none was printed, and removes the temporary folder.
on_exit() {
  code=$?
  trap - EXIT INT TERM HUP
  if have pgrep; then
    for child in $(pgrep -P $$ 2>/dev/null); do kill_tree "$child"; done
  fi
  if [ "$FRAME_OWED" -eq 1 ] && [ "$FRAME_SENT" -eq 0 ]; then
    [ "$code" -eq 0 ] && code=1
    send_frame false "$CURRENT_STAGE" false "the installer stopped (exit code $code)"
  fi
  cleanup
  exit "$code"
}

FRAME_OWED=0
CURRENT_STAGE=""

# Runs stage $1 (in a subshell, so a failure anywhere still ends in a frame); prints its frame
# when $2 is 1. Returns 0 when it succeeded or was skipped.
run_stage() {
  name=$1
  CURRENT_STAGE=$name
  FRAME_SENT=0
  FRAME_OWED=$2
  line=$(stage_line "$name")
  cleanup
  RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/herald-install.XXXXXX") || {
    say "cannot create a temporary folder"
    [ "$2" -eq 1 ] && send_frame false "$name" false "cannot create a temporary folder"
    return 1
  }
  needs=$(printf '%s\n' "$line" | cut -d'|' -f5)
  input=$(printf '%s\n' "$line" | cut -d'|' -f4)
  if [ "$needs" != "-" ]; then
    for need in $(printf '%s' "$needs" | tr ',' ' '); do
      if [ ! -f "$STATE_DIR/$need.done" ]; then
        detail needs "$need"
        reason="the \"$need\" stage must run first (\"$name\" needs it)"
        say "$reason"
        [ "$2" -eq 1 ] && send_frame false "$name" false "$reason"
        return 1
      fi
    done
  fi
  fn=stage_$(printf '%s' "$name" | tr '-' '_')
  if [ "$input" = true ]; then
    (
      set -e
      exec 1>&2
      "$fn"
    )
    rc=$?
  else
    # In the background, so that a signal ends the wait at once (the trap then ends the stage).
    (
      (
        set -e
        "$fn"
      )
      echo $? >"$RUN_TMP/rc"
    ) 2>&1 </dev/null | tee "$RUN_TMP/log" >&2 &
    wait $!
    rc=$(cat "$RUN_TMP/rc" 2>/dev/null || echo 1)
  fi
  if [ "$rc" -eq 0 ]; then
    mkdir -p "$STATE_DIR" && date -u +%Y-%m-%dT%H:%M:%SZ >"$STATE_DIR/$name.done"
    if [ -f "$RUN_TMP/skipped" ]; then
      [ "$2" -eq 1 ] && send_frame true "$name" true "$(cat "$RUN_TMP/skipped")"
    else
      [ "$2" -eq 1 ] && send_frame true "$name" false ""
    fi
    return 0
  fi
  rm -f "$STATE_DIR/$name.done"
  if [ -f "$RUN_TMP/reason" ]; then
    reason=$(cat "$RUN_TMP/reason")
  else
    reason="exit code $rc"
    last=$(grep -v '^[[:space:]]*$' "$RUN_TMP/log" 2>/dev/null | tail -n 1)
    [ -n "$last" ] && reason="$reason: $last"
  fi
  [ "$2" -eq 1 ] && send_frame false "$name" false "$reason"
  return 1
}

# --- dispatch: --manifest, then --stage, then a full install ----------------------------------

if [ "$HELP" -eq 1 ]; then
  usage
  exit 0
fi

if [ "$MANIFEST" -eq 1 ]; then
  if [ -n "$ARG_ERROR" ]; then
    say "$ARG_ERROR"
    exit 2
  fi
  print_manifest
  exit 0
fi

trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

if [ "$STAGE_GIVEN" -eq 1 ]; then
  CURRENT_STAGE=$STAGE
  FRAME_OWED=1
  if [ -n "$ARG_ERROR" ]; then
    say "$ARG_ERROR"
    send_frame false "$STAGE" false "$ARG_ERROR; run install.sh --help"
    exit 2
  fi
  if [ -z "$STAGE" ]; then
    say "missing stage name"
    send_frame false "" false "missing stage name; stages: $(stage_names)"
    exit 2
  fi
  if [ -z "$(stage_line "$STAGE")" ]; then
    say "unknown stage: $STAGE"
    send_frame false "$STAGE" false "unknown stage \"$STAGE\"; stages: $(stage_names)"
    exit 2
  fi
  if run_stage "$STAGE" 1; then exit 0; else exit 1; fi
fi

if [ -n "$ARG_ERROR" ]; then
  say "$ARG_ERROR; run install.sh --help"
  exit 2
fi

total=$(stage_lines | wc -l | tr -d ' ')
index=0
for name in $(stage_lines | cut -d'|' -f1); do
  index=$((index + 1))
  title=$(stage_line "$name" | cut -d'|' -f2)
  say "[$index/$total] $title"
  if ! run_stage "$name" "$JSON"; then
    say "the \"$name\" stage failed; fix what it says, then run: sh install.sh --stage $name"
    exit 1
  fi
done
say "done: run \`herald\` (or $BIN_DIR/herald)"
exit 0
