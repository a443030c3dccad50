#!/usr/bin/env bash
# One entry point that sets everything up on a fresh machine, then runs a job in the project's venv.
#
#   scripts/run.sh demo [args]        MCTS against botbowl's random bot, with search statistics and an XML tree
#   scripts/run.sh test [pytest args] the test suite
#   scripts/run.sh NAME [args]        any scripts/NAME.py (evaluate, inspect_tree, benchmark, soak, ...)
#
# Set-up (skipped when nothing changed): a virtual environment in .venv, botbowl, then this package
# (with Ray and pytest for the tests only). botbowl is not on the package registry. It comes from,
# in this order:
#   $BOTBOWL_WHEELS                   a directory holding a botbowl wheel (an error if it does not exist)
#   ../shared/wheels                  beside this checkout, when present
#   GitHub                            upstream at the pinned commit below (or when BOTBOWL_SOURCE=github)
# A wheel directory is the only place pip looks for botbowl itself (version $BOTBOWL_VERSION); botbowl's
# own dependencies come from the registry.
# $PYTHON picks the interpreter for the venv (default: python3.11 if present, else python3); a venv
# built on another interpreter is rebuilt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${MCTS_BOT_VENV:-$ROOT/.venv}"
BOTBOWL_VERSION="1.1.0"
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

# The extras of this package a job needs: the tests run everything, the Ray backend's test included.
extras_for() {
    if [[ "$1" == "test" ]]; then echo "plot,ray,test"; else echo "plot"; fi
}

# The union of two comma-separated lists, sorted.
union() {
    echo "$1,$2" | tr ',' '\n' | sed '/^$/d' | sort -u | paste -sd, -
}

install_botbowl() {
    local source="$1" pip=("${@:2}")
    if [[ "$source" == "github" ]]; then
        echo "[setup] installing botbowl from GitHub ($BOTBOWL_COMMIT)" >&2
        "${pip[@]}" install "$BOTBOWL_GIT" || die "installing botbowl from GitHub failed (no internet? set BOTBOWL_WHEELS to a folder with a botbowl wheel)"
        return
    fi
    echo "[setup] installing botbowl $BOTBOWL_VERSION from $source" >&2
    # botbowl itself from the folder only (no registry can offer another botbowl, and none is asked),
    # then the dependencies its wheel declares, from the registry.
    "${pip[@]}" install --no-index --find-links "$source" --no-deps "botbowl==$BOTBOWL_VERSION" \
        || die "installing botbowl from $source failed (does it hold botbowl $BOTBOWL_VERSION for $("$VENV/bin/python" -V)?)"
    local requirements=()
    mapfile -t requirements < <("$VENV/bin/python" -c 'import importlib.metadata as m
print("\n".join(r for r in m.requires("botbowl") or [] if "extra ==" not in r))')
    if (( ${#requirements[@]} )); then
        "${pip[@]}" install "${requirements[@]}" || die "installing botbowl's dependencies failed"
    fi
}

setup_venv() {
    local extras="$1" python="${PYTHON:-}"
    if [[ -z "$python" ]]; then
        if command -v python3.11 >/dev/null 2>&1; then python=python3.11; else python=python3; fi
    fi
    command -v "$python" >/dev/null 2>&1 || die "no Python interpreter '$python': install Python 3 or set PYTHON"
    local interpreter
    interpreter="$("$python" -c 'import sys; print(sys.executable)') $("$python" -VV)"
    if [[ ! -x "$VENV/bin/python" ]] || [[ "$("$VENV/bin/python" -VV 2>&1 || true)" != "$("$python" -VV)" ]]; then
        echo "[setup] creating virtual environment $VENV ($interpreter)" >&2
        "$python" -m venv --clear "$VENV" || die "could not create a venv with $python (on Debian: apt install python3-venv)"
    fi
    local source stamp_file want installed=""
    source="$(botbowl_source)"
    stamp_file="$VENV/.mcts_bot_setup"
    want="$(cat "$ROOT/setup.py"; echo "$source"; if [[ "$source" != github ]]; then ls "$source"; fi
            echo "python: $interpreter")"
    if [[ -f "$stamp_file" ]] && [[ "$(sed '$d' "$stamp_file")" == "$want" ]]; then
        installed="$(tail -n 1 "$stamp_file")"
        if [[ "$(union "$installed" "$extras")" == "$installed" ]]; then
            return
        fi
    fi
    local pip=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
    if [[ -z "$installed" ]]; then
        install_botbowl "$source" "${pip[@]}"
    fi
    extras="$(union "$installed" "$extras")"
    echo "[setup] installing mcts_bot[$extras]" >&2
    "${pip[@]}" install -e "$ROOT[$extras]" || die "installing mcts_bot failed"
    printf '%s\n%s\n' "$want" "$extras" > "$stamp_file"
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
    setup_venv "$(extras_for "$job")"
    cd "$ROOT"
    if [[ "$job" == "test" ]]; then
        exec "$VENV/bin/python" -m pytest -n 2 tests "$@"
    fi
    exec "$VENV/bin/python" "$ROOT/scripts/$job.py" "$@"
}

main "$@"
