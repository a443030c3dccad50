"""The learned value (issue 13): features, data collection, training, the shipped models."""
from pathlib import Path

import numpy as np
import pytest

from conftest import action_key, allowed_by_botbowl, turn_position
from mcts_bot import MCTSBot
from mcts_bot.harness import collect, training
from mcts_bot.knowledge.features import FEATURE_NAMES, NUM_FEATURES, features
from mcts_bot.knowledge.value import ValueModel, learned_value, model_for, model_path

BOARDS = (1, 3, 5, 7, 11)


@pytest.mark.parametrize("board", [3, 11])
def test_features_describe_one_state_from_both_sides(board):
    game = turn_position(board, seed=board)
    home, away = game.state.home_team, game.state.away_team
    ours, theirs = features(game, home), features(game, away)
    assert ours.shape == theirs.shape == (NUM_FEATURES,) == (len(FEATURE_NAMES),)
    assert np.all(np.isfinite(ours)) and np.all(np.isfinite(theirs))
    index = {name: i for i, name in enumerate(FEATURE_NAMES)}
    for signed in ("score_diff", "acting", "next_mover", "receiving"):
        assert ours[index[signed]] == -theirs[index[signed]], signed
    for shared in ("game_left", "second_half", "ball_loose", "ball_out_of_play"):
        assert ours[index[shared]] == theirs[index[shared]], shared
    for name in ("standing", "rerolls", "future_turns", "unused"):
        assert ours[index[f"our_{name}"]] == theirs[index[f"their_{name}"]], name
    assert ours[index["acting"]] == (1.0 if game.active_team is home else -1.0)


def test_next_touchdown_targets_look_within_the_half():
    halves = np.array([1, 1, 1, 1, 2, 2, 2])
    scores = np.array([[0, 0], [0, 0], [1, 0], [1, 0], [1, 0], [1, 1], [1, 1]])
    # home scores between records 1 and 2 (half 1); away between 4 and 5 (half 2); nothing after that
    target = collect.next_touchdowns(halves, scores, final=(1, 1))
    assert target.tolist() == [1.0, 1.0, 0.5, 0.5, 0.0, 0.5, 0.5]
    # a touchdown after the last record counts for the last records of that half
    target = collect.next_touchdowns(np.array([2, 2]), np.array([[0, 0], [0, 0]]), final=(0, 1))
    assert target.tolist() == [0.0, 0.0]


def test_collection_writes_each_game_and_resumes(tmp_path):
    todo = collect.specs(1, "scripted", "scripted", games=2, base_seed=5, explore=0.1)
    assert todo == collect.specs(1, "scripted", "scripted", games=2, base_seed=5, explore=0.1)  # seeded
    record = collect.collect_game(todo[0])
    n = len(record["x"])
    assert n > 20 and record["x"].shape == (n, 2, NUM_FEATURES)
    assert set(np.unique(record["result"])) <= {0.0, 0.5, 1.0} and len(set(record["result"])) == 1
    assert record["home_acts"].any() and not record["home_acts"].all()
    assert np.all((record["heuristic"] > 0) & (record["heuristic"] < 1))
    collect.save_game(tmp_path, record)
    assert collect.missing(tmp_path, todo) == todo[1:]
    again = collect.collect_game(todo[0])
    np.testing.assert_array_equal(again["x"], record["x"])  # the same spec plays the same game


def test_a_bot_of_ones_own_is_collected_into_the_folder_itself(tmp_path):
    bot_file = tmp_path / "bots" / "my_bot.py"
    bot_file.parent.mkdir()
    bot_file.write_text("from botbowl.ai.bots.random_bot import RandomBot\n\n"
                        "class MyBot(RandomBot):\n    pass\n")
    spec = collect.specs(1, f"{bot_file}:MyBot", "scripted", games=1, base_seed=5)[0]
    path = collect.save_game(tmp_path / "data", collect.collect_game(spec))
    assert path.parent == tmp_path / "data" and collect.missing(tmp_path / "data", [spec]) == []
    assert collect.pairing_of(path.stem) == "my_bot-MyBot-vs-scripted"


def test_bad_collection_input_is_named():
    with pytest.raises(ValueError, match="unknown bot"):
        collect.CollectSpec(board=3, home="alphago", away="scripted", seed=0)
    with pytest.raises(ValueError, match="needs a budget"):
        collect.CollectSpec(board=3, home="mcts", away="scripted", seed=0)
    with pytest.raises(ValueError, match="explore"):
        collect.CollectSpec(board=3, home="scripted", away="scripted", seed=0, explore=1.5)


def _toy_games(n_games: int, seed: int) -> training.Games:
    """Games whose result a single feature predicts (with noise): training must find it."""
    rng = np.random.RandomState(seed)
    games = training.Games([], [], [], [], [])
    for g in range(n_games):
        lead = rng.normal()
        result = float(lead + 0.5 * rng.normal() > 0)
        x = rng.normal(size=(30, 2, NUM_FEATURES))
        x[:, 0, 0], x[:, 1, 0] = lead, -lead
        games.keys.append(f"g{g}")
        games.x.append(x)
        games.result.append(result)
        games.next_td.append(np.full(30, 0.5))
        games.heuristic.append(np.full(30, 0.5))
    return games


@pytest.mark.parametrize("target", ["mc", "td"])
def test_training_learns_and_scores_on_held_out_games(target, tmp_path):
    games = _toy_games(120, seed=1)
    train_games, test_games = training.split(games, 0.25, seed=0)
    assert not set(train_games.keys) & set(test_games.keys)  # split by game
    assert len(train_games) + len(test_games) == len(games)
    model = training.train(train_games, target=target, seed=0, hidden=8, epochs=15)
    results = training.scores(model, training.calibrated_heuristic(train_games), test_games)
    assert results["learned value"]["log_loss"] < 0.8 * results["constant 0.5"]["log_loss"]
    path = tmp_path / "value.npz"
    model.save(path)
    loaded = ValueModel.load(path)
    x = games.x[0][:, 0]
    np.testing.assert_allclose(loaded.predict(x), model.predict(x))


def test_fine_tuning_starts_from_the_given_value_and_keeps_it_unless_beaten():
    games = _toy_games(120, seed=1)
    fitting, validation = training.split(games, 0.15, seed=1)  # the validation part train() holds out
    x_val, y_val = validation.flat()
    start = training.train(_toy_games(60, seed=5), target="mc", seed=0, hidden=8, epochs=3)
    kept = training.train(games, target="td", seed=0, start=start, epochs=0)
    np.testing.assert_array_equal(kept.w1, start.w1)  # no epoch: the start itself
    tuned = training.train(games, target="mc", seed=0, start=start, epochs=5)
    assert tuned.w1.shape == start.w1.shape  # its hidden size, not the default's
    assert training.log_loss(tuned.predict(x_val), y_val) <= training.log_loss(start.predict(x_val), y_val)


def test_td_targets_span_monte_carlo_and_one_step():
    games = _toy_games(3, seed=2)
    model = training.fit(*games.flat(), *games.flat(), hidden=0, epochs=2)
    mc = training.td_targets(model, games, lam=1.0)
    for g, targets in zip(games.result, mc):
        assert np.all(targets == g)
    one_step = training.td_targets(model, games, lam=0.0)
    x = games.x[0]
    values = 0.5 * (model.predict(x[:, 0]) + 1 - model.predict(x[:, 1]))
    np.testing.assert_allclose(one_step[0][:-1], values[1:])
    assert one_step[0][-1] == games.result[0]


def test_a_model_of_other_features_is_refused(tmp_path):
    model = training.fit(*_toy_games(4, 3).flat(), *_toy_games(2, 4).flat(), hidden=0, epochs=1)
    path = tmp_path / "old.npz"
    model.save(path)
    with np.load(path) as data:
        arrays = dict(data)
    arrays["names"] = np.array(FEATURE_NAMES[:-1] + ["something_else"])
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match="retrain"):
        ValueModel.load(path)


def test_a_missing_model_names_the_commands_that_build_it(monkeypatch, tmp_path):
    import mcts_bot.knowledge.value as value
    monkeypatch.setattr(value, "MODELS", tmp_path)
    model_for.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match="collect --board 5.*train_value --board 5"):
            model_for(5)
    finally:
        model_for.cache_clear()


def test_a_board_without_a_model_is_scored_by_the_threat_heuristic(monkeypatch, tmp_path, caplog):
    import mcts_bot.knowledge.value as value
    from mcts_bot.knowledge.heuristics import threat_heuristic
    monkeypatch.setattr(value, "MODELS", tmp_path)
    model_for.cache_clear()
    value._model_or_none.cache_clear()
    try:
        game = turn_position(3, seed=7)
        home = game.state.home_team
        with caplog.at_level("WARNING", logger="mcts_bot"):
            assert learned_value(game, home) == threat_heuristic(game, home)
            learned_value(game, home)
        warnings = [r for r in caplog.records if "no learned value for the 3-player board" in r.getMessage()]
        assert len(warnings) == 1, "the fallback is announced once, not at every leaf"
    finally:
        model_for.cache_clear()
        value._model_or_none.cache_clear()


# Held-out games, collected apart from the models' training data (which used the base seed 0):
#   scripts/run.sh collect --board B --games 30 --seed 777 --out /tmp/valsample/value-B
# then every 6th state of each game kept as float32: tests/data/value-sample-B.npz.
SAMPLES = Path(__file__).parent / "data"


@pytest.mark.parametrize("board", BOARDS)
def test_each_shipped_model_predicts_held_out_games(board):
    assert model_path(board).exists(), f"no shipped model for the {board}-player board"
    with np.load(SAMPLES / f"value-sample-{board}.npz") as sample:
        x, result = sample["x"].astype(np.float64), sample["result"].astype(np.float64)
    assert x.shape[-1] == NUM_FEATURES, "the features changed: collect the sample again and retrain the models"
    model = model_for(board)
    home, away = model.predict(x[:, 0]), model.predict(x[:, 1])
    # Better than knowing nothing (log-loss 0.693) by a wide margin, on both teams' views.
    assert training.log_loss(np.concatenate([home, away]), np.concatenate([result, 1 - result])) < 0.6
    # Trained on both views: the two values of one state nearly sum to one.
    assert np.mean(np.abs(home + away - 1)) < 0.1


def test_the_learned_preset_decides_by_a_search_the_model_scored():
    # Not a fallback: a search ran its budget without an error, its leaves got different values
    # from the model, and the move played is one of the root's children.
    game = turn_position(3, seed=11)
    bot = MCTSBot(seconds=None, iterations=30, preset="learned", seed=0)
    bot.new_game(game, game.active_team)
    action = bot.act(game)
    assert (bot.totals.searches, bot.totals.safe_actions, bot.totals.errors) == (1, 0, 0)
    assert bot.last_stats.iterations == 30 and bot.last_stats.error is None
    assert action_key(action) in {action_key(child.action) for child in bot.last_root.children if child.visits}
    values = {round(child.value, 6) for child in bot.last_root.children if child.visits}
    assert len(values) > 1, "every leaf scored alike"
    assert allowed_by_botbowl(game, action)


def test_held_out_games_are_scored_per_pairing_of_bots_and_against_other_values():
    games = _toy_games(12, seed=2)
    pairings = ["grod-vs-grod", "mcts-default-vs-scripted", "grod-vs-grod"]
    games.keys = [collect.CollectSpec(board=11, home=pairings[i % 3].split("-vs-")[0],
                                      away=pairings[i % 3].split("-vs-")[1], seed=i, iterations=10).key
                  for i in range(len(games))]
    groups = training.by_matchup(games)
    assert list(groups) == ["grod-vs-grod", "mcts-default-vs-scripted"]
    assert [len(part) for part in groups.values()] == [8, 4]
    assert groups["mcts-default-vs-scripted"].keys == games.keys[1::3]
    good = training.fit(*games.flat(), *games.flat(), hidden=0, epochs=20)
    blind = training.fit(*games.flat(), *games.flat(), hidden=0, epochs=20)
    blind.w2 = np.zeros_like(blind.w2)  # a constant prediction
    results = training.scores(good, training.calibrated_heuristic(games), games, {"shipped value": blind})
    assert list(results)[:2] == ["learned value", "shipped value"]
    assert results["learned value"]["log_loss"] < results["shipped value"]["log_loss"]
    sums, sizes = training.game_log_losses(good, games)
    assert list(sizes) == [60] * len(games)  # 30 records from both points of view
    assert np.isclose(sums.sum() / sizes.sum(), results["learned value"]["log_loss"])
    shipped, _ = training.game_log_losses(blind, games)
    gain, low, high = training.difference_by_game(sums, shipped, sizes, seed=0)
    assert np.isclose(gain, results["learned value"]["log_loss"] - results["shipped value"]["log_loss"])
    assert low <= gain <= high < 0  # better on the whole, and shown so game by game
    assert training.difference_by_game(sums, sums, sizes) == (0.0, 0.0, 0.0)


def test_heuristic_calibration_stays_finite_when_the_heuristic_separates_the_results():
    # A heuristic that is right about every game drove the Newton steps of the calibration to
    # infinity (log-loss 4.5 on the 1-player board); the calibration must stay a sane fit.
    games = _toy_games(40, seed=5)
    for i, result in enumerate(games.result):
        games.heuristic[i] = np.full(30, 0.9 if result == 1.0 else 0.1)
    a, b = training.calibrated_heuristic(games)
    assert np.isfinite(a) and np.isfinite(b) and 0 < a < 100
    results = training.scores(training.fit(*games.flat(), *games.flat(), hidden=0, epochs=1), (a, b), games)
    assert results["threat heuristic, calibrated"]["log_loss"] < results["threat heuristic, raw"]["log_loss"]
