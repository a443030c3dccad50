"""Probe: does the search leave its carrier thinner in the turns where it overrules its priors?
(docs/bot-bowl-board.md, "The carrier's guards after the search's overrules").

Reads recorded games (`scripts/run.sh trace --record DIR`) and traces each again as it is replayed
from its seed and moves (`trace.GameTracer`, told of each decision where the recording bot's search
played another child than its priors' first choice); nothing is searched. The counts are the trace's
own, the carrier's guards at the turn ends after a turn with an overrule among them, so games
recorded before the trace counted those (commit `ec63154`) are counted as a trace of today would.

    .venv/bin/python docs/probes/overrule_guards.py data/searches-11/grod-40000 data/searches-11/grod-42000
"""
import argparse
from pathlib import Path
from typing import Dict, List, Tuple

import botbowl
import numpy as np

from mcts_bot.harness.collect import saved_games
from mcts_bot.harness.selfplay import read_game, recorded_action, replay_moves
from mcts_bot.harness.trace import GUARDS, Counts, GameTracer


def overruled_moves(record: dict) -> Dict[int, bool]:
    """The game's move numbers at which the recording bot's search played another child than its
    priors' first choice, each with whether the deciding team was the home team."""
    offsets, prior, chosen = record["offsets"], record["prior"], record["chosen"]
    return {int(record["move"][i]): bool(record["home"][i]) for i in np.flatnonzero(~record["by_opponent"])
            if int(chosen[i]) != int(np.argmax(prior[offsets[i]:offsets[i + 1]]))}


def retrace(record: dict) -> Counts:
    """The recording bot's trace counts of a recorded game, replayed."""
    overruled = overruled_moves(record)
    moves = list(zip(record["move_type"], record["move_player"], record["move_xy"]))
    seen = {}

    def at_move(i: int, game: botbowl.Game) -> None:
        if not seen:
            seen.update(game=game, tracer=GameTracer(game))
        tracer = seen["tracer"]
        tracer.observe(game)
        if i in overruled:
            tracer.overruled_in_turn((game.state.home_team if overruled[i] else game.state.away_team).team_id)
        tracer.chosen(game, recorded_action(game, *moves[i]))

    replay_moves(record, at_move)
    game, tracer = seen["game"], seen["tracer"]
    tracer.finish(game)
    team = game.state.home_team if bool(record["home"][0]) else game.state.away_team
    return tracer.counts[team.team_id]


def by_overrule(counts: Counts) -> Dict[str, Tuple[List[int], List[int]]]:
    """The turn ends with the ball by the carrier's guards (0, 1, 2+), and of those the ones a turnover
    cut short, after turns without an overrule and with one."""
    ends, cut = ([getattr(counts, f"{prefix}{k}") for k in GUARDS] for prefix in ("", "turnover_ended_"))
    over, over_cut = ([getattr(counts, f"overruled_{prefix}{k}") for k in GUARDS] for prefix in ("", "turnover_ended_"))
    return {"without an overrule": ([a - b for a, b in zip(ends, over)], [a - b for a, b in zip(cut, over_cut)]),
            "with an overrule": (over, over_cut)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", type=Path, nargs="+", help="folders of recorded games (trace --record)")
    args = parser.parse_args()
    paths = saved_games(args.folders)
    if not paths:
        parser.error(f"no recorded games (*.npz) in {', '.join(map(str, args.folders))}: record some with "
                     "scripts/run.sh trace ... --record DIR")
    total = Counts()
    for n, path in enumerate(paths, 1):
        total.add(retrace(read_game(path)))
        print(f"{n}/{len(paths)} games", flush=True)
    print(f"\n| Turns ({len(paths)} games) | Turn ends with the ball | Guards 0 / 1 / 2+ "
          "| Cut short by a turnover (0 / 1 / 2+ guards) |\n|---|---:|---|---|")
    for name, (ends, cut) in by_overrule(total).items():
        n = sum(ends)
        shares = " / ".join(f"{100 * k / n:.0f}%" for k in ends) if n else "-"
        print(f"| {name} | {n} | {shares} | {' / '.join(f'{c}/{e}' for c, e in zip(cut, ends))} |")


if __name__ == "__main__":
    main()
