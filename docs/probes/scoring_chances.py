"""Probe: does the knowledge take the touchdowns its carrier could run for, or pass for? (docs/bot-bowl-board.md,
"The touchdowns within reach: taken", "Passes and hand-offs to a runner")

Plays the default's 11-player knowledge with no search (`GrodBot(exposure=True, own_frame=True)`)
against a sparring partner and logs each of its turns that begins with its own carrier standing: the
chance of his safest path into the endzone this turn (botbowl's pathfinding with the team re-roll, as
the learned value's `scoring_chance` reads it), his distance and MA, whether it is the half's last
turn, the player actions it started (`*` marks the carrier's own), whether the turn scored, and
whether the ball was still ours when its next turn began (`kept`). Also the best relay: a pass or a
hand-off to a teammate who has not acted, who then runs in (`relay_chance`: the throw or hand-off
and the catch as `grod` prices them, times the receiver's run as `grod` prices it, without the team
re-roll). One JSON line per such turn, the file rewritten as each game ends; then two tables: by the
carrier's own chance, and, for the turns where that is below `RELAY_FROM`, by the relay's:

    .venv/bin/python docs/probes/scoring_chances.py --opponent scripted --seed 13000 --games 50 --side away \\
        --out results/scoring-chances-scripted-away.jsonl

Game i (from 0) is seeded `seed + i`; the opponent `seed + i + 1` (as in `carrier_blitz.py`).
"""
from typing import List, Optional, Tuple

import botbowl
from botbowl.core import ActionType

from mcts_bot.harness.probing import TurnLog, play_logged, run_turn_probe
from mcts_bot.knowledge import grod
from mcts_bot.knowledge.heuristics import scoring_chance

BINS = ((0.0, 1e-9), (1e-9, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01))
LOGGED = (ActionType.BLOCK, ActionType.END_TURN, ActionType.USE_REROLL)
RELAY_FROM = 0.3  # the relay table looks at the turns whose carrier's own run is less likely than this
RELAYS = ("PASS*", "HANDOFF*")  # the carrier's own pass or hand-off, as `record` names them


def relay_chance(game: botbowl.Game, carrier: botbowl.Player) -> Tuple[float, Optional[str]]:
    """The likeliest touchdown this turn by a pass or hand-off from `carrier` to a teammate who then
    runs in, and its kind ("pass", "hand off"); (0, None) when there is none."""
    board = grod.Board(game, carrier.team, exposure=True, own_frame=True)
    best: Tuple[float, Optional[str]] = (0.0, None)
    for plan in grod._pass_plans(board, carrier, 0.0) + grod._handoff_plans(board, carrier, 0.0):
        receiver = game.get_player_at(plan.steps[-1][1])
        chance = (1.0 - plan.p_turnover) * board.td_prob(receiver)
        if chance > best[0]:
            best = (chance, plan.label)
    return best


class ScoringChanceLog(TurnLog):
    """The default's knowledge, logging the turns that begin with its carrier standing."""

    def __init__(self, turns: List[dict], game_number: int, seed: Optional[int] = None):
        super().__init__(turns, seed)
        self.game_number = game_number

    def open_turn(self, game, turn) -> Optional[dict]:
        carrier = game.get_ball_carrier()
        if carrier is None or carrier.team != self.team or not carrier.state.up:
            return None
        relay, relay_kind = relay_chance(game, carrier)
        return {"game": self.game_number, "turn": turn, "p": scoring_chance(game, carrier),
                "relay": relay, "relay_kind": relay_kind,
                "to_go": game.get_distance_to_endzone(carrier), "ma": carrier.get_ma(),
                "last": self.team.state.turn == game.config.rounds, "score": self.team.state.score,
                "actions": []}

    def record(self, game, action) -> None:
        name = action.action_type.name
        if name.startswith("START_"):
            carrier = game.get_ball_carrier()
            own = carrier is not None and action.player is not None and action.player.player_id == carrier.player_id
            self.open["actions"].append(name[len("START_"):] + ("*" if own else ""))
        elif action.action_type in LOGGED:
            self.open["actions"].append(name)

    def close_turn(self, game, record) -> None:
        carrier = game.get_ball_carrier()
        record["scored"] = self.team.state.score > record.pop("score")
        record["kept"] = carrier is not None and carrier.team == self.team


def play(opponent: str, side: str, seed: int, games: int, out: Optional[str]) -> List[dict]:
    return play_logged(lambda turns, i: ScoringChanceLog(turns, i, seed=seed + i), opponent, 11, lambda i: side,
                       seed, games, out)


def table(turns: List[dict]) -> str:
    lines = ["| Safest path's chance | Turns | Scored | Expected (sum of chances) | Carrier started no action |",
             "|---|---:|---:|---:|---:|"]
    for low, high in BINS:
        rows = [t for t in turns if low <= t["p"] < high]
        if rows:
            idle = sum(not any(a.endswith("*") for a in t["actions"]) for t in rows)
            lines.append(f"| {low:.1f}-{min(high, 1.0):.1f} | {len(rows)} | {sum(t['scored'] for t in rows)} | "
                         f"{sum(t['p'] for t in rows):.1f} | {idle} |")
    return "\n".join(lines)


def relay_table(turns: List[dict]) -> str:
    """The turns whose carrier's own chance is below RELAY_FROM, by the relay's chance."""
    lines = [f"| Relay's chance (carrier's own below {RELAY_FROM}) | Turns | Scored | Expected by relay | "
             "Relay tried (pass, hand-off) |",
             "|---|---:|---:|---:|---:|"]
    for low, high in BINS:
        rows = [t for t in turns if t["p"] < RELAY_FROM and low <= t["relay"] < high]
        if rows:
            tried = [sum(kind in t["actions"] for t in rows) for kind in RELAYS]
            lines.append(f"| {low:.1f}-{min(high, 1.0):.1f} | {len(rows)} | {sum(t['scored'] for t in rows)} | "
                         f"{sum(t['relay'] for t in rows):.1f} | {tried[0]}, {tried[1]} |")
    return "\n".join(lines)


def main() -> None:
    turns = run_turn_probe(__doc__, play)
    print(table(turns))
    print()
    print(relay_table(turns))


if __name__ == "__main__":
    main()
