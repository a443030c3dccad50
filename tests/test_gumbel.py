"""Gumbel root selection (`mcts_bot.core.gumbel`): the draw, the halving by phases of the budget, the
final choice, and the search and the bot playing with it (seeded, iteration budgets)."""
import numpy as np
import pytest

import mcts_bot
from conftest import node_with, turn_position
from mcts_bot.core.gumbel import GumbelRoot
from mcts_bot.core.preset import Preset


def root_with_priors(priors, opponent=False):
    root = node_with([(0, 0.0)] * len(priors), opponent)
    for child, prior in zip(root.children, priors):
        child.prior = prior
    return root


def run_halving(root, true_values, iterations, settings=GumbelRoot(considered=8), seed=0):
    """Play `iterations` selections, each child returning its true value; returns the halving."""
    done = [0]
    halving = settings(root, np.random.RandomState(seed), lambda: done[0] / iterations)
    for _ in range(iterations):
        child = halving.select()
        i = root.children.index(child)
        child.visits += 1
        child.total_value += true_values[i]
        root.visits += 1
        done[0] += 1
    return halving


def test_the_draw_takes_the_considered_number_of_distinct_actions_led_by_the_prior():
    priors = [0.5, 0.2, 0.1] + [0.2 / 17] * 17
    counts = np.zeros(20)
    for seed in range(200):
        halving = GumbelRoot(considered=4)(root_with_priors(priors), np.random.RandomState(seed), lambda: 0.0)
        halving.select()
        chosen = [halving.root.children.index(c) for c in halving.candidates]
        assert len(set(chosen)) == 4
        counts[chosen] += 1
    assert counts[0] == max(counts) and counts[0] > counts[3]  # drawn by the prior, without replacement


def test_without_gumbel_noise_the_draw_is_the_likeliest_actions_whatever_the_seed():
    priors = [0.05, 0.3, 0.1, 0.25, 0.2, 0.1]
    for seed in range(20):
        halving = GumbelRoot(considered=3, gumbel_scale=0.0)(root_with_priors(priors), np.random.RandomState(seed),
                                                             lambda: 0.0)
        halving.select()
        assert [halving.root.children.index(c) for c in halving.candidates] == [1, 3, 4]


def test_halving_keeps_the_better_half_and_plays_the_best_value():
    # Eight equal priors; child 5 is worth most. Three phases: 8, then 4, then 2 candidates; child 5
    # survives them and is played.
    values = [0.4, 0.45, 0.5, 0.42, 0.48, 0.7, 0.41, 0.44]
    root = root_with_priors([1 / 8] * 8)
    halving = run_halving(root, values, iterations=240)
    assert halving.phase == halving.phases - 1 == 2
    assert len(halving.candidates) == 2 and root.children[5] in halving.candidates
    assert halving.choice() is root.children[5]
    # The budget went to the survivors: the winner has the most visits, every child some.
    visits = [c.visits for c in root.children]
    assert visits[5] == max(visits) and min(visits) > 0


def test_the_opponents_root_minimises():
    values = [0.4, 0.45, 0.5, 0.42, 0.48, 0.7, 0.41, 0.44]
    root = root_with_priors([1 / 8] * 8, opponent=True)
    assert run_halving(root, values, iterations=240).choice() is root.children[0]


def test_a_strong_prior_needs_evidence_to_be_overruled():
    # A 0.9 prior on a child a hair worse than another: the prior's logits outweigh the small difference.
    priors = [0.9] + [0.1 / 7] * 7
    values = [0.50, 0.505, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]
    root = root_with_priors(priors)
    assert run_halving(root, values, iterations=64).choice() is root.children[0]


def test_settings_and_presets_are_checked():
    with pytest.raises(ValueError, match="considered"):
        GumbelRoot(considered=1)
    with pytest.raises(ValueError, match="gumbel_scale"):
        GumbelRoot(gumbel_scale=-1.0)
    vanilla = mcts_bot.get_preset("vanilla")
    with pytest.raises(ValueError, match="give the preset priors"):
        vanilla.replace(root_selection=GumbelRoot())
    with pytest.raises(ValueError, match="workers=1"):
        mcts_bot.MCTSBot(preset="default-gumbel", workers=2)
    assert isinstance(mcts_bot.get_preset("default-gumbel"), Preset)


def test_the_search_plays_the_halvings_choice():
    game = turn_position(3, seed=5)
    result = mcts_bot.run_search(game, budget=mcts_bot.Budget(iterations=64), preset=mcts_bot.get_preset("default-gumbel"),
                                 rng=np.random.RandomState(3))
    assert result.choice is not None and result.choice in result.root.children and result.choice.visits > 0
    again = mcts_bot.run_search(game, budget=mcts_bot.Budget(iterations=64), preset=mcts_bot.get_preset("default-gumbel"),
                                rng=np.random.RandomState(3))
    assert again.choice.action.action_type == result.choice.action.action_type
    assert [c.visits for c in again.root.children] == [c.visits for c in result.root.children]
    # PUCT's search has no choice of its own: the final policy makes it.
    assert mcts_bot.run_search(game, budget=mcts_bot.Budget(iterations=16), preset=mcts_bot.get_preset("default"),
                               rng=np.random.RandomState(3)).choice is None


def test_a_whole_game_with_gumbel_at_the_root_is_legal():
    from botbowl.ai.bots.random_bot import RandomBot

    from conftest import legality_checked
    from mcts_bot.harness.games import make_game
    bot = legality_checked(mcts_bot.MCTSBot)("mcts", preset="default-gumbel", seconds=None, iterations=16, seed=2)
    game = make_game(1, bot, RandomBot("random", seed=1), seed=6)
    game.init()
    assert game.state.game_over and bot.decisions > 0 and bot.illegal == []
    assert bot.totals.searches > 0 and bot.totals.errors == 0


def test_a_rebuilt_root_is_drawn_again():
    # A stale root is rebuilt with new children (`Search.iterate`): the halving draws from them, and
    # has no choice of its own until it has selected among them.
    root = root_with_priors([1 / 8] * 8)
    halving = run_halving(root, [0.5] * 8, iterations=40)
    assert halving.choice() is not None
    fresh = root_with_priors([1 / 4] * 4)
    root.children, root.actions = [], fresh.actions
    assert halving.choice() is None
    root.children = fresh.children
    assert halving.select() in root.children
    assert all(candidate in root.children for candidate in halving.candidates)
