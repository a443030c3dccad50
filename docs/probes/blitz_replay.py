"""Probe: how the MCTS bot's blitzes end (docs/bot-bowl-board.md, "The blitzes without a block").

Plays seeded games at an iteration budget, so that every decision is the same from run to run, and
logs each blitz the bot starts: every decision within it (the action, the priors' first choice,
whether the search overruled it, the most visited children with prior, visits and value), whether
it blocked, and what ended it. One JSON line per blitz, the file rewritten as each game ends:

    .venv/bin/python docs/probes/blitz_replay.py --bot mcts --opponent scripted --board 3 \\
        --seed 500 --games 4 --iterations 130 --out results/blitz-replay-3.jsonl

Game i (from 0) is seeded `seed + i` and played home when i is even, away when odd.
"""
import argparse
from collections import Counter
from typing import List, Optional

import botbowl
from botbowl.core import ActionType

from mcts_bot.core.nodes import describe_action
from mcts_bot.harness.bots import make_bot
from mcts_bot.harness.probing import play_logged

# What starts another player action, or ends the turn: a blitz still open then ended without a block.
NEXT_ACTION = frozenset({ActionType.START_MOVE, ActionType.START_BLOCK, ActionType.START_BLITZ,
                         ActionType.START_PASS, ActionType.START_HANDOFF, ActionType.START_FOUL,
                         ActionType.END_TURN})


class BlitzLog(botbowl.Agent):
    """Wraps an MCTS bot (one with `last_root` and `last_choice`) and appends its blitzes to `blitzes`."""

    def __init__(self, bot: botbowl.Agent, blitzes: List[dict]):
        super().__init__(bot.name)
        self.bot, self.blitzes, self.open = bot, blitzes, None

    def new_game(self, game, team):
        self.team = team
        self.bot.new_game(game, team)

    def end_game(self, game):
        self._close("game over")
        self.bot.end_game(game)

    def act(self, game):
        turn = [game.state.half, self.team.state.turn]
        if self.open is not None and self.open["turn"] != turn:
            self._close("the turn ended (a turnover or a touchdown)")
        action = self.bot.act(game)
        if action.action_type in NEXT_ACTION:
            self._close("next " + action.action_type.name)
        if action.action_type == ActionType.START_BLITZ:
            self.open = {"game": game.game_id, "turn": turn, "player": action.player.player_id, "steps": [],
                         "blocked": False}
        if self.open is not None:
            self.open["steps"].append(self._decision(action))
            self.open["blocked"] |= action.action_type == ActionType.BLOCK
            if action.action_type == ActionType.END_PLAYER_TURN:
                self._close("END_PLAYER_TURN")
        return action

    def _decision(self, action) -> dict:
        root, chosen = getattr(self.bot, "last_root", None), getattr(self.bot, "last_choice", None)
        step = {"action": describe_action(action)}
        if root is not None and chosen is not None and root.children:
            step["priors_first"] = describe_action(root.children[0].action)
            step["overruled"] = chosen is not root.children[0]
            step["most_visited"] = [(describe_action(c.action), round(c.prior or 0.0, 3), c.visits, round(c.value, 3))
                                    for c in sorted(root.children, key=lambda c: -c.visits)[:5]]
        return step

    def _close(self, how: str) -> None:
        if self.open is not None:
            self.open["ended"] = how
            self.blitzes.append(self.open)
            self.open = None


def replay(bot: str, opponent: str, board: int, seed: int, games: int, iterations: int,
           out: Optional[str] = None) -> List[dict]:
    """Play the games (printing each result) and return the bot's blitzes, written to `out` as they come."""
    return play_logged(lambda blitzes, i: BlitzLog(make_bot(bot, seed=seed + i, iterations=iterations), blitzes),
                       opponent, board, lambda i: "home" if i % 2 == 0 else "away", seed, games, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="mcts", help="an MCTS bot name (mcts, mcts-<preset>)")
    parser.add_argument("--opponent", default="scripted")
    parser.add_argument("--board", type=int, default=11, choices=[1, 3, 5, 7, 11])
    parser.add_argument("--seed", type=int, default=500)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=130)
    parser.add_argument("--out", help="a JSON-lines file for the blitzes")
    args = parser.parse_args()
    blitzes = replay(args.bot, args.opponent, args.board, args.seed, args.games, args.iterations, args.out)
    empty = [blitz for blitz in blitzes if not blitz["blocked"]]
    print(f"{len(blitzes)} blitzes, {len(empty)} without a block; ended by: {dict(Counter(b['ended'] for b in empty))}")


if __name__ == "__main__":
    main()
