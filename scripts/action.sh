#!/usr/bin/env bash
# All the logic of the olmlint GitHub Action (action.yml only wires inputs and calls this).
#
#   action.sh prepare   compute the binary cache key and install root (step outputs
#                       `cache-key`, `install-root`; empty key = nothing to cache)
#   action.sh install   build or install olmlint into the install root unless it is there
#                       (step output `built=true|false`)
#   action.sh lint      lint and write the step outputs `errors`, `warnings`, `sarif-file`
#   action.sh           install (when needed), then lint: for running by hand and for tests
#
# Inputs come as environment variables (action.yml maps `inputs.<name>` to INPUT_<NAME>):
#   INPUT_PATHS       catalogs to lint, separated by spaces or newlines, globs expanded (default .)
#   INPUT_CONFIG      configuration file (-c)
#   INPUT_CONTEXT     extra catalogs for dependency resolution (see "context" below)
#   INPUT_FAIL_ON     error | warning | info | never (default error)
#   INPUT_SARIF_FILE  also write a SARIF 2.1.0 report to this path
#   INPUT_VERSION     empty: build the action's own checkout; X.Y.Z: crates.io; latest: crates.io
#   INPUT_ARGS        extra `olmlint lint` arguments, split on whitespace (no shell quoting)
#   INPUT_NEW_FINDINGS_ONLY  true (default): with --changed-since in the args, add --only-new
# Other environment:
#   OLMLINT_BIN            use this olmlint binary (no build, no cache; the tests use it)
#   OLMLINT_INSTALL_ROOT   where `install` puts bin/olmlint (set by action.yml from `prepare`)
#   GITHUB_ACTION_PATH     the action's checkout (the crate that is built by default)
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, RUNNER_OS, RUNNER_ARCH: as set by Actions
#
# Runs: olmlint lints two or three times with identical arguments, because one run writes one
# format: `-f json -o` (counts and the exit code; its human report goes to a collapsed log
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

# Sets CACHE_KEY (empty: nothing to cache) and INSTALL_ROOT (empty: OLMLINT_BIN is used).
compute_prepare() {
  local version=${INPUT_VERSION:-} ap lock src os arch base
  os=${RUNNER_OS:-$(uname -s)}
  arch=${RUNNER_ARCH:-$(uname -m)}
  base="${RUNNER_TOOL_CACHE:-${HOME:-/tmp}/.cache}/olmlint-action"
  CACHE_KEY=""
  INSTALL_ROOT=""
  if [ -n "${OLMLINT_BIN:-}" ]; then
    return 0
  elif [ -z "$version" ]; then
    ap=$(action_path)
    [ -f "$ap/Cargo.lock" ] || fail "no Cargo.lock in the action's checkout ($ap); set the version input"
    # hashFiles() cannot read the action's own files (it only sees the workspace), so hash here.
    # The key names the Cargo.lock hash; the sources are hashed too, or a new action ref with the
    # same Cargo.lock would restore an old binary. CRs are dropped so autocrlf does not matter.
    lock=$(tr -d '\r' <"$ap/Cargo.lock" | sha256_stdin)
    src=$(cd "$ap" && { find Cargo.toml build.rs src rules schemas -type f 2>/dev/null || true; } |
      LC_ALL=C sort | while IFS= read -r f; do
        printf '%s\n' "$f"
        tr -d '\r' <"$f"
      done | sha256_stdin)
    CACHE_KEY="olmlint-action-${os}-${arch}-lock-${lock:0:16}-src-${src:0:16}"
    INSTALL_ROOT="$base/checkout-${lock:0:16}-${src:0:16}"
  elif [ "$version" = "latest" ]; then
    INSTALL_ROOT="$base/latest"
  else
    case $version in
      *[!0-9A-Za-z.+-]*) fail "version '$version' is not a crate version (X.Y.Z), 'latest' or empty" ;;
    esac
    CACHE_KEY="olmlint-action-${os}-${arch}-crate-${version}"
    INSTALL_ROOT="$base/crate-${version}"
  fi
  INSTALL_ROOT=$(native_path "$INSTALL_ROOT")
}

cmd_prepare() {
  compute_prepare
  set_output cache-key "$CACHE_KEY"
  set_output install-root "$INSTALL_ROOT"
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

cmd_install() {
  local version=${INPUT_VERSION:-} root=${OLMLINT_INSTALL_ROOT:-}
  if [ -n "${OLMLINT_BIN:-}" ]; then
    set_output built false
    return 0
  fi
  [ -n "$root" ] || fail "OLMLINT_INSTALL_ROOT is not set (run 'action.sh prepare' first)"
  if [ -n "$(installed_bin "$root")" ] && [ "$version" != "latest" ]; then
    log "using $(installed_bin "$root") (cached)"
    set_output built false
    return 0
  fi
  command -v cargo >/dev/null 2>&1 ||
    fail "cargo not found: add a Rust toolchain step before this action (e.g. dtolnay/rust-toolchain), or set OLMLINT_BIN"
  if [ -z "$version" ]; then
    log "building olmlint from $(action_path)"
    cargo install --path "$(action_path)" --locked --force --root "$root" ||
      fail "cargo install --path $(action_path) failed"
  elif [ "$version" = "latest" ]; then
    cargo install olmlint --locked --force --root "$root" || fail "cargo install olmlint failed"
  else
    cargo install olmlint --version "$version" --locked --force --root "$root" ||
      fail "cargo install olmlint --version $version failed"
  fi
  [ -n "$(installed_bin "$root")" ] || fail "cargo install did not produce $root/bin/olmlint"
  set_output built true
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

cmd_lint() {
  local bin tmp fail_on sarif rc_json rc_gh rc_sarif rc r errors warnings help has_context token
  find_bin
  bin=$BIN
  fail_on=${INPUT_FAIL_ON:-error}
  sarif=${INPUT_SARIF_FILE:-}

  # Arguments shared by every run.
  # (Counted by hand: bash before 4.4 treats an empty array as unset under `set -u`.)
  local -a paths=() extra=() common=() ctx=()
  local word line npaths=0 nctx=0
  # Paths: whitespace- or newline-separated, glob patterns expanded (no match: kept as written,
  # and olmlint reports it).
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    for word in $line; do
      paths+=("$word")
      npaths=$((npaths + 1))
    done
  done <<<"${INPUT_PATHS:-.}"
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
  set +f
  common=(--fail-on "$fail_on")
  if [ -n "${INPUT_CONFIG:-}" ]; then
    common+=(--config "$INPUT_CONFIG")
  fi
  if [ "$nctx" -gt 0 ]; then
    help=$("$bin" lint --help 2>/dev/null || true)
    case $help in
      *--context*) has_context=yes ;;
      *) has_context=no ;;
    esac
    if [ "$has_context" = yes ]; then
      for word in "${ctx[@]}"; do
        common+=(--context "$word")
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

  if [ -n "${RUNNER_TEMP:-}" ]; then
    tmp="$RUNNER_TEMP/olmlint-action-$$"
    mkdir -p "$tmp"
  else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/olmlint-action.XXXXXX")
  fi
  # shellcheck disable=SC2064 # expand $tmp now
  trap "rm -rf '$tmp'" EXIT

  # Run 1: JSON for the counts and the exit code; the human report goes to a collapsed group.
  rc_json=0
  "$bin" lint "${paths[@]}" -f json -o "$tmp/report.json" "${common[@]}" 2>"$tmp/stderr" || rc_json=$?
  if [ "$rc_json" -ge 2 ]; then
    cat "$tmp/stderr" >&2
    fail "olmlint exited with code $rc_json (usage or I/O error): $(head -n 1 "$tmp/stderr")"
  fi
  # The report quotes catalog content: stop workflow-command processing while it is printed, so
  # that a line of a pull request's catalog cannot become a command.
  token=$(od -An -N16 -tx1 /dev/urandom 2>/dev/null | tr -d ' \n' || true)
  token=${token:-olmlint-$$-$RANDOM$RANDOM}
  echo "::group::olmlint report"
  echo "::stop-commands::$token"
  cat "$tmp/stderr"
  echo "::$token::"
  echo "::endgroup::"

  # Run 2: annotations (stdout) and the step summary (olmlint appends it itself).
  # (Its stderr, the same summary line again, is shown only on failure: -q is not passed
  # because a -q in the args input would then be repeated, which olmlint refuses.)
  rc_gh=0
  "$bin" lint "${paths[@]}" -f github "${common[@]}" 2>"$tmp/stderr.github" || rc_gh=$?
  if [ "$rc_gh" -ge 2 ]; then cat "$tmp/stderr.github" >&2; fi

  # Run 3: SARIF, when asked for.
  rc_sarif=0
  if [ -n "$sarif" ]; then
    mkdir -p "$(dirname "$sarif")"
    rm -f "$sarif"
    "$bin" lint "${paths[@]}" -f sarif -o "$sarif" "${common[@]}" 2>"$tmp/stderr.sarif" || rc_sarif=$?
    if [ "$rc_sarif" -ge 2 ]; then cat "$tmp/stderr.sarif" >&2; fi
    if [ ! -f "$sarif" ] && [ "$rc_sarif" -lt 2 ]; then
      # Nothing to lint (e.g. --changed-since with no catalog change): an empty run keeps
      # upload-sarif from failing on a missing file.
      # shellcheck disable=SC2016 # a literal "$schema" key
      printf '%s\n' '{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":{"driver":{"name":"olmlint","informationUri":"https://github.com/olmlint/olmlint","rules":[]}},"results":[]}]}' >"$sarif"
    fi
  fi

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
    if [ -z "${OLMLINT_BIN:-}" ] && [ -z "${OLMLINT_INSTALL_ROOT:-}" ] && ! command -v olmlint >/dev/null 2>&1; then
      compute_prepare
      OLMLINT_INSTALL_ROOT=$INSTALL_ROOT
      export OLMLINT_INSTALL_ROOT
    fi
    if [ -z "${OLMLINT_BIN:-}" ] && [ -n "${OLMLINT_INSTALL_ROOT:-}" ]; then
      cmd_install
    fi
    cmd_lint
    ;;
  -h | --help) sed -n '2,30p' "${BASH_SOURCE[0]}" ;;
  *) fail "unknown command '$1' (prepare, install, lint or none)" ;;
esac
