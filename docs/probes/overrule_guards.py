"""Probe: does the search leave its carrier thinner in the turns where it overrules its priors?
(docs/bot-bowl-board.md, "The carrier's guards after the search's overrules").

Reads recorded games (`scripts/run.sh trace --record DIR`) and traces each again as it is replayed
from its seed and moves (`trace.GameTracer`, told of each decision where the recording bot's search
played another child than its priors' first choice); nothing is searched. The counts are the trace's
own, the carrier's guards at the turn ends after a turn with an overrule among them, so games
recorded before the trace counted those (commit `ec63154`) are counted as a trace of today would.
Each overrule in a turn with the ball is also told apart by what it changed (`overrule_kind`: at the
start of a player action or within one; the player the search chose and the one its priors chose,
each the carrier, one of his guards or another) and counted by how its turn ended.

    .venv/bin/python docs/probes/overrule_guards.py data/searches-11/grod-40000 data/searches-11/grod-42000
"""
from collections import Counter
from typing import Dict, List, Optional, Tuple

import botbowl
import numpy as np

from mcts_bot.harness import probing
from mcts_bot.harness.selfplay import player_of, read_game, recorded_action, replay_moves
from mcts_bot.harness.trace import GUARDS, Counts, GameTracer


def overruled_moves(record: dict) -> Dict[int, bool]:
    """The game's move numbers at which the recording bot's search played another child than its
    priors' first choice, each with whether the deciding team was the home team."""
    offsets, prior, chosen = record["offsets"], record["prior"], record["chosen"]
    return {int(record["move"][i]): bool(record["home"][i]) for i in np.flatnonzero(~record["by_opponent"])
            if int(chosen[i]) != int(np.argmax(prior[offsets[i]:offsets[i + 1]]))}


def role(game: botbowl.Game, player) -> str:
    """A player of the team to act, beside its carrier: "carrier", "guard" (standing next to him) or "other"."""
    carrier = game.get_ball_carrier()
    if player is None or carrier is None or player.position is None:
        return "other"
    if player is carrier:
        return "carrier"
    return "guard" if player.state.up and player.position.distance(carrier.position) == 1 else "other"


def overrule_kind(game: botbowl.Game, record: dict, decision: int) -> Optional[str]:
    """What the overrule at `decision` (a row of the record, `game` at its state) changed, where the team
    to act holds the ball: "start: CHOSEN over FIRST" (whose player action the search started first)
    or "within: ROLE" (the acting player's step, block, push...); None without our carrier."""
    carrier = game.get_ball_carrier()
    if carrier is None or carrier.team is not game.active_team:
        return None
    lo, hi = record["offsets"][decision], record["offsets"][decision + 1]
    first, chosen = lo + int(np.argmax(record["prior"][lo:hi])), lo + int(record["chosen"][decision])
    players = [player_of(game, str(record["child_player"][row])) for row in (chosen, first)]
    if all(player is not None for player in players):
        return "start: {} over {}".format(*(role(game, player) for player in players))
    return f"within: {role(game, game.state.active_player)}"


def retrace(record: dict, kinds: Optional[Counter] = None) -> Counts:
    """The recording bot's trace counts of a recorded game, replayed; with `kinds`, each overrule of a turn
    with the ball counted there as (`overrule_kind`, the guards at its turn's end, or "no end": the ball
    lost before it)."""
    overruled = overruled_moves(record)
    decision_at = {int(move): i for i, move in enumerate(record["move"]) if not record["by_opponent"][i]}
    moves = list(zip(record["move_type"], record["move_player"], record["move_xy"]))
    seen = {}
    pending: List[str] = []  # the overrules of the recording team's current turn

    def settle(team_id: str, before: List[int]) -> None:
        ends = [getattr(seen["tracer"].counts[team_id], k) for k in GUARDS]
        ended = [k for k, a, b in zip(GUARDS, ends, before) if a > b]
        if kinds is not None and ended:
            kinds.update((kind, ended[0]) for kind in pending)
            pending.clear()

    def at_move(i: int, game: botbowl.Game) -> None:
        if not seen:
            team = game.state.home_team if bool(record["home"][0]) else game.state.away_team
            seen.update(game=game, tracer=GameTracer(game), team=team.team_id, turn=None)
        tracer, team_id = seen["tracer"], seen["team"]
        before = [getattr(tracer.counts[team_id], k) for k in GUARDS]
        tracer.observe(game)
        settle(team_id, before)
        current = game.state.current_team  # whose turn it is (the team to act may be the other, as for a push)
        turn = (game.state.half, current.team_id if current else None, current.state.turn if current else None)
        if turn != seen["turn"] and kinds is not None:
            kinds.update((kind, "no end") for kind in pending)  # that turn ended without the ball
            pending.clear()
        seen["turn"] = turn
        if i in overruled:
            tracer.overruled_in_turn((game.state.home_team if overruled[i] else game.state.away_team).team_id)
            kind = overrule_kind(game, record, decision_at[i])
            if kind is not None:
                pending.append(kind)
        before = [getattr(tracer.counts[team_id], k) for k in GUARDS]
        tracer.chosen(game, recorded_action(game, *moves[i]))
        settle(team_id, before)

    replay_moves(record, at_move)
    game, tracer = seen["game"], seen["tracer"]
    before = [getattr(tracer.counts[seen["team"]], k) for k in GUARDS]
    tracer.finish(game)
    settle(seen["team"], before)
    if kinds is not None:
        kinds.update((kind, "no end") for kind in pending)
    return tracer.counts[seen["team"]]


def by_overrule(counts: Counts) -> Dict[str, Tuple[List[int], List[int]]]:
    """The turn ends with the ball by the carrier's guards (0, 1, 2+), and of those the ones a turnover
    cut short, after turns without an overrule and with one."""
    ends, cut = ([getattr(counts, f"{prefix}{k}") for k in GUARDS] for prefix in ("", "turnover_ended_"))
    over, over_cut = ([getattr(counts, f"overruled_{prefix}{k}") for k in GUARDS] for prefix in ("", "turnover_ended_"))
    return {"without an overrule": ([a - b for a, b in zip(ends, over)], [a - b for a, b in zip(cut, over_cut)]),
            "with an overrule": (over, over_cut)}


def main() -> None:
    paths = probing.recorded_games(__doc__)
    total, kinds = Counts(), Counter()
    for n, path in enumerate(paths, 1):
        total.add(retrace(read_game(path), kinds))
        print(f"{n}/{len(paths)} games", flush=True)
    print(f"\n| Turns ({len(paths)} games) | Turn ends with the ball | Guards 0 / 1 / 2+ "
          "| Cut short by a turnover (0 / 1 / 2+ guards) |\n|---|---:|---|---|")
    for name, (ends, cut) in by_overrule(total).items():
        n = sum(ends)
        shares = " / ".join(f"{100 * k / n:.0f}%" for k in ends) if n else "-"
        print(f"| {name} | {n} | {shares} | {' / '.join(f'{c}/{e}' for c, e in zip(cut, ends))} |")
    print("\n| Overrules with our carrier on the pitch | All | Turn ended: 0 / 1 / 2+ guards | ball lost before |"
          "\n|---|---:|---|---:|")
    for kind in sorted({kind for kind, _ in kinds}, key=lambda k: -sum(v for (q, _), v in kinds.items() if q == k)):
        row = [kinds[(kind, end)] for end in GUARDS + ("no end",)]
        print(f"| {kind} | {sum(row)} | {' / '.join(map(str, row[:3]))} | {row[3]} |")


if __name__ == "__main__":
    main()
