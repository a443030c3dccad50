"""Probe: which player actions the search starts against its priors, and whether a once-a-turn
action so started did its own thing (docs/bot-bowl-board.md, "Blitzes the search started, spent on
a move").

Reads recorded games (`scripts/run.sh trace --record DIR`); nothing is played. Each searched
decision whose chosen action starts a player action (START_*): the priors' first choice and the
chosen one, and for each blitz, pass, hand-off or foul whether the player blocked, threw, handed
off or fouled before his action ended (the game's moves after it, up to the next START_* or
END_PLAYER_TURN), whether the search had visited the same player's START_MOVE at all, and the
chosen child's mean value less the first choice's.

    .venv/bin/python docs/probes/start_overrules.py data/searches-11/grod-38000
"""
from collections import Counter
from typing import Dict, Iterator, List

import numpy as np
from botbowl.core import ActionType

from mcts_bot.core.policies import IDLE_AS_MOVE
from mcts_bot.harness import probing
from mcts_bot.harness.selfplay import read_game

STARTS = frozenset(t.value for t in (ActionType.START_MOVE, ActionType.START_BLOCK, ActionType.START_BLITZ,
                                     ActionType.START_PASS, ActionType.START_HANDOFF, ActionType.START_FOUL))
# What closes a player action in the game's moves: another one started, or the end of his or the team's turn.
CLOSERS = STARTS | {ActionType.END_PLAYER_TURN.value, ActionType.END_TURN.value}


# Each once-a-turn action and the act it is started for: the bot's own map.
ONCE_A_TURN = {start.value: act.value for start, act in IDLE_AS_MOVE.items()}


def used_after(move_type: np.ndarray, start: int, act: int = ActionType.BLOCK.value) -> bool:
    """Whether `act` follows the move at `start` before the player action closes."""
    for kind in move_type[start + 1:]:
        if kind == act:
            return True
        if kind in CLOSERS:
            return False
    return False


def starts(record: dict) -> Iterator[dict]:
    """The recording bot's searched decisions that started a player action, one dict each."""
    offsets, chosen, action_type = record["offsets"], record["chosen"], record["action_type"]
    for i in np.flatnonzero(~record["by_opponent"]):
        lo, hi = offsets[i], offsets[i + 1]
        pick, first = lo + chosen[i], lo + int(np.argmax(record["prior"][lo:hi]))
        if action_type[pick] not in STARTS:
            continue
        row = {"chosen": ActionType(int(action_type[pick])).name, "first": ActionType(int(action_type[first])).name,
               "overrule": pick != first, "gain": float(record["q"][pick] - record["q"][first])}
        if action_type[pick] in ONCE_A_TURN:
            player = record["child_player"][pick]
            moves = [c for c in range(lo, hi) if record["child_player"][c] == player
                     and action_type[c] == ActionType.START_MOVE.value]
            row["used"] = used_after(record["move_type"], int(record["move"][i]), ONCE_A_TURN[int(action_type[pick])])
            row["move_visited"] = bool(moves) and int(record["visits"][moves[0]]) > 0
        yield row


def summary(rows: List[dict]) -> Dict[str, object]:
    """Counts over the decisions of `starts`: overrules by (first choice, chosen), and per once-a-turn
    action (START_BLITZ, ...) and by whom it was started ("prior" or "overrule") whether it was used."""
    overrules = Counter((r["first"], r["chosen"]) for r in rows if r["overrule"])
    once = {}
    for start in (ActionType(kind).name for kind in ONCE_A_TURN):
        for by in ("prior", "overrule"):
            group = [r for r in rows if r["chosen"] == start and r["overrule"] == (by == "overrule")]
            unused = [r for r in group if not r["used"]]
            once[start, by] = {"started": len(group), "unused": len(unused),
                               "unused, move unvisited": sum(not r["move_visited"] for r in unused),
                               "mean gain, used": _mean([r["gain"] for r in group if r["used"]]),
                               "mean gain, unused": _mean([r["gain"] for r in unused])}
    return {"starts": len(rows), "overruled": sum(overrules.values()), "overrules": overrules, "once": once}


def _mean(values: List[float]) -> float:
    return float(np.mean(values)) if values else float("nan")


def _signed(value: float) -> str:
    return "-" if np.isnan(value) else f"{value:+.3f}"


def main() -> None:
    paths = probing.recorded_games(__doc__)
    result = summary([row for path in paths for row in starts(read_game(path))])
    print(f"{len(paths)} games: {result['starts']} player actions started by a search, "
          f"{result['overruled']} against the priors' first choice")
    print("\n| The priors' first choice | The search's | Decisions |\n|---|---|---:|")
    for (first, chosen), count in result["overrules"].most_common():
        print(f"| {first} | {chosen} | {count} |")
    print("\n| Once-a-turn action | Started by | Started | Not used (no block, throw, hand-off or foul) "
          "| Not used, the player's START_MOVE never visited | Mean value gain, used | Not used |"
          "\n|---|---|---:|---:|---:|---:|---:|")
    for (start, by), b in result["once"].items():
        print(f"| {start} | {'the priors' if by == 'prior' else 'the search, overruling them'} | {b['started']} "
              f"| {b['unused']} | {b['unused, move unvisited']} "
              f"| {_signed(b['mean gain, used'])} | {_signed(b['mean gain, unused'])} |")


if __name__ == "__main__":
    main()
