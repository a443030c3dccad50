"""Probe: does the knowledge take the touchdowns its carrier could run for? (docs/bot-bowl-board.md,
"The touchdowns within reach: taken")

Plays the default's 11-player knowledge with no search (`GrodBot(exposure=True, own_frame=True)`)
against a sparring partner and logs each of its turns that begins with its own carrier standing: the
chance of his safest path into the endzone this turn (botbowl's pathfinding with the team re-roll, as
the learned value's `scoring_chance` reads it), his distance and MA, whether it is the half's last
turn, the player actions it started (`*` marks the carrier's own), whether the turn scored, and
whether the ball was still ours when its next turn began (`kept`). One JSON line per such turn, the
file rewritten as each game ends; then a table by chance:

    .venv/bin/python docs/probes/scoring_chances.py --opponent scripted --seed 13000 --games 50 --side away \\
        --out results/scoring-chances-scripted-away.jsonl

Game i (from 0) is seeded `seed + i`; the opponent `seed + i + 1` (as in `carrier_blitz.py`).
"""
from typing import List, Optional

from botbowl.core import ActionType

from mcts_bot.harness.probing import TurnLog, play_logged, run_turn_probe
from mcts_bot.knowledge.heuristics import scoring_chance

BINS = ((0.0, 1e-9), (1e-9, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01))
LOGGED = (ActionType.BLOCK, ActionType.END_TURN, ActionType.USE_REROLL)


class ScoringChanceLog(TurnLog):
    """The default's knowledge, logging the turns that begin with its carrier standing."""

    def __init__(self, turns: List[dict], game_number: int, seed: Optional[int] = None):
        super().__init__(turns, seed)
        self.game_number = game_number

    def open_turn(self, game, turn) -> Optional[dict]:
        carrier = game.get_ball_carrier()
        if carrier is None or carrier.team != self.team or not carrier.state.up:
            return None
        return {"game": self.game_number, "turn": turn, "p": scoring_chance(game, carrier),
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


def main() -> None:
    print(table(run_turn_probe(__doc__, play)))


if __name__ == "__main__":
    main()
