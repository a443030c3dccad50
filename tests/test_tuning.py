"""Tuning the knowledge's weights by play (mcts_bot/harness/tuning.py): the weights reach the decisions
and are restored, the SPSA step is the formula, and a run resumes from its games file."""
import json
import os
from pathlib import Path

import numpy as np
import pytest
from botbowl.core import ActionType

from mcts_bot.harness import tuning
from mcts_bot.harness.bots import load_agent_class
from mcts_bot.harness.records import read_results
from mcts_bot.knowledge import grod
from mcts_bot.knowledge.grod import GrodBot

from conftest import turn_position


def test_weights_are_set_for_the_duration_and_restored_even_after_an_error():
    shipped = grod.TURNOVER_BASE
    with pytest.raises(RuntimeError):
        with grod.weights_set({"TURNOVER_BASE": 99.0}):
            assert grod.TURNOVER_BASE == 99.0
            raise RuntimeError("inside")
    assert grod.TURNOVER_BASE == shipped


@pytest.mark.parametrize("values, message", [
    ({"NO_SUCH_WEIGHT": 1.0}, "not a weight"),
    ({"START_TYPES": 1.0}, "not a weight"),
    ({"Board": 1.0}, "not a weight"),
    ({"TURNOVER_BASE": "lots"}, "needs a number"),
])
def test_a_bad_weight_gets_a_clear_error(values, message):
    with pytest.raises(ValueError, match=message):
        grod.check_weights(values)


def test_the_weights_reach_the_decision():
    """With every plan below the floor a player's action is worth, `grod` ends its turn; with the
    shipped floor it starts a player's action in the same position."""
    game = turn_position(11, seed=3)
    team = game.active_team
    bot = GrodBot(seed=0)
    bot.new_game(game, team)
    shipped = bot.act(game)
    floored = tuning.WeightedBot(GrodBot(seed=0), {"MIN_SCORE": 1e9})
    floored.new_game(game, team)
    assert shipped.action_type in grod.START_TYPES
    assert floored.act(game).action_type == ActionType.END_TURN
    assert grod.MIN_SCORE == 0.25  # restored


@pytest.mark.parametrize("settings, message", [
    (dict(names=("NO_SUCH_WEIGHT",)), "not a weight"),
    (dict(names=("TURNOVER_BASE", "TURNOVER_BASE")), "named twice"),
    (dict(board=5), "11-player board only"),
    (dict(bot="mcts"), "tune the knowledge alone"),
    (dict(opponents=("nobody",)), "unknown bot"),
    (dict(a=0.0), "gains"),
])
def test_bad_settings_get_a_clear_error(settings, message):
    with pytest.raises(ValueError, match=message):
        tuning.TuneSettings(**settings)


def test_the_step_follows_the_score_difference_along_the_signs():
    settings = tuning.TuneSettings(names=("TURNOVER_BASE", "CAGE_CORNER", "SAFETY"), opponents=("scripted",),
                                   iterations=10)
    theta = np.zeros(3)
    games = tuning.iteration_games(settings, 0, theta)
    assert len(games) == 4  # two sides, two perturbations
    # The plus games won, the minus games drew: the step is a_0 * 0.5 / (2 c_0) along the signs.
    records = [{"key": g.key, "points": 1.0 if g.sign > 0 else 0.5} for g in games]
    step = tuning.step(settings, 0, theta, records)
    a_0, c_0 = settings.gains(0)
    assert (step.plus, step.minus) == (1.0, 0.5)
    np.testing.assert_allclose(step.theta_after, a_0 * 0.5 / (2 * c_0) * settings.signs(0))
    # Each perturbation's weights are the shipped ones times exp(+-c_0) along the signs, on the same seeds.
    plus = dict(games[0].weights)
    minus = dict(games[2].weights)
    for name, sign in zip(settings.names, settings.signs(0)):
        assert plus[name] == pytest.approx(getattr(grod, name) * np.exp(sign * c_0))
        assert minus[name] == pytest.approx(getattr(grod, name) * np.exp(-sign * c_0))
    assert [g.seed for g in games[:2]] == [g.seed for g in games[2:]]


def test_a_crashed_game_moves_nothing():
    settings = tuning.TuneSettings(names=("TURNOVER_BASE",), opponents=("scripted",), iterations=10)
    games = tuning.iteration_games(settings, 0, np.zeros(1))
    records = [{"key": g.key, "points": None if g.sign > 0 else 0.0} for g in games]
    step = tuning.step(settings, 0, np.zeros(1), records)
    assert step.crashes == 2 and step.theta_after == [0.0]


def test_a_run_writes_its_games_resumes_and_refuses_other_settings(tmp_path):
    """Random bots on 3 players (fast): the weights change nothing they do, so on common seeds the
    two perturbations play the same games and the weights never move."""
    settings = tuning.TuneSettings(board=3, bot="random", opponents=("random",), names=("TURNOVER_BASE",),
                                   iterations=2)
    steps = tuning.run(settings, tmp_path)
    assert len(steps) == 2 and all(s.plus == s.minus and s.theta_after == [0.0] for s in steps)
    assert len(read_results(tmp_path / tuning.RESULTS_FILE)) == 8
    more = tuning.TuneSettings(board=3, bot="random", opponents=("random",), names=("TURNOVER_BASE",), iterations=3)
    tuning.run(more, tmp_path)
    records = read_results(tmp_path / tuning.RESULTS_FILE)
    assert len(records) == 12 and len({r["key"] for r in records}) == 12  # the first two iterations not replayed
    assert json.loads((tmp_path / tuning.WEIGHTS_FILE).read_text())["iterations"] == 3
    assert len(tuning.read_steps(more, tmp_path)) == 3
    with pytest.raises(ValueError, match="other settings"):
        tuning.run(tuning.TuneSettings(board=3, bot="random", opponents=("random",), names=("CAGE_CORNER",),
                                       iterations=3), tmp_path)


def test_validation_pairs_the_tuned_and_the_shipped_weights_on_the_same_games(tmp_path):
    settings = tuning.TuneSettings(board=3, bot="random", opponents=("random",), names=("TURNOVER_BASE",))
    records = tuning.validate(settings, {"TURNOVER_BASE": 3.0}, tmp_path, games=1, seed=5, progress=False)
    assert len(records) == 4
    table = tuning.validation_table(records)
    assert "| tuned | all | both | 2 |" in table and "| shipped | all | both | 2 |" in table
    assert "over 2 paired games: +0.000" in table  # random bots ignore the weights: the same games
    assert sorted(r["key"] for r in tuning.validation_records(tmp_path, {"TURNOVER_BASE": 3.0})) == \
        sorted(r["key"] for r in records)
    # Other weights (a run gone on since) are validated on games of their own, not read from these.
    assert tuning.validation_records(tmp_path, {"TURNOVER_BASE": 4.0}) == []
    again = tuning.validate(settings, {"TURNOVER_BASE": 4.0}, tmp_path, games=1, seed=5, progress=False)
    assert len(again) == 4 and len(read_results(tmp_path / tuning.VALIDATION_FILE)) == 8
    # Against an opponent the run did not tune against: games of its own, beside the others.
    other = tuning.validate(settings, {"TURNOVER_BASE": 3.0}, tmp_path, games=1, seed=5, opponents=["scripted"],
                            progress=False)
    assert len(other) == 4 and {r["spec"]["opponent"] for r in other} == {"scripted"}
    assert len(tuning.validation_records(tmp_path, {"TURNOVER_BASE": 3.0})) == 8
    assert "| tuned | scripted | both | 2 |" in tuning.validation_table(other)
    with pytest.raises(ValueError, match="nobody"):
        tuning.validation_games(settings, {"TURNOVER_BASE": 3.0}, 1, 5, opponents=["nobody"])


def test_a_weights_file_is_read_back_or_refused_clearly(tmp_path):
    with pytest.raises(ValueError, match="run scripts/run.sh tune first"):
        tuning.read_weights(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a tuning's weights.json"):
        tuning.read_weights(tmp_path / "bad.json")


def test_the_tuned_weights_probe_searches_with_the_file_it_is_given(tmp_path, monkeypatch):
    probe = Path(__file__).resolve().parents[1] / "docs" / "probes" / "tuned_weights.py"
    monkeypatch.delenv("TUNED_WEIGHTS", raising=False)
    with pytest.raises(ValueError, match="set TUNED_WEIGHTS"):
        load_agent_class(probe, "TunedMCTS")("mcts-tuned", seed=0)
    (tmp_path / "weights.json").write_text(json.dumps({"weights": {"TURNOVER_BASE": 3.0}}))
    monkeypatch.setenv("TUNED_WEIGHTS", str(tmp_path / "weights.json"))
    bot = load_agent_class(probe, "TunedMCTS")("mcts-tuned", seed=0)
    assert bot.weights == {"TURNOVER_BASE": 3.0} and bot.bot.preset.name == "default"


def test_a_run_on_ray_plays_the_same_games_in_one_ray_session(tmp_path):
    if not os.environ.get("MCTS_BOT_REQUIRE_RAY"):  # CI sets it: there, a missing Ray fails the test
        pytest.importorskip("ray", reason="Ray is not installed: the ray backend needs pip install 'mcts_bot[ray]' "
                                          "(scripts/run.sh test installs it)")
    import ray
    settings = tuning.TuneSettings(board=3, bot="random", opponents=("random",), names=("TURNOVER_BASE",),
                                   iterations=2)
    local = tuning.run(settings, tmp_path / "local")
    inits = []
    real_init = ray.init
    ray.init = lambda *args, **kwargs: inits.append(1) or real_init(*args, **kwargs)
    try:
        on_ray = tuning.run(settings, tmp_path / "ray", workers=2, backend="ray")
    finally:
        ray.init = real_init
    assert inits == [1] and not ray.is_initialized()  # one session for both iterations, closed at the end
    assert [s.theta_after for s in on_ray] == [s.theta_after for s in local]
    scores = {r["key"]: r["score"] for r in read_results(tmp_path / "local" / tuning.RESULTS_FILE)}
    assert {r["key"]: r["score"] for r in read_results(tmp_path / "ray" / tuning.RESULTS_FILE)} == scores


def test_the_kept_weights_files_read_back_as_grod_weights():
    kept = Path(__file__).resolve().parents[1] / "docs" / "tuned-weights"
    assert len(tuning.read_weights(kept / "tune-11.json")) == len(tuning.TUNABLE)
    assert set(tuning.read_weights(kept / "tune-11-grod.json")) == {
        "TURNOVER_BASE", "LOOSE_BALL_COST", "CAGE_CORNER", "POTENTIAL_SUPPORT", "MARK_CARRIER", "SCREEN_DEFENCE"}
