"""The policy alone, without search (`mcts_bot.knowledge.policy_bot`): it plays what its priors rate
highest, legal whole games as home and as away, a learned policy from its file, and never raises."""
import logging

import botbowl
import numpy as np
import pytest

import mcts_bot
from botbowl.ai.bots.random_bot import RandomBot

from conftest import legality_checked, run_script, turn_position
from mcts_bot.adapter.actions import legal_actions
from mcts_bot.harness import learning_curve
from mcts_bot.harness.bots import check_bot, label, make_bot
from mcts_bot.harness.games import make_game
from mcts_bot.knowledge.policy import PolicyModel
from mcts_bot.knowledge.policy_bot import PolicyBot
from mcts_bot.knowledge.priors import knowledge_priors
from mcts_bot.knowledge.scripted import ScriptedBot


Checked = legality_checked(PolicyBot)


@pytest.mark.parametrize("board", [3, 5])
def test_it_plays_the_action_its_priors_rate_highest(board):
    for seed in range(3):
        game = turn_position(board, seed=seed)
        actions = legal_actions(game)
        best = actions[int(np.argmax(knowledge_priors(game, actions)))]
        played = PolicyBot(seed=0).act(game)
        assert (played.action_type, played.player, played.position) == (best.action_type, best.player, best.position)


def test_other_priors_make_other_choices():
    game = turn_position(5, seed=1)
    actions = legal_actions(game)
    last = PolicyBot(priors=lambda g, a: [0.0] * (len(a) - 1) + [1.0]).act(game)
    assert (last.action_type, last.player, last.position) == \
        (actions[-1].action_type, actions[-1].player, actions[-1].position)


@pytest.mark.parametrize("side", ["home", "away"])
def test_whole_games_are_legal(side):
    bot = Checked(seed=3)
    opponent = ScriptedBot("scripted", seed=4)
    home, away = (bot, opponent) if side == "home" else (opponent, bot)
    game = make_game(5, home, away, seed=21)
    game.init()
    assert game.state.game_over
    assert bot.decisions > 50 and bot.illegal == []
    assert bot.fallbacks == 0, "every decision was the policy's own, none the scripted fallback's"


def test_a_learned_policy_plays_from_its_file(tmp_path):
    path = tmp_path / "gen7.npz"
    PolicyModel.initial().save(path)
    name = f"policy:{path}"
    assert check_bot(name) == name and label(name) == "policy-gen7"
    bot = make_bot(name, seed=1)
    assert isinstance(bot, PolicyBot) and isinstance(bot.priors, PolicyModel)
    game = turn_position(3, seed=2)
    reference = PolicyBot(seed=1).act(game)  # generation 0 is the knowledge priors
    played = bot.act(game)
    assert (played.action_type, played.player, played.position) == \
        (reference.action_type, reference.player, reference.position)
    with pytest.raises(ValueError, match="no policy model at .*train one with scripts/run.sh train_policy"):
        check_bot(f"policy:{tmp_path / 'missing.npz'}")


def test_it_is_registered_with_botbowl():
    # "policy" is the default search's priors alone: on 11 players led by grod's choice.
    registered = botbowl.make_bot("policy")
    assert isinstance(registered, PolicyBot) and registered.priors is mcts_bot.PRESETS["default"].priors
    assert make_bot("policy", seed=1).priors is mcts_bot.PRESETS["default"].priors


def test_an_error_in_the_priors_falls_back_to_a_legal_action(caplog):
    def broken(game, actions):
        raise RuntimeError("priors broke")
    bot = Checked(priors=broken, seed=0)
    with caplog.at_level(logging.ERROR, logger="mcts_bot"):
        game = make_game(1, bot, RandomBot("random", seed=1), seed=3)
        game.init()
    assert game.state.game_over and bot.illegal == [] and bot.fallbacks > 10
    assert len([r for r in caplog.records if "priors broke" in r.getMessage()]) == 1  # logged once


def test_the_learning_curve_plays_each_generation_alone(tmp_path):
    path = tmp_path / "gen1.npz"
    PolicyModel.initial().save(path)
    out = tmp_path / "curve"
    points = learning_curve.run(1, [path], 1, out, base_seed=2, progress=False)
    assert [(p.generation, p.opponent) for p in points] == [(0, "scripted"), (1, "scripted"), (1, "policy")]
    assert all(p.games == 2 for p in points)
    # Generation 1 here is generation 0's weights: it plays the same games against scripted.
    assert (points[0].wins, points[0].draws) == (points[1].wins, points[1].draws)
    files = sorted(p.name for p in out.iterdir())
    assert files == ["policy-gen1-vs-policy", "policy-gen1-vs-scripted", "policy-vs-scripted"]
    # Resumed: nothing is played again.
    lines = (out / "policy-vs-scripted" / "traces.jsonl").read_text().splitlines()
    assert learning_curve.run(1, [path], 1, out, base_seed=2, progress=False) == points
    assert (out / "policy-vs-scripted" / "traces.jsonl").read_text().splitlines() == lines
    table = learning_curve.markdown_table(points)
    assert "| 1 | policy-gen1 | policy | 2 |" in table
    assert learning_curve.plot(points, tmp_path / "curve.png", "test").stat().st_size > 0


def test_the_learning_curve_script_explains_a_missing_policy(tmp_path):
    result = run_script("learning_curve", "--board", "1", "--policies", str(tmp_path / "none.npz"))
    assert result.returncode == 2 and "no policy model at" in result.stderr
