#!/usr/bin/env python3
"""Search speed on fixed, seeded positions of each board size.

For every board it reports iterations per second and where the time goes: copying the game,
botbowl's step/revert (the forward model) and the search's own work (selection, hashing, node
creation, evaluation, backup), and of that own work the share of three plug-ins: the priors, the
rollout policy's decisions and the leaf value (the heuristic). With --profile it also prints the
top functions by own time.

With --compare PART it times every search with and without one part, interleaved: the search
copy's memo of botbowl's paths (`paths-memo`, `mcts_bot/adapter/search_copy.py`), its memo of
set-ups (`setup-memo`: formations and each team's half of the pitch, same file), its list of each
square's neighbours (`neighbours`, same file), the faster bookkeeping of botbowl's forward model
and squares (`fast-reversible`, `mcts_bot/adapter/fast_reversible.py`), following a step that
threw no dice to its one known outcome without hashing the state (`dice-free-hash`,
`mcts_bot/core/search.py`), remembering a costly policy's choices per state (`choice-memo`:
`RememberedChoice` in `mcts_bot/core/policies.py`, `grod`'s for the default on 11 players), or the
priors computed by the learned policy's model instead of the knowledge priors (`learned-policy`,
`mcts_bot/knowledge/policy.py`: `--policy FILE`, else generation 0, which gives the same priors and
so the same trees: the difference is the model's own cost).

With --workers 1 2 it compares instead the iterations per decision of `MCTSBot(workers=N)` at the
same seconds per decision, on the same positions, the settings interleaved position by position
(iterations of all the workers' searches: merged at the root, or played in the one tree with
`--parallel tree`; `--parallel root tree` compares both), and, for reference, how many iterations
the same number of independent searches do at once in separate processes against one alone: the
most this machine's cores can give the workers.
"""
import argparse
import cProfile
import itertools
import pstats
import time
from pathlib import Path
from typing import Tuple

import numpy as np

import mcts_bot
from mcts_bot.adapter import fast_reversible
from mcts_bot.adapter.actions import legal_actions
from mcts_bot.adapter.search_copy import SearchGame
from mcts_bot.agent import PARALLEL_SCHEMES
from mcts_bot.core.policies import RememberedChoice
from mcts_bot.core.search import Budget, Search
from mcts_bot.harness import cli
from mcts_bot.harness.games import BOARD_SIZES, random_position
from mcts_bot.knowledge.policy import PolicyModel
from mcts_bot.parallel.workers import process_context
from mcts_bot.presets import planning_choice

# Positions: (seed, random steps from the start); each lands in the middle of a drive.
POSITIONS = ((1, 40), (2, 80), (3, 120))


def _switch_paths_memo(on: bool) -> None:
    SearchGame.remember_paths = on


def _switch_setup_memo(on: bool) -> None:
    SearchGame.remember_setups = on


def _switch_neighbours(on: bool) -> None:
    SearchGame.remember_neighbours = on


def _switch_dice_free_hash(on: bool) -> None:
    Search.skip_dice_free_hash = on


def _switch_choice_memo(on: bool) -> None:
    RememberedChoice.enabled = on


def _switch_fast_reversible(on: bool) -> None:
    fast_reversible.ENABLED = on


class SwitchedPriors:
    """The learned policy's priors while `on`, else the preset's own."""

    on = True

    def __init__(self, own, policy: PolicyModel):
        self.own, self.policy = own, policy

    def __call__(self, game, actions):
        return self.policy(game, actions) if SwitchedPriors.on else self.own(game, actions)


def _switch_learned_policy(on: bool) -> None:
    SwitchedPriors.on = on


TIMED_PARTS = ("priors", "rollout_policy", "heuristic")  # plug-ins whose own time the table shows


class Timed:
    """A plug-in that adds up the time spent in it (its own work: the rollout policy's steps are
    botbowl's, timed by the search)."""

    def __init__(self, function):
        self.function = function
        self.seconds = 0.0

    def __call__(self, *args):
        start = time.perf_counter()
        try:
            return self.function(*args)
        finally:
            self.seconds += time.perf_counter() - start

    def take(self) -> float:
        """The seconds added up since the last take."""
        seconds, self.seconds = self.seconds, 0.0
        return seconds


# The parts --compare can switch off, each by a function of on/off.
PARTS = {"paths-memo": _switch_paths_memo, "setup-memo": _switch_setup_memo, "neighbours": _switch_neighbours,
         "fast-reversible": _switch_fast_reversible, "dice-free-hash": _switch_dice_free_hash,
         "learned-policy": _switch_learned_policy, "choice-memo": _switch_choice_memo}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boards", type=cli.board_size, nargs="+", default=list(BOARD_SIZES),
                        help="board sizes (default: all)")
    cli.add_preset_argument(parser)
    parser.add_argument("--rollouts", choices=["on", "off"], help="override the preset's rollouts")
    parser.add_argument("--compare", choices=sorted(PARTS),
                        help="time each search with and without this part, interleaved (default: all parts on)")
    parser.add_argument("--policy", type=Path, default=None, metavar="FILE",
                        help="with --compare learned-policy: the trained model (default: generation 0)")
    parser.add_argument("--profile", action="store_true", help="also profile the searches and print the hot spots")
    parser.add_argument("--workers", type=cli.positive_int, nargs="+", metavar="N",
                        help="compare these numbers of search workers at a seconds budget (default 1 s)")
    parser.add_argument("--parallel", nargs="+", choices=PARALLEL_SCHEMES, default=["root"],
                        help="with --workers: the ways several workers share a decision to compare (default root)")
    parser.add_argument("--repeats", type=cli.positive_int,
                        help="searches per position and setting, of which the one with the most iterations per "
                             "second counts (default 1); with --workers: decisions per position and setting, each "
                             "by a new bot (default 3)")
    cli.add_budget_arguments(parser, default=None)
    args = parser.parse_args()
    budget = cli.budget_from_args(args)
    if args.workers:
        if budget is not None and budget.seconds is None:
            parser.error("--workers compares searches at a seconds budget: give --seconds, not --iterations")
        compare_workers(args.boards, args.workers, budget.seconds if budget else 1.0, args.preset, args.parallel,
                        args.repeats or 3)
        return
    budget = budget or Budget(iterations=300)
    rollouts = None if args.rollouts is None else args.rollouts == "on"
    preset = mcts_bot.configure(args.preset, rollouts=rollouts)
    if args.compare == "learned-policy":
        if preset.priors is None:
            parser.error(f"the preset {preset.name!r} has no priors for a policy to replace")
        try:
            policy = PolicyModel.load(args.policy) if args.policy else PolicyModel.initial()
        except (FileNotFoundError, ValueError) as exc:
            parser.error(str(exc))
        preset = mcts_bot.configure(preset, priors=SwitchedPriors(preset.priors, policy.with_choice(
            planning_choice(preset))))
    # The plug-ins timed on their own: three parts of the search's own share.
    timed = {name: Timed(getattr(preset, name)) for name in TIMED_PARTS if getattr(preset, name) is not None}
    preset = mcts_bot.configure(preset, **timed)

    settings = [True, False] if args.compare else [True]
    switch = PARTS[args.compare] if args.compare else (lambda on: None)
    repeats = f", the fastest of {args.repeats} searches each" if args.repeats and args.repeats > 1 else ""
    print(f"preset {preset.name}, rollouts {'on' if preset.rollouts else 'off'}, {budget}, "
          f"positions (seed, steps) {POSITIONS}{repeats}\n")
    print(f"| Board | {args.compare or 'Parts'} | Searches | Iterations | Iterations/s | Copy ms | botbowl share "
          f"| own share | own: priors | own: rollout policy | own: leaf value | Nodes |")
    print("|------:|-----------|---------:|-----------:|-------------:|--------:|--------------:|----------:"
          "|---:|---:|---:|------:|")
    profiler = cProfile.Profile() if args.profile else None
    for board in args.boards:
        runs = {on: [] for on in settings}
        part_seconds = {on: {name: 0.0 for name in TIMED_PARTS} for on in settings}
        for seed, steps in POSITIONS:
            game = random_position(board, seed=seed, steps=steps)
            if game.state.game_over:
                continue
            for on in settings:  # interleaved: the machine's load falls on every setting alike
                switch(on)
                fastest = None
                for _ in range(args.repeats or 1):  # the least disturbed by the machine's other work counts
                    if profiler:
                        profiler.enable()
                    result = mcts_bot.run_search(game, budget=budget, preset=preset, rng=np.random.RandomState(seed))
                    if profiler:
                        profiler.disable()
                    parts = {name: part.take() for name, part in timed.items()}
                    rate = result.stats.iterations / result.stats.seconds
                    if fastest is None or rate > fastest[0]:
                        fastest = (rate, result.stats, parts)
                runs[on].append(fastest[1])
                for name, seconds in fastest[2].items():
                    part_seconds[on][name] += seconds
        for on, stats in runs.items():
            iterations = sum(s.iterations for s in stats)
            seconds = sum(s.seconds for s in stats)
            copying = sum(s.copy_seconds for s in stats)
            in_botbowl = sum(s.botbowl_seconds for s in stats)
            iterating = seconds - copying
            parts = " | ".join(f"{100 * part_seconds[on][name] / iterating:.1f}%" for name in TIMED_PARTS)
            label = ('on' if on else 'off') if args.compare else 'all on'
            print(f"| {board} | {label} | {len(stats)} | {iterations} | {iterations / seconds:.0f} "
                  f"| {1000 * copying / len(stats):.0f} | {100 * in_botbowl / iterating:.1f}% "
                  f"| {100 * (iterating - in_botbowl) / iterating:.1f}% | {parts} | {sum(s.nodes for s in stats)} |")
    switch(True)
    if profiler:
        print()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def _iterations(game, seconds: float, preset: str, seed: int) -> int:
    return mcts_bot.run_search(game, budget=Budget(seconds=seconds), preset=mcts_bot.configure(preset),
                               rng=np.random.RandomState(seed)).stats.iterations


def _side_search(conn, game, seconds: float, preset: str, seed: int) -> None:
    conn.send(_iterations(game, seconds, preset, seed))


def independent_searches(game, processes: int, seconds: float, preset: str, seed: int) -> Tuple[int, int]:
    """Iterations of one search alone, and the sum of `processes` searches run at once in as many
    processes, each on its own (no workers, nothing merged): how much this machine's cores give
    independent searches, the ceiling of what search workers can add."""
    alone = _iterations(game, seconds, preset, seed)
    context = process_context()
    sides = []
    for i in range(1, processes):
        ours, theirs = context.Pipe()
        process = context.Process(target=_side_search, args=(theirs, game, seconds, preset, seed + i))
        process.start()
        sides.append((process, ours))
    together = _iterations(game, seconds, preset, seed)
    for process, conn in sides:
        together += conn.recv()
        process.join()
    return alone, together


def compare_workers(boards, counts, seconds: float, preset: str, schemes=("root",), repeats: int = 3) -> None:
    """Iterations per decision of `MCTSBot(workers=n, parallel=scheme)` for each count and scheme
    (one worker: no scheme), on the same positions, interleaved position by position, `repeats`
    decisions each (a new bot for each: a single decision's count varies with the machine's load);
    and, if any, how many decisions of each setting had a search or a worker fail."""
    settings = [(n, scheme) for n in counts for scheme in (schemes if n > 1 else ("root",))]
    labels = [f"{n} worker(s)" + (f", {scheme}" if n > 1 else "") for n, scheme in settings]
    top = max(counts)
    print(f"preset {preset}, {seconds:g} s per decision, positions (seed, steps) {POSITIONS}, "
          f"{repeats} decision(s) each\n")
    print("| Board | " + " | ".join(f"{label}: iterations per decision" for label in labels)
          + f" | ratio to the first | {top} independent searches at once / 1 |")
    print("|------:|" + "---:|" * (len(settings) + 2))
    failed = {setting: 0 for setting in settings}  # decisions in which a search or a worker failed
    for board in boards:
        iterations = {setting: [] for setting in settings}
        alone, together = [], []
        for seed, steps in POSITIONS:
            game = random_position(board, seed=seed, steps=steps)
            if game.state.game_over or len(legal_actions(game)) < 2:
                continue  # no search to time here
            # Interleaved: the machine's load falls on every setting alike.
            for repeat, (n, scheme) in itertools.product(range(repeats), settings):
                bot = mcts_bot.MCTSBot(seconds=seconds, preset=preset, seed=seed + repeat, workers=n, parallel=scheme)
                bot.new_game(game, game.active_team)
                bot.act(game)
                iterations[n, scheme].append(bot.last_stats.iterations + bot.last_stats.merged_iterations)
                failed[n, scheme] += bot.totals.errors
                bot.end_game(game)
            one, many = independent_searches(game, top, seconds, preset, seed)
            alone.append(one)
            together.append(many)
        means = [float(np.mean(iterations[setting])) for setting in settings]
        ratios = " / ".join(f"{m / means[0]:.2f}x" for m in means[1:])
        print(f"| {board} | " + " | ".join(f"{m:.0f}" for m in means) + f" | {ratios} "
              f"| {sum(together) / max(1, sum(alone)):.2f}x |")
    if any(failed.values()):  # a helper that failed lowers its setting's count: say so
        print("\ndecisions with a failed search or worker: "
              + ", ".join(f"{label}: {failed[setting]}" for label, setting in zip(labels, settings)))


if __name__ == "__main__":
    main()
