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
import argparse
import json
from typing import List, Optional

from botbowl.core import ActionType
from botbowl.core.procedure import Turn

from mcts_bot.harness.bots import make_bot
from mcts_bot.harness.matches import play_side
from mcts_bot.knowledge.grod import GrodBot
from mcts_bot.knowledge.heuristics import scoring_chance

BINS = ((0.0, 1e-9), (1e-9, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01))
LOGGED = (ActionType.BLOCK, ActionType.END_TURN, ActionType.USE_REROLL)


class ScoringChanceLog(GrodBot):
    """The default's knowledge, logging the turns that begin with its carrier standing."""

    def __init__(self, turns: List[dict], game_number: int, seed: Optional[int] = None):
        super().__init__("own-frame-grod", seed, exposure=True, own_frame=True)
        self.turns, self.game_number, self.open, self.seen = turns, game_number, None, None

    def new_game(self, game, team):
        super().new_game(game, team)
        self.open, self.seen = None, None

    def end_game(self, game):
        self._close(game)
        super().end_game(game)

    def act(self, game):
        turn = [game.state.half, self.team.state.turn]
        if self.open is not None and self.open["turn"] != turn:
            self._close(game)
        if isinstance(game.get_procedure(), Turn) and game.active_team == self.team and self.seen != turn:
            self.seen = turn  # judged at the turn's first decision only
            carrier = game.get_ball_carrier()
            if carrier is not None and carrier.team == self.team and carrier.state.up:
                self.open = {"game": self.game_number, "turn": turn, "p": scoring_chance(game, carrier),
                             "to_go": game.get_distance_to_endzone(carrier), "ma": carrier.get_ma(),
                             "last": self.team.state.turn == game.config.rounds, "score": self.team.state.score,
                             "actions": []}
        action = super().act(game)
        if self.open is not None:
            name = action.action_type.name
            if name.startswith("START_"):
                carrier = game.get_ball_carrier()
                own = carrier is not None and action.player is not None and action.player.player_id == carrier.player_id
                self.open["actions"].append(name[len("START_"):] + ("*" if own else ""))
            elif action.action_type in LOGGED:
                self.open["actions"].append(name)
        return action

    def _close(self, game) -> None:
        if self.open is None:
            return
        carrier = game.get_ball_carrier()
        self.open["scored"] = self.team.state.score > self.open.pop("score")
        self.open["kept"] = carrier is not None and carrier.team == self.team
        self.turns.append(self.open)
        self.open = None


def play(opponent: str, side: str, seed: int, games: int, out: Optional[str]) -> List[dict]:
    turns: List[dict] = []
    for i in range(games):
        logged = ScoringChanceLog(turns, i, seed=seed + i)
        print(play_side(logged, make_bot(opponent, seed=seed + i + 1), 11, side, seed + i), flush=True)
        if out is not None:
            with open(out, "w") as f:
                f.writelines(json.dumps(t) + "\n" for t in turns)
    return turns


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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", default="scripted")
    parser.add_argument("--side", default="home", choices=["home", "away"])
    parser.add_argument("--seed", type=int, default=13000)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--out", help="a JSON-lines file for the turns")
    args = parser.parse_args()
    print(table(play(args.opponent, args.side, args.seed, args.games, args.out)))


if __name__ == "__main__":
    main()
