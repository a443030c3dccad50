"""The agent: registered with botbowl, validates its arguments, plays whole games with legal actions."""
import importlib

import botbowl
import numpy as np
import pytest
from botbowl.ai.bots.random_bot import RandomBot

import mcts_bot
from conftest import action_key, turn_position
from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.harness.games import make_game
from mcts_bot.harness.matches import CheckedAgent


def test_registered_and_reimportable():
    importlib.reload(mcts_bot)  # a second registration must not fail
    registered = set(botbowl.list_bots())
    assert {"mcts", "mcts-vanilla"} <= registered
    assert not any(name.startswith("mcts-default") for name in registered), "ablations crowd botbowl's bot list"
    bot = botbowl.make_bot("mcts")
    assert isinstance(bot, mcts_bot.MCTSBot) and bot.name == "mcts" and bot.preset.name == "default"
    assert botbowl.make_bot("mcts-vanilla").preset.name == "vanilla"


@pytest.mark.parametrize("kwargs,message", [
    ({"seconds": 0}, "seconds must be a positive number"),
    ({"seconds": -1.0}, "seconds must be a positive number"),
    ({"seconds": None, "iterations": 0}, "iterations must be a positive integer"),
    ({"seconds": None, "iterations": 2.5}, "iterations must be a positive integer"),
    ({"seconds": None}, "no search budget"),
    ({"preset": "turbo"}, "unknown preset 'turbo': choose one of default, default-"),
    ({"seed": -3}, "seed must be a non-negative integer"),
    ({"rollouts": "yes"}, "rollouts must be True or False"),
    ({"heuristic": 0.5}, "heuristic must be a callable"),
])
def test_bad_arguments_fail_clearly(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        mcts_bot.MCTSBot(**kwargs)


def test_bad_search_options_fail_clearly():
    game = turn_position(1, seed=0)
    with pytest.raises(TypeError, match="unknown search option.*allowed are"):
        mcts_bot.search(game, iterations=5, exploration=2.0)
    with pytest.raises(ValueError, match="no search budget"):
        mcts_bot.search(game)
    with pytest.raises(TypeError, match="turn_tree must be True or False, got 'yes'"):
        mcts_bot.configure("default", turn_tree="yes")


def test_stats_after_a_decision():
    game = turn_position(3, seed=1)
    bot = mcts_bot.MCTSBot(seconds=None, iterations=40, seed=0, preset="vanilla")
    bot.new_game(game, game.active_team)
    bot.act(game)
    assert bot.last_stats.iterations == 40 and bot.last_root.visits == 40
    assert bot.totals.searches == 1 and bot.totals.iterations == 40


@pytest.mark.parametrize("board", [1, 3])
@pytest.mark.parametrize("mcts_home", [True, False])
@pytest.mark.parametrize("preset", ["default", "default-openings", "default-idle-actions-as-move", "vanilla"])
def test_full_game_against_random_only_legal_actions(board, mcts_home, preset):
    mismatches, overruled = [], []

    def check_root(game, result, action):
        if result.root.children and result.root.children[0].prior is not None:
            top = max(result.root.children, key=lambda child: child.prior)
            overruled.append(action_key(top.action) != action_key(action))
        # The tree's root offers exactly what the real game offers the bot (less what the preset prunes);
        # a reused root is this very state.
        offered = mcts.preset.legal_actions(game)
        if sorted(map(action_key, result.root.actions)) != sorted(map(action_key, offered)):
            mismatches.append(action)
        if result.root.key != game_state_hash(game):
            mismatches.append(action)

    mcts = mcts_bot.MCTSBot("mcts", seconds=None, iterations=25, seed=board, preset=preset, on_decision=check_root)
    bot = CheckedAgent(mcts)
    opponent = RandomBot("random", seed=board)
    home, away = (bot, opponent) if mcts_home else (opponent, bot)
    game = make_game(board, home, away, seed=board)
    game.init()  # plays the whole game; an illegal action would raise InvalidActionError
    assert game.state.game_over
    assert bot.decisions > 10 and bot.illegal == 0 and mismatches == []
    assert mcts.totals.errors == 0 and mcts.totals.safe_actions == 0
    # The count of choices other than the priors' first is what the decisions show (vanilla has no priors).
    assert mcts.totals.overruled == sum(overruled)
    if preset == "default":
        assert mcts.totals.reused_trees > 0 and len(overruled) == mcts.totals.searches


def test_a_part_chosen_by_board_is_picked_for_the_game_being_played():
    from mcts_bot.core.policies import most_visited
    from mcts_bot.core.preset import ByBoard
    used = []

    def final(board):
        def policy(root):
            used.append(board)
            return most_visited(root)
        return policy

    by_board = ByBoard(smaller=final("smaller"), bot_bowl=final("bot bowl"))
    preset = mcts_bot.configure("vanilla", final_policy=by_board)
    assert preset.final_policy is by_board
    assert preset.for_game(turn_position(3, seed=0)).final_policy is by_board.smaller
    assert mcts_bot.get_preset("vanilla").for_game(turn_position(11, seed=0)) is mcts_bot.get_preset("vanilla")
    for board in (3, 11):
        game = turn_position(board, seed=1)
        bot = mcts_bot.MCTSBot(seconds=None, iterations=8, seed=0, preset=preset)
        bot.new_game(game, game.active_team)
        bot.act(game)
        assert bot.totals.errors == 0
    assert used == ["smaller", "bot bowl"]
    # The search loop picks its parts too: a ByBoard tree policy is called inside every iteration.
    from mcts_bot.core.policies import puct
    result = mcts_bot.run_search(turn_position(3, seed=1), budget=mcts_bot.Budget(iterations=8),
                                 preset=mcts_bot.configure("default", tree_policy=ByBoard(puct, puct)),
                                 rng=np.random.RandomState(0))
    assert result.stats.error is None and result.root.visits == 8
    with pytest.raises(TypeError, match="picked per game: use preset.for_game"):
        by_board(None)
    with pytest.raises(TypeError, match="ByBoard.bot_bowl must be a callable part"):
        ByBoard(smaller=most_visited, bot_bowl=None)
