#!/usr/bin/env bash
# All the logic of the olmlint GitHub Action (action.yml only wires inputs and calls this).
#
#   action.sh prepare   decide how olmlint is installed (see "prepare" below) and compute the
#                       cache key and install root (step outputs `cache-key`, `install-root`,
#                       `mode`, `version`, `target`; empty key = nothing to cache)
#   action.sh install   download (verified) or build olmlint into the install root unless it is
#                       there (step output `fresh=true|false`: a new binary to cache)
#   action.sh lint      lint and write the step outputs `errors`, `warnings`, `sarif-file`
#   action.sh           install (when needed), then lint: for running by hand and for tests
#
# Inputs come as environment variables (action.yml maps `inputs.<name>` to INPUT_<NAME>):
#   INPUT_PATHS       catalogs to lint, separated by spaces or newlines, globs expanded (default .)
#   INPUT_CONFIG      configuration file (-c)
#   INPUT_CONTEXT     extra catalogs for dependency resolution (see "context" below)
#   INPUT_TARGETS     OLM generations (`--target` each): v0, olmv1, olmv1=PROFILE
#   INPUT_FAIL_ON     error | warning | info | never (default error)
#   INPUT_SARIF_FILE  also write a SARIF 2.1.0 report to this path
#   INPUT_VERSION     empty: the release matching the action's ref; X.Y.Z; latest; source
#                     (see "prepare" below)
#   INPUT_ARGS        extra `olmlint lint` arguments, split on whitespace (no shell quoting)
#   INPUT_NEW_FINDINGS_ONLY  true (default): with --changed-since in the args, add --only-new
#   INPUT_GRAPH_SUMMARY  true (default): with --changed-since in the args, append the changed
#                     upgrade graphs (olmlint graph --changed-since REF -f markdown) to the summary
# Other environment:
#   OLMLINT_BIN            use this olmlint binary (no build, no cache; the tests use it)
#   OLMLINT_INSTALL_ROOT   where `install` puts bin/olmlint (set by action.yml from `prepare`)
#   OLMLINT_INSTALL_MODE, OLMLINT_INSTALL_VERSION, OLMLINT_INSTALL_TARGET
#                          `prepare`'s decision, handed to `install` by action.yml
#   OLMLINT_RELEASES_URL   where releases are downloaded from (a mirror; the tests' local server)
#   GITHUB_ACTION_PATH     the action's checkout (the crate that is built by default)
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, RUNNER_OS, RUNNER_ARCH: as set by Actions
#
# Runs: olmlint lints three or four times with identical arguments, because one run writes one
# format: `-f json -o` (counts and the exit code), `-f human` (the report, in a collapsed log
# group), `-f github` (annotations on stdout, Markdown table appended to $GITHUB_STEP_SUMMARY)
# and, only when a SARIF file is requested, `-f sarif -o`. Loading and checking a catalog is
# fast next to a workflow's start-up; the JSON report is the stable contract for the counts.
#
# Exit code: olmlint's. 0 no finding at or above fail-on, 1 findings, 2 usage or I/O error.
#
# Portability: bash 3.2 (macOS /bin/bash) and Git Bash on Windows runners: no mapfile, no
# associative arrays, empty arrays expanded as ${a[@]+"${a[@]}"}.
set -euo pipefail

log() { printf 'olmlint-action: %s\n' "$*" >&2; }

# A workflow command property/message must not contain raw newlines or %.
gh_escape() {
  local s=$1
  s=${s//'%'/'%25'}
  s=${s//$'\r'/'%0D'}
  s=${s//$'\n'/'%0A'}
  printf '%s' "$s"
}

# A token nobody can guess, for ::stop-commands::.
stop_token() {
  local token
  token=$(od -An -N16 -tx1 /dev/urandom 2>/dev/null | tr -d ' \n' || true)
  printf '%s' "${token:-olmlint-$$-$RANDOM$RANDOM$RANDOM}"
}

# print_guarded FILE [GROUP]: prints what olmlint wrote (FILE) to stdout with workflow commands
# stopped, in a collapsed group when GROUP is given. Every print of olmlint's output goes
# through here: it quotes catalog and configuration text from the pull request, and a line of
# it must not become a command (set an output, add an annotation, or stop commands so that
# the Action's own error is silenced), whether it starts with `::` or holds the runner's
# legacy `##[command]` anywhere.
print_guarded() {
  local file=$1 group=${2:-} token
  [ -s "$file" ] || return 0
  token=$(stop_token)
  if [ -n "$group" ]; then
    echo "::group::$group"
  fi
  echo "::stop-commands::$token"
  cat "$file"
  # The resume line must be a line of its own.
  if [ -n "$(tail -c 1 "$file")" ]; then
    echo
  fi
  echo "::$token::"
  if [ -n "$group" ]; then
    echo "::endgroup::"
  fi
}

fail() {
  # Usage or setup problem: one annotation, exit code 2 like olmlint's own usage errors.
  if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
    printf '::error title=olmlint::%s\n' "$(gh_escape "$*")"
  else
    log "error: $*"
  fi
  exit 2
}

# Append name=value to $GITHUB_OUTPUT (or show it when not in Actions).
set_output() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  else
    log "output $1=$2"
  fi
}

# A native (Windows) path for tools that are not MSYS programs, e.g. actions/cache.
native_path() {
  if command -v cygpath >/dev/null 2>&1; then
    cygpath -m "$1"
  else
    printf '%s' "$1"
  fi
}

sha256_stdin() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum | cut -c1-64
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 | cut -c1-64
  else
    openssl dgst -sha256 -r | cut -c1-64
  fi
}

action_path() {
  local p=${GITHUB_ACTION_PATH:-}
  if [ -z "$p" ]; then
    p=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  fi
  printf '%s' "$p"
}

# --- prepare ---------------------------------------------------------------------------------
#
# How olmlint is installed (the `version` input):
#   ""       the release whose version is in the action's own Cargo.toml (at a release tag,
#            exactly that release: the release workflow refuses a tag that differs from it);
#            when that release does not exist or has no archive for this runner, the action's
#            checkout is built from source instead
#   X.Y.Z    that release (vX.Y.Z also accepted); when it has no archive for this runner,
#            `cargo install olmlint --version X.Y.Z` from crates.io
#   latest   the newest release (not cached); failing that, the newest crate
#   source   build the action's checkout with cargo (cached on the hash of Cargo.lock and sources)
# A download is verified against the release's sha256sums.txt before it is used; a mismatch
# stops the job (exit 2) and never falls back. Other environment:
#   OLMLINT_RELEASES_URL  where releases are downloaded from (default
#                         $GITHUB_SERVER_URL/olmlint/olmlint/releases; the tests serve a fake one)

# The version of the workspace's Cargo.toml ([workspace.package], which every crate of the
# workspace takes; a [package] version is read too, for a checkout from before the workspace).
# (One awk reading the file itself: `tr <file | awk '…exit'` let awk exit before tr had
# written everything, and tr's SIGPIPE under `pipefail` ended the step with status 141.)
crate_version() {
  awk '
    { sub(/\r$/, "") }
    /^\[/ { in_pkg = ($0 == "[workspace.package]" || $0 == "[package]") }
    in_pkg && !found && /^version[[:space:]]*=/ { gsub(/^[^"]*"|".*$/, ""); print; found = 1 }
  ' "$1"
}

# The release archive's target triple for this runner; empty when no archive is published for it.
release_target() {
  local os=${RUNNER_OS:-$(uname -s)} arch=${RUNNER_ARCH:-$(uname -m)}
  case $os in
    Linux) os=linux ;;
    macOS | Darwin) os=macos ;;
    Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
    *) os=other ;;
  esac
  case $arch in
    X64 | x86_64 | amd64 | AMD64) arch=x64 ;;
    ARM64 | aarch64 | arm64) arch=arm64 ;;
    *) arch=other ;;
  esac
  case $os-$arch in
    linux-x64) printf 'x86_64-unknown-linux-musl' ;;
    linux-arm64) printf 'aarch64-unknown-linux-musl' ;;
    macos-x64) printf 'x86_64-apple-darwin' ;;
    macos-arm64) printf 'aarch64-apple-darwin' ;;
    windows-x64) printf 'x86_64-pc-windows-msvc' ;;
  esac
}

archive_name() {
  case $1 in
    *windows*) printf 'olmlint-%s.zip' "$1" ;;
    *) printf 'olmlint-%s.tar.gz' "$1" ;;
  esac
}

releases_url() {
  local base=${OLMLINT_RELEASES_URL:-${GITHUB_SERVER_URL:-https://github.com}/olmlint/olmlint/releases}
  printf '%s' "${base%/}"
}

# The download directory of a release: `latest` or a version.
release_download_url() {
  if [ "$1" = latest ]; then
    printf '%s/latest/download' "$(releases_url)"
  else
    printf '%s/download/v%s' "$(releases_url)" "$1"
  fi
}

# http_get URL FILE [head]: prints the HTTP status (000 when no answer); exit status 0.
# Redirects are followed (GitHub serves assets from another host), over HTTPS only unless the
# releases URL itself is plain HTTP (a mirror or the tests' local server).
http_get() {
  local url=$1 out=$2 proto='=https'
  case $(releases_url) in http://*) proto='=http,https' ;; esac
  command -v curl >/dev/null 2>&1 ||
    fail "curl not found: it is needed to download olmlint (or set the version input to 'source')"
  local -a args=(-sS -L --proto "$proto" --proto-redir "$proto" --retry 3 --retry-delay 2
    --connect-timeout 20 --max-time 300 -o "$out" -w '%{http_code}')
  if [ "${3:-}" = head ]; then
    args+=(-I)
  fi
  curl "${args[@]}" "$url" 2>/dev/null || true
}

# Sets CACHE_KEY (empty: nothing to cache), INSTALL_ROOT (empty: OLMLINT_BIN is used),
# MODE (release|latest|source|crate), VERSION and TARGET.
compute_prepare() {
  local version=${INPUT_VERSION:-} ap lock src os arch base code explicit=no
  os=${RUNNER_OS:-$(uname -s)}
  arch=${RUNNER_ARCH:-$(uname -m)}
  base="${RUNNER_TOOL_CACHE:-${HOME:-/tmp}/.cache}/olmlint-action"
  CACHE_KEY=""
  INSTALL_ROOT=""
  MODE=""
  VERSION=""
  TARGET=""
  if [ -n "${OLMLINT_BIN:-}" ]; then
    return 0
  fi
  case $version in
    "")
      ap=$(action_path)
      [ -f "$ap/Cargo.toml" ] || fail "no Cargo.toml in the action's checkout ($ap); set the version input"
      VERSION=$(crate_version "$ap/Cargo.toml")
      [ -n "$VERSION" ] || fail "no version in the action's Cargo.toml ([workspace.package]); set the version input"
      MODE=release
      ;;
    source) MODE=source ;;
    latest)
      VERSION=latest
      MODE=latest
      ;;
    *)
      version=${version#v}
      case $version in
        [0-9]*.*[0-9A-Za-z]) ;;
        *) fail "version '${INPUT_VERSION}' is not a release version (X.Y.Z), 'latest', 'source' or empty" ;;
      esac
      case $version in
        *[!0-9A-Za-z.+-]*) fail "version '${INPUT_VERSION}' is not a release version (X.Y.Z), 'latest', 'source' or empty" ;;
      esac
      VERSION=$version
      MODE=release
      explicit=yes
      ;;
  esac

  if [ "$MODE" = release ] || [ "$MODE" = latest ]; then
    TARGET=$(release_target)
    if [ -z "$TARGET" ]; then
      log "no olmlint release archive for $os/$arch: building from source instead"
      MODE=fallback
    elif [ "$MODE" = release ]; then
      # Does the release exist? (Decided here so that the fallback's build is cached under its
      # own key; a network failure leaves the decision to the download, which reports it.)
      code=$(http_get "$(release_download_url "$VERSION")/sha256sums.txt" /dev/null head)
      if [ "$code" = 404 ]; then
        log "no olmlint release v$VERSION at $(releases_url): building from source instead"
        MODE=fallback
      fi
    fi
    if [ "$MODE" = fallback ]; then
      if [ "$explicit" = yes ] || [ "$VERSION" = latest ]; then
        MODE=crate
      else
        MODE=source
      fi
    fi
  fi

  case $MODE in
    source)
      ap=$(action_path)
      [ -f "$ap/Cargo.lock" ] || fail "no Cargo.lock in the action's checkout ($ap); set the version input"
      # hashFiles() cannot read the action's own files (it only sees the workspace), so hash
      # here. The key names the Cargo.lock hash; the sources are hashed too, or a new action ref
      # with the same Cargo.lock would restore an old binary. CRs are dropped so autocrlf does
      # not matter.
      lock=$(tr -d '\r' <"$ap/Cargo.lock" | sha256_stdin)
      src=$(cd "$ap" && { find Cargo.toml build.rs src rules schemas -type f 2>/dev/null || true; } |
        LC_ALL=C sort | while IFS= read -r f; do
          printf '%s\n' "$f"
          tr -d '\r' <"$f"
        done | sha256_stdin)
      CACHE_KEY="olmlint-action-${os}-${arch}-lock-${lock:0:16}-src-${src:0:16}"
      INSTALL_ROOT="$base/checkout-${lock:0:16}-${src:0:16}"
      ;;
    release)
      CACHE_KEY="olmlint-action-${os}-${arch}-release-${VERSION}"
      INSTALL_ROOT="$base/release-${VERSION}"
      ;;
    latest)
      INSTALL_ROOT="$base/latest"
      ;;
    crate)
      if [ "$VERSION" = latest ]; then
        INSTALL_ROOT="$base/crate-latest"
      else
        CACHE_KEY="olmlint-action-${os}-${arch}-crate-${VERSION}"
        INSTALL_ROOT="$base/crate-${VERSION}"
      fi
      ;;
  esac
  INSTALL_ROOT=$(native_path "$INSTALL_ROOT")
}

cmd_prepare() {
  compute_prepare
  set_output cache-key "$CACHE_KEY"
  set_output install-root "$INSTALL_ROOT"
  set_output mode "$MODE"
  set_output version "$VERSION"
  set_output target "$TARGET"
}

# --- install ---------------------------------------------------------------------------------

installed_bin() {
  local root=$1
  if [ -f "$root/bin/olmlint.exe" ]; then
    printf '%s' "$root/bin/olmlint.exe"
  elif [ -f "$root/bin/olmlint" ]; then
    printf '%s' "$root/bin/olmlint"
  fi
}

# Sets SCRATCH_DIR to a new directory (created exclusively by mktemp), removed when the script
# exits. (A function setting a variable, not $(...): the list of directories must survive.)
new_scratch() {
  SCRATCH_DIR=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/olmlint-action.XXXXXX") ||
    fail "cannot create a temporary directory"
  SCRATCH+=("$SCRATCH_DIR")
}
SCRATCH=()
cleanup_scratch() {
  local d
  for d in ${SCRATCH[@]+"${SCRATCH[@]}"}; do
    rm -rf "$d"
  done
}
trap cleanup_scratch EXIT

extract_zip() {
  local archive=$1 dir=$2
  if command -v unzip >/dev/null 2>&1; then
    unzip -q "$archive" -d "$dir"
  elif command -v 7z >/dev/null 2>&1; then
    7z x -y -bd -o"$dir" "$archive" >/dev/null
  else
    powershell -NoProfile -NonInteractive -Command \
      "Expand-Archive -LiteralPath '$(native_path "$archive")' -DestinationPath '$(native_path "$dir")'"
  fi
}

# download_release VERSION|latest TARGET ROOT: 0 installed, 3 the release or its archive for
# TARGET does not exist (404); any other problem fails the job.
download_release() {
  local version=$1 target=$2 root=$3 url archive tmp code expected actual exe bin out want
  url=$(release_download_url "$version")
  archive=$(archive_name "$target")
  new_scratch
  tmp=$SCRATCH_DIR
  log "downloading $url/$archive"
  code=$(http_get "$url/sha256sums.txt" "$tmp/sha256sums.txt")
  case $code in
    200) ;;
    404) return 3 ;;
    *) fail "cannot download $url/sha256sums.txt (HTTP $code); retry, or set the version input to 'source' to build olmlint" ;;
  esac
  expected=$(tr -d '\r' <"$tmp/sha256sums.txt" |
    awk -v n="$archive" '$2 == n || $2 == "*" n { print tolower($1); exit }')
  if [ -z "$expected" ]; then
    log "the release's sha256sums.txt lists no $archive"
    return 3
  fi
  case $expected in
    *[!0-9a-f]* | "") fail "sha256sums.txt has a malformed checksum for $archive" ;;
  esac
  [ "${#expected}" -eq 64 ] || fail "sha256sums.txt has a malformed checksum for $archive"
  code=$(http_get "$url/$archive" "$tmp/$archive")
  case $code in
    200) ;;
    404) return 3 ;;
    *) fail "cannot download $url/$archive (HTTP $code); retry, or set the version input to 'source' to build olmlint" ;;
  esac
  actual=$(sha256_stdin <"$tmp/$archive")
  if [ "$actual" != "$expected" ]; then
    fail "checksum mismatch for $archive: sha256sums.txt says $expected, the download is $actual; refusing to run it"
  fi
  log "sha256 $actual verified"
  mkdir "$tmp/x"
  case $archive in
    *.zip) extract_zip "$tmp/$archive" "$tmp/x" || fail "cannot extract $archive" ;;
    *) tar -xzf "$tmp/$archive" -C "$tmp/x" || fail "cannot extract $archive" ;;
  esac
  exe=olmlint
  case $target in *windows*) exe=olmlint.exe ;; esac
  bin="$tmp/x/olmlint-$target/$exe"
  if [ -L "$bin" ] || [ ! -f "$bin" ]; then
    fail "$archive holds no olmlint-$target/$exe"
  fi
  chmod +x "$bin"
  out=$("$bin" --version 2>/dev/null || true)
  want="olmlint ${version}"
  [ "$version" = latest ] && want="olmlint "
  case $out in
    "$want"*) ;;
    *) fail "the downloaded olmlint does not run here or is not version $version (it says: ${out:-nothing})" ;;
  esac
  mkdir -p "$root/bin"
  cp "$bin" "$root/bin/$exe.tmp.$$"
  mv -f "$root/bin/$exe.tmp.$$" "$root/bin/$exe"
  log "installed $out ($target) in $root/bin"
}

need_cargo() {
  command -v cargo >/dev/null 2>&1 ||
    fail "cargo not found, and olmlint has to be built from source ($*): add a Rust toolchain step before this action (e.g. dtolnay/rust-toolchain), pick a released version, or set OLMLINT_BIN"
}

build_checkout() {
  need_cargo "version: source"
  log "building olmlint from $(action_path)"
  cargo install --path "$(action_path)" --locked --force --root "$1" ||
    fail "cargo install --path $(action_path) failed"
}

build_crate() {
  local version=$1 root=$2
  need_cargo "no release archive for this runner"
  if [ "$version" = latest ]; then
    cargo install olmlint --locked --force --root "$root" || fail "cargo install olmlint failed"
  else
    cargo install olmlint --version "$version" --locked --force --root "$root" ||
      fail "cargo install olmlint --version $version failed"
  fi
}

# The warning shown when a download falls back to a build (the release has no archive here).
fallback_notice() {
  if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
    printf '::warning title=olmlint::%s\n' "$(gh_escape "$*")"
  else
    log "warning: $*"
  fi
}

cmd_install() {
  local root=${OLMLINT_INSTALL_ROOT:-} mode=${OLMLINT_INSTALL_MODE:-} rc fresh=true
  if [ -n "${OLMLINT_BIN:-}" ]; then
    set_output fresh false
    return 0
  fi
  [ -n "$root" ] || fail "OLMLINT_INSTALL_ROOT is not set (run 'action.sh prepare' first)"
  [ -n "$mode" ] || fail "OLMLINT_INSTALL_MODE is not set (run 'action.sh prepare' first)"
  VERSION=${OLMLINT_INSTALL_VERSION:-}
  TARGET=${OLMLINT_INSTALL_TARGET:-}
  if [ -n "$(installed_bin "$root")" ] && [ "$mode" != latest ]; then
    log "using $(installed_bin "$root") (cached)"
    set_output fresh false
    return 0
  fi
  case $mode in
    release | latest)
      rc=0
      download_release "$VERSION" "$TARGET" "$root" || rc=$?
      if [ "$rc" -eq 3 ]; then
        # The release vanished between prepare and install, or lacks this runner's archive:
        # build, but do not cache the build under the release's key.
        fresh=false
        if [ "$mode" = release ] && [ -z "${INPUT_VERSION:-}" ]; then
          fallback_notice "olmlint release $VERSION has no $(archive_name "$TARGET"): building the action's checkout from source"
          build_checkout "$root"
        else
          fallback_notice "olmlint release $VERSION has no $(archive_name "$TARGET"): building the crate from source"
          build_crate "$VERSION" "$root"
        fi
      elif [ "$rc" -ne 0 ]; then
        fail "download failed"
      fi
      ;;
    source) build_checkout "$root" ;;
    crate)
      fallback_notice "no olmlint release archive for this runner or version: building crate $VERSION from source"
      build_crate "$VERSION" "$root"
      ;;
    *) fail "unknown install mode '$mode'" ;;
  esac
  [ -n "$(installed_bin "$root")" ] || fail "the install did not produce $root/bin/olmlint"
  set_output fresh "$fresh"
}

# --- lint ------------------------------------------------------------------------------------

# Sets BIN (a function, not $(...), so that fail's annotation reaches stdout).
find_bin() {
  BIN=""
  if [ -n "${OLMLINT_BIN:-}" ]; then
    [ -f "$OLMLINT_BIN" ] || [ -f "$OLMLINT_BIN.exe" ] || fail "OLMLINT_BIN=$OLMLINT_BIN does not exist"
    BIN=$OLMLINT_BIN
    return 0
  fi
  if [ -n "${OLMLINT_INSTALL_ROOT:-}" ]; then
    BIN=$(installed_bin "$OLMLINT_INSTALL_ROOT")
    [ -z "$BIN" ] || return 0
  fi
  BIN=$(command -v olmlint 2>/dev/null || true)
  [ -n "$BIN" ] || fail "olmlint not found: run 'action.sh install', put it on PATH or set OLMLINT_BIN"
}

# Count a key of the JSON report's top-level "summary" object without jq: the summary holds
# only numbers, and a key that follows `{` or `,` cannot be inside a JSON string (quotes in
# strings are escaped), so this is exact for any formatting of the report.
summary_count() {
  local file=$1 key=$2 obj n
  obj=$(tr -d '\r\n' <"$file" |
    grep -o '[{,][[:space:]]*"summary"[[:space:]]*:[[:space:]]*{[^{}]*}' | tail -n 1 || true)
  n=$(printf '%s' "$obj" | grep -o "\"$key\"[[:space:]]*:[[:space:]]*[0-9][0-9]*" |
    grep -o '[0-9][0-9]*$' || true)
  printf '%s' "${n:-}"
}

# The REF of a `--changed-since REF` (or `--changed-since=REF`) in the args input, or nothing.
changed_since_ref() {
  local word next=no
  set -f
  for word in ${INPUT_ARGS:-}; do
    if [ "$next" = yes ]; then
      printf '%s' "$word"
      set +f
      return 0
    fi
    case $word in
      --changed-since) next=yes ;;
      --changed-since=*)
        printf '%s' "${word#--changed-since=}"
        set +f
        return 0
        ;;
    esac
  done
  set +f
}

# Appends `olmlint graph --changed-since REF -f markdown` to the step summary, when asked for
# and possible; a failure is a warning, not the step's verdict.
graph_summary() {
  local bin=$1 tmp=$2 ref help rc
  shift 2
  [ "${INPUT_GRAPH_SUMMARY:-true}" = true ] || return 0
  [ -n "${GITHUB_STEP_SUMMARY:-}" ] || return 0
  ref=$(changed_since_ref)
  [ -n "$ref" ] || return 0
  help=$("$bin" graph --help 2>/dev/null || true)
  case $help in
    *--changed-since*) ;;
    *) return 0 ;;
  esac
  local -a config=()
  if [ -n "${INPUT_CONFIG:-}" ]; then
    config=("--config=$INPUT_CONFIG")
  fi
  case " ${INPUT_ARGS:-} " in
    *" --no-config "*) config=(--no-config) ;;
  esac
  rc=0
  "$bin" graph "--changed-since=$ref" -f markdown -o "$tmp/graphs.md" ${config[@]+"${config[@]}"} -- "$@" 2>"$tmp/stderr.graph" || rc=$?
  if [ "$rc" -eq 0 ] && [ -f "$tmp/graphs.md" ]; then
    cat "$tmp/graphs.md" >>"$GITHUB_STEP_SUMMARY"
  else
    printf '::warning title=olmlint::%s\n' "$(gh_escape "the upgrade graphs were not added to the job summary: $(head -n 1 "$tmp/stderr.graph")")"
  fi
}

cmd_lint() {
  local bin tmp fail_on sarif rc_json rc_gh rc_sarif rc r errors warnings help has_context
  find_bin
  bin=$BIN
  fail_on=${INPUT_FAIL_ON:-error}
  sarif=${INPUT_SARIF_FILE:-}

  # Arguments shared by every run.
  # (Counted by hand: bash before 4.4 treats an empty array as unset under `set -u`.)
  local -a words=() paths=() extra=() common=() ctx=() targets=()
  local word line file npaths=0 nctx=0
  # Paths: whitespace- or newline-separated, split with globbing off; then each word with
  # glob characters is expanded on its own (no match: kept as written, and olmlint reports
  # it). Paths are passed after `--`: a file of the pull request named like an option
  # (`--write-baseline=x.json`, matched by `*`) stays a path.
  set -f
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    for word in $line; do
      words+=("$word")
    done
  done <<<"${INPUT_PATHS:-.}"
  set +f
  for word in ${words[@]+"${words[@]}"}; do
    case $word in
      *[*?[]*)
        for file in $word; do
          paths+=("$file")
          npaths=$((npaths + 1))
        done
        ;;
      *)
        paths+=("$word")
        npaths=$((npaths + 1))
        ;;
    esac
  done
  [ "$npaths" -gt 0 ] || paths=(.)
  # Extra arguments: split on whitespace, never glob-expanded or evaluated.
  set -f
  for word in ${INPUT_ARGS:-}; do
    extra+=("$word")
  done
  # Context catalogs (`--context` exists from olmlint 0.2 on; `version` may pin an older one).
  for word in ${INPUT_CONTEXT:-}; do
    ctx+=("$word")
    nctx=$((nctx + 1))
  done
  # OLM generations (`--target`), commas or whitespace between them.
  local list=${INPUT_TARGETS:-}
  for word in ${list//,/ }; do
    targets+=("--target=$word")
  done
  set +f
  common=(--fail-on "$fail_on")
  common+=(${targets[@]+"${targets[@]}"})
  if [ -n "${INPUT_CONFIG:-}" ]; then
    common+=("--config=$INPUT_CONFIG")
  fi
  if [ "$nctx" -gt 0 ]; then
    help=$("$bin" lint --help 2>/dev/null || true)
    case $help in
      *--context*) has_context=yes ;;
      *) has_context=no ;;
    esac
    if [ "$has_context" = yes ]; then
      for word in "${ctx[@]}"; do
        common+=("--context=$word")
      done
    else
      printf '::warning title=olmlint::%s\n' "$(gh_escape "the context input was not used: this olmlint has no --context option (pick a newer version, or declare the packages and APIs under provided: in .olmlint.yaml)")"
    fi
  fi
  common+=(${extra[@]+"${extra[@]}"})
  # Only what the pull request introduced, when the run is change-scoped (and this olmlint
  # knows --only-new; `version` may pin an older one).
  case " ${INPUT_ARGS:-} " in
    *" --changed-since "* | *" --changed-since="*)
      if [ "${INPUT_NEW_FINDINGS_ONLY:-true}" = true ]; then
        case " ${extra[*]-} " in
          *" --only-new "*) ;;
          *)
            help=$("$bin" lint --help 2>/dev/null || true)
            case $help in
              *--only-new*) common+=(--only-new) ;;
              *) printf '::warning title=olmlint::%s\n' "$(gh_escape "new-findings-only was not applied: this olmlint has no --only-new option (pick a newer version)")" ;;
            esac
            ;;
        esac
      fi
      ;;
  esac

  new_scratch
  tmp=$SCRATCH_DIR

  # Run 1: JSON for the counts and the exit code (with -o, olmlint's stderr is the summary).
  rc_json=0
  "$bin" lint -f json -o "$tmp/report.json" "${common[@]}" -- "${paths[@]}" 2>"$tmp/stderr" || rc_json=$?
  if [ "$rc_json" -ge 2 ]; then
    print_guarded "$tmp/stderr" "olmlint output"
    fail "olmlint exited with code $rc_json (usage or I/O error): $(head -n 1 "$tmp/stderr")"
  fi
  # The human report, in a collapsed group. It quotes catalog content: workflow commands are
  # stopped while it is printed.
  "$bin" lint -f human "${common[@]}" -- "${paths[@]}" >"$tmp/report.txt" 2>&1 || true
  print_guarded "$tmp/report.txt" "olmlint report"

  # Run 2: annotations (stdout) and the step summary (olmlint appends it itself).
  # (Its stderr, the same summary line again, is shown only on failure: -q is not passed
  # because a -q in the args input would then be repeated, which olmlint refuses.)
  rc_gh=0
  "$bin" lint -f github "${common[@]}" -- "${paths[@]}" 2>"$tmp/stderr.github" || rc_gh=$?
  if [ "$rc_gh" -ge 2 ]; then print_guarded "$tmp/stderr.github" "olmlint output (-f github)"; fi

  # Run 3: SARIF, when asked for.
  rc_sarif=0
  if [ -n "$sarif" ]; then
    mkdir -p "$(dirname "$sarif")"
    rm -f "$sarif"
    "$bin" lint -f sarif -o "$sarif" "${common[@]}" -- "${paths[@]}" 2>"$tmp/stderr.sarif" || rc_sarif=$?
    if [ "$rc_sarif" -ge 2 ]; then print_guarded "$tmp/stderr.sarif" "olmlint output (-f sarif)"; fi
    if [ ! -f "$sarif" ] && [ "$rc_sarif" -lt 2 ]; then
      # Nothing to lint (e.g. --changed-since with no catalog change): an empty run keeps
      # upload-sarif from failing on a missing file.
      # shellcheck disable=SC2016 # a literal "$schema" key
      printf '%s\n' '{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"olmlint","informationUri":"https://github.com/olmlint/olmlint","rules":[]}},"results":[]}]}' >"$sarif"
    fi
  fi

  # The upgrade graphs the pull request changed, in the job summary (never fails the step).
  graph_summary "$bin" "$tmp" "${paths[@]}"

  if [ -f "$tmp/report.json" ]; then
    errors=$(summary_count "$tmp/report.json" errors)
    warnings=$(summary_count "$tmp/report.json" warnings)
    if [ -z "$errors" ] || [ -z "$warnings" ]; then
      fail "cannot read the summary of olmlint's JSON report"
    fi
  else
    # olmlint stops before writing a report when there is nothing to lint.
    errors=0
    warnings=0
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
      printf '## olmlint\n\nNothing to lint: no catalog file among the given paths (or none changed).\n' >>"$GITHUB_STEP_SUMMARY"
    fi
  fi
  set_output errors "$errors"
  set_output warnings "$warnings"
  set_output sarif-file "$sarif"

  rc=$rc_json
  for r in "$rc_gh" "$rc_sarif"; do
    if [ "$r" -ge 2 ]; then
      fail "olmlint exited with code $r (usage or I/O error) while writing a report"
    fi
  done
  return "$rc"
}

case ${1:-run} in
  prepare) cmd_prepare ;;
  install) cmd_install ;;
  lint) cmd_lint ;;
  run)
    if [ -z "${OLMLINT_BIN:-}" ] &&
      { [ -n "${OLMLINT_INSTALL_ROOT:-}" ] || ! command -v olmlint >/dev/null 2>&1; }; then
      compute_prepare
      OLMLINT_INSTALL_ROOT=${OLMLINT_INSTALL_ROOT:-$INSTALL_ROOT}
      OLMLINT_INSTALL_MODE=$MODE
      OLMLINT_INSTALL_VERSION=$VERSION
      OLMLINT_INSTALL_TARGET=$TARGET
      export OLMLINT_INSTALL_ROOT OLMLINT_INSTALL_MODE OLMLINT_INSTALL_VERSION OLMLINT_INSTALL_TARGET
      cmd_install
    fi
    cmd_lint
    ;;
  -h | --help) sed -n '2,36p' "${BASH_SOURCE[0]}" ;;
  *) fail "unknown command '$1' (prepare, install, lint or none)" ;;
esac
