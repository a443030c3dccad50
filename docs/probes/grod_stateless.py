"""Probe: does `grod_action`, the choice the default searches with on 11 players, play as `GrodBot`?
(docs/bot-bowl-board.md)

`GrodBot` keeps its plan within a player's action; `grod_action`, the search's prior and playout
policy, keeps nothing but each turn's carrier target and plans afresh at every decision. Two ways to
see where that differs:

- `GrodStateless`, a bot of one's own for `--bots FILE.py:CLASS`: `grod_action`'s choice played
  alone, with the search's follow-ups (a move ends the player's action), against the shipped `grod`:

      scripts/run.sh trace --bots docs/probes/grod_stateless.py:GrodStateless grod --board 11 --games 50 --seed 700

- `diverge`: `grod` against itself; at each decision both ask `grod_action` too, and the decisions
  where the two differ are counted by procedure, player action and the two action types:

      .venv/bin/python docs/probes/grod_stateless.py --games 6

Both can ask `grod_action` on a private copy of the game, as the search does at every decision
(`GrodStatelessOnCopies`, `--copies`): what it remembers of the turn by the game object is then lost.
`GrodMendedOnCopies` and `--mended` ask `grod_mended_action` (the default's on 11 players) instead.
"""
import argparse
from collections import Counter
from typing import Optional

import botbowl
from botbowl.core import Action

from mcts_bot.adapter.actions import same_action
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.harness.games import make_game
from mcts_bot.knowledge.grod import GrodBot, grod_action, grod_mended_action
from mcts_bot.knowledge.policy_bot import PolicyBot


def _grod_choice(game: botbowl.Game, copies: bool, mended: bool = False) -> Action:
    """`grod_action`'s choice (`grod_mended_action`'s when `mended`); asked on a new private copy of the
    game when `copies`, as the search asks it."""
    choose = grod_mended_action if mended else grod_action
    return choose(private_copy(game, seed=0) if copies else game)


class GrodStateless(PolicyBot):
    """`grod_action`'s choice, played as the search's tree offers it (`PolicyBot`, moves ending the action)."""
    copies = False
    mended = False

    def __init__(self, name: str = "grod-stateless", seed: Optional[int] = None):
        super().__init__(name, priors=self._one_hot, seed=seed)

    def _one_hot(self, game: botbowl.Game, actions) -> list:
        """1 for `grod_action`'s choice, 0 for every other action."""
        choice = _grod_choice(game, self.copies, self.mended)
        return [1.0 if same_action(action, choice) else 0.0 for action in actions]


class GrodStatelessOnCopies(GrodStateless):
    """`GrodStateless`, asking `grod_action` on a new private copy of the game at each decision, as the search does."""
    copies = True


class GrodMendedOnCopies(GrodStatelessOnCopies):
    """`GrodStatelessOnCopies` with `grod_mended_action`, the choice the default searches with on 11 players."""
    mended = True


class ComparingGrod(GrodBot):
    """`GrodBot`, counting in `differ` the decisions where `grod_action` would choose otherwise."""

    def __init__(self, name: str, seed: int, differ: Counter, decisions: Counter, copies: bool = False,
                 mended: bool = False):
        super().__init__(name, seed=seed)
        self.differ, self.decisions, self.copies, self.mended = differ, decisions, copies, mended

    def act(self, game: botbowl.Game) -> Action:
        stateless = _grod_choice(game, self.copies, self.mended)
        kind = game.state.player_action_type
        procedure = type(game.get_procedure()).__name__
        action = super().act(game)
        self.decisions[procedure] += 1
        if not same_action(action, stateless):
            self.differ[(procedure, kind.name if kind else "-", action.action_type.name,
                         stateless.action_type.name)] += 1
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="grod-against-grod games on 11 players")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--copies", action="store_true", help="ask grod_action on a private copy, as the search does")
    parser.add_argument("--mended", action="store_true", help="ask grod_mended_action (the default's on 11 players)")
    args = parser.parse_args()
    differ, decisions = Counter(), Counter()
    for number in range(args.games):
        seed = args.seed + number
        home = ComparingGrod("grod", seed, differ, decisions, args.copies, args.mended)
        away = ComparingGrod("grod-away", seed + 1000, differ, decisions, args.copies, args.mended)
        make_game(11, home, away, seed=seed, game_id=f"diverge-{seed}").init()
    print(f"{sum(decisions.values())} decisions, {sum(differ.values())} where grod_action chose otherwise:")
    print("count  procedure / player action / GrodBot's choice / grod_action's")
    for (procedure, kind, kept, stateless), count in differ.most_common():
        print(f"{count:5d}  {procedure} / {kind} / {kept} / {stateless}")


if __name__ == "__main__":
    main()
