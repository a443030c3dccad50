#!/usr/bin/env bash
# One entry point that sets everything up on a fresh machine, then runs a job in the project's venv.
#
#   scripts/run.sh demo [args]        MCTS against botbowl's random bot, with search statistics and an XML tree
#   scripts/run.sh test [pytest args] the test suite
#   scripts/run.sh NAME [args]        any scripts/NAME.py (evaluate, inspect_tree, benchmark, soak, ...)
#
# Set-up (skipped when nothing changed): a virtual environment in .venv, botbowl, then this package.
# botbowl is not on the package registry. It comes from, in this order:
#   $BOTBOWL_WHEELS                   a directory holding a botbowl wheel (an error if it does not exist)
#   ../shared/wheels                  beside this checkout, when present
#   GitHub                            upstream at the pinned commit below (or when BOTBOWL_SOURCE=github)
# $PYTHON picks the interpreter for the venv (default: python3.11 if present, else python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MCTS_BOT_VENV:-$ROOT/.venv}"
BOTBOWL_COMMIT="3e550bda3666c39efe478fb9465646af24576665"
BOTBOWL_GIT="botbowl @ git+https://github.com/njustesen/botbowl@$BOTBOWL_COMMIT"

die() { echo "scripts/run.sh: $*" >&2; exit 2; }

usage() {
    sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "scripts available: $(cd "$ROOT/scripts" && ls *.py | sed 's/\.py$//' | tr '\n' ' ')"
}

botbowl_source() {
    if [[ "${BOTBOWL_SOURCE:-}" == "github" ]]; then
        echo "github"
    elif [[ -n "${BOTBOWL_WHEELS:-}" ]]; then
        [[ -d "$BOTBOWL_WHEELS" ]] || die "BOTBOWL_WHEELS=$BOTBOWL_WHEELS is not a directory: point it at a folder holding a botbowl wheel, or unset it"
        (cd "$BOTBOWL_WHEELS" && pwd)
    elif [[ -d "$ROOT/../shared/wheels" ]]; then
        (cd "$ROOT/../shared/wheels" && pwd)
    else
        echo "github"
    fi
}

setup_venv() {
    local python="${PYTHON:-}"
    if [[ -z "$python" ]]; then
        if command -v python3.11 >/dev/null 2>&1; then python=python3.11; else python=python3; fi
    fi
    command -v "$python" >/dev/null 2>&1 || die "no Python interpreter '$python': install Python 3 or set PYTHON"
    if [[ ! -x "$VENV/bin/python" ]]; then
        echo "[setup] creating virtual environment $VENV" >&2
        "$python" -m venv "$VENV" || die "could not create a venv with $python (on Debian: apt install python3-venv)"
    fi
    local source stamp_file want
    source="$(botbowl_source)"
    stamp_file="$VENV/.mcts_bot_setup"
    want="$(cat "$ROOT/setup.py"; echo "$source"; if [[ "$source" != github ]]; then ls "$source"; fi)"
    if [[ -f "$stamp_file" ]] && [[ "$(cat "$stamp_file")" == "$want" ]]; then
        return
    fi
    local pip=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
    if [[ "$source" == "github" ]]; then
        echo "[setup] installing botbowl from GitHub ($BOTBOWL_COMMIT)" >&2
        "${pip[@]}" install "$BOTBOWL_GIT" || die "installing botbowl from GitHub failed (no internet? set BOTBOWL_WHEELS to a folder with a botbowl wheel)"
    else
        echo "[setup] installing botbowl from $source" >&2
        "${pip[@]}" install --find-links "$source" botbowl || die "installing botbowl from $source failed (does it hold a wheel for $("$VENV/bin/python" -V)?)"
    fi
    echo "[setup] installing mcts_bot" >&2
    "${pip[@]}" install -e "$ROOT[test,plot]" || die "installing mcts_bot failed"
    echo "$want" > "$stamp_file"
}

main() {
    local job="${1:-}"
    if [[ -z "$job" || "$job" == "-h" || "$job" == "--help" ]]; then
        usage
        exit 0
    fi
    shift
    if [[ "$job" != "test" && ! -f "$ROOT/scripts/$job.py" ]]; then
        usage >&2
        die "unknown job '$job'"
    fi
    setup_venv
    cd "$ROOT"
    if [[ "$job" == "test" ]]; then
        exec "$VENV/bin/python" -m pytest -n 2 tests "$@"
    fi
    exec "$VENV/bin/python" "$ROOT/scripts/$job.py" "$@"
}

main "$@"
