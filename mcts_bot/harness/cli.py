"""Argument parsing shared by the scripts: each flag is defined and checked in one place."""
from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Optional

from mcts_bot.agent import PARALLEL_SCHEMES
from mcts_bot.core.search import Budget
from mcts_bot.harness.games import BOARD_SIZES
from mcts_bot.harness.parallel import BACKENDS
from mcts_bot.presets import PRESETS


def available_cores() -> int:
    """The cores this process may run on: its CPU affinity, capped by a container's CPU quota
    (cgroup v2 `cpu.max`), where `os.cpu_count()` counts every core of the machine."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cores)


def _number(text: str, convert, what: str):
    try:
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive_float(text: str) -> float:
    value = _number(text, float, "a number")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} must be greater than 0")
    return value


def positive_int(text: str) -> int:
    value = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return value


def non_negative_int(text: str) -> int:
    value = _number(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must be 0 or more")
    return value


def board_size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in BOARD_SIZES:
        raise argparse.ArgumentTypeError(
            f"unknown board size {text!r}: choose one of {', '.join(map(str, BOARD_SIZES))}")
    return value


def preset_name(text: str) -> str:
    if text not in PRESETS:
        raise argparse.ArgumentTypeError(f"unknown preset {text!r}: choose one of {', '.join(sorted(PRESETS))}")
    return text


OPPONENT_HELP = ("random, scripted (the rule-based sparring partner), grod (the risk-scoring one), policy / "
                 "policy:FILE.npz (the knowledge priors or a learned policy alone, no search), any bot "
                 "registered with botbowl, mcts / mcts-<preset> for another MCTS configuration with the same "
                 "budget, or a bot of your own as path/to/file.py:ClassName (a botbowl Agent subclass)")


def add_opponent_argument(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--opponent", default=default, help=f"{OPPONENT_HELP} (default {default})")


def add_board_argument(parser: argparse.ArgumentParser, default: int) -> None:
    parser.add_argument("--board", type=board_size, default=default,
                        help=f"players per side: {', '.join(map(str, BOARD_SIZES))} (default {default})")


def add_preset_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", type=preset_name, default="default",
                        help="MCTS preset: default, vanilla (the seed's) or an ablation (default: default)")


def add_search_workers_argument(parser: argparse.ArgumentParser, flag: str = "--workers",
                                default: Optional[int] = None) -> None:
    """The processes MCTS searches each decision with (`MCTSBot(workers=...)`; default: the
    available cores), and how they share it (`--parallel`, `MCTSBot(parallel=...)`)."""
    default = available_cores() if default is None else default
    parser.add_argument(flag, type=positive_int, default=default, dest="search_workers", metavar="N",
                        help=f"processes searching each MCTS decision (default {default}"
                             f"{': the number of cores' if flag == '--workers' else ''})")
    parser.add_argument("--parallel", choices=PARALLEL_SCHEMES, default="root",
                        help="how several search processes share a decision: root (each its own tree, merged at "
                             "the root; the default) or tree (one tree whose iterations every process plays)")


def add_worker_arguments(parser: argparse.ArgumentParser) -> None:
    """--workers, --backend and --ray-address, for scripts that play many games at once."""
    parser.add_argument("--workers", type=positive_int, default=available_cores(),
                        help="games played in parallel (default: the number of cores)")
    parser.add_argument("--backend", choices=list(BACKENDS), default="local",
                        help="local processes (default) or Ray tasks (needs pip install 'mcts_bot[ray]')")
    parser.add_argument("--ray-address", default=None,
                        help="a Ray cluster to join (default: start a local Ray with --workers CPUs)")


def check_ray(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A clear error before any game is played when --backend ray is asked for without Ray."""
    if args.backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error("--backend ray needs Ray: pip install 'mcts_bot[ray]' (or pip install ray)")


def add_budget_arguments(parser: argparse.ArgumentParser, default: Optional[Budget]) -> None:
    """--seconds and --iterations; `default` applies when neither is given."""
    group = parser.add_argument_group("search budget per decision (the search stops at whichever comes first; "
                                      f"default: {default or 'none'})")
    group.add_argument("--seconds", type=positive_float, help="seconds per decision")
    group.add_argument("--iterations", type=positive_int, help="iterations per decision")
    parser.set_defaults(default_budget=default)


def budget_from_args(args: argparse.Namespace) -> Optional[Budget]:
    if args.seconds is None and args.iterations is None:
        return args.default_budget
    return Budget(seconds=args.seconds, iterations=args.iterations)
