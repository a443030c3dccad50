"""The learned policy's pieces: action features, the model, its fit, and the self-play records."""
from pathlib import Path

import numpy as np
import pytest

import mcts_bot
from botbowl.core import ActionType

from conftest import advance_until, move_position, run_script, tree_data, turn_position
from mcts_bot.adapter.actions import legal_actions
from mcts_bot.harness import selfplay, training
from mcts_bot.harness.bots import with_models
from mcts_bot.harness.collect import missing, save_game
from mcts_bot.harness import games
from mcts_bot.harness.games import random_position
from mcts_bot.knowledge import grod
from mcts_bot.harness.matches import GameSpec, play_game
from mcts_bot.knowledge.policy import (
    ACTION_FEATURE_NAMES,
    NUM_ACTION_FEATURES,
    PLAN_SCALE,
    PolicyModel,
    action_features,
    cross_entropy,
    fit_policy,
    rows_of,
    softmax_by_state,
    top_choice_agreement,
)
from mcts_bot.knowledge.features import NUM_FEATURES
from mcts_bot.knowledge.features import features as value_features
from mcts_bot.knowledge.priors import knowledge_priors
from mcts_bot.knowledge.value import ValueModel
from mcts_bot.knowledge.value import model_for as value_model_for
from mcts_bot.presets import PRESETS, planning_choice


@pytest.mark.parametrize("board", [3, 5, 11])
def test_the_initial_policy_is_the_knowledge_priors(board):
    # Generation 0 plays exactly what the search uses today, so a trained model starts from it.
    for seed in range(3):
        game = turn_position(board, seed=seed)
        actions = legal_actions(game)
        assert len(actions) > 1
        assert np.allclose(PolicyModel.initial()(game, actions), knowledge_priors(game, actions), atol=1e-12)


def test_on_the_bot_bowl_board_a_policy_reads_the_choice_its_preset_plans_with(tmp_path):
    # The default's 11-player priors are led by grod's choice, not the scripted policy's: generation 0
    # searching in its place must read that choice too, or it is another prior.
    default = PRESETS["default"]
    initial = PolicyModel.initial().with_choice(planning_choice(default))
    PolicyModel.initial().save(tmp_path / "gen0.npz")
    from_file = with_models("default", policy=str(tmp_path / "gen0.npz")).priors
    differs = 0
    for seed in range(4):
        game = turn_position(11, seed=seed)
        actions = legal_actions(game)
        assert np.allclose(initial(game, actions), default.priors(game, actions), atol=1e-12)
        assert np.allclose(from_file(game, actions), default.priors(game, actions), atol=1e-12)
        differs += not np.allclose(PolicyModel.initial()(game, actions), default.priors(game, actions))
    assert differs, "the scripted choice and grod's agree on every position: the test shows nothing"


def test_action_features_read_the_action():
    game = turn_position(5, seed=2)
    actions = legal_actions(game)
    x = action_features(game, actions)
    assert x.shape == (len(actions), NUM_ACTION_FEATURES)
    kinds = x[:, [i for i, name in enumerate(ACTION_FEATURE_NAMES) if name.startswith("kind_")]]  # one per action
    assert np.all(kinds.sum(axis=1) == 1)
    assert x[:, 1].sum() == 1, "the scripted policy's choice is marked once"


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_a_player_actions_start_reads_grods_price_of_that_plan(seed):
    # On a turn's decision between player actions each START_* row carries grod's best plan of that
    # kind for that player, as the default's 11-player choice prices it; its own choice is one of them.
    game = turn_position(11, seed=seed)
    actions = legal_actions(game)
    # Priced first, as the features will see it (the carrier's target remembered for the turn).
    board = grod.Board(game, game.active_team, exposure=True, own_frame=True)
    plans, _ = grod.candidate_plans(board, grod._turn_targets.get(grod._turn_key(game, board, mended=True)))
    x = action_features(game, actions, planning_choice(PRESETS["default"]))
    column = {name: i for i, name in enumerate(ACTION_FEATURE_NAMES)}
    starts = [i for i, a in enumerate(actions) if a.action_type in grod.START_TYPES]
    assert len(starts) > 3 and plans
    for i in starts:
        own = [p for p in plans if p.player.player_id == actions[i].player.player_id and p.start == actions[i].action_type]
        best = max(own, key=lambda p: p.score) if own else None
        assert x[i, column["plan_none"]] == (best is None)
        assert np.isclose(x[i, column["plan_score"]], 0.0 if best is None else np.tanh(best.score / PLAN_SCALE))
        assert np.isclose(x[i, column["plan_turnover"]], 0.0 if best is None else best.p_turnover)
    others = [i for i in range(len(actions)) if i not in starts]
    assert not x[np.ix_(others, [column["plan_score"], column["plan_turnover"], column["plan_none"]])].any()
    chosen = int(np.argmax(x[:, column["policy_choice"]]))
    if chosen in starts:
        assert x[chosen, column["plan_none"]] == 0, "grod's choice is one of its plans"
    # Smaller boards plan with the scripted policy: grod's prices are not read there.
    small = turn_position(5, seed=seed)
    assert not action_features(small, legal_actions(small))[:, column["plan_none"]].any()


@pytest.mark.parametrize("board", [3, 11])
def test_a_moves_features_are_its_paths_and_ground(board):
    # Read straight from botbowl's offered paths and the board, one action at a time.
    game = move_position(board, seed=5)
    actions = legal_actions(game)
    x = action_features(game, actions)
    column = {name: i for i, name in enumerate(ACTION_FEATURE_NAMES)}
    player = game.state.active_player
    endzone_x = 1 if player.team == game.state.home_team else game.arena.width - 2
    paths = {(p.steps[-1].x, p.steps[-1].y): p for c in game.state.available_actions
             if c.action_type == ActionType.MOVE for p in c.paths}
    moves = [i for i, a in enumerate(actions) if a.action_type == ActionType.MOVE]
    assert len(moves) > 5
    for i in moves:
        target = actions[i].position
        assert np.isclose(x[i, column["path_failure"]], 1 - paths[(target.x, target.y)].prob)
        gain = abs(endzone_x - player.position.x) - abs(endzone_x - target.x)
        assert np.isclose(x[i, column["endzone_gain"]], gain / player.get_ma())
        opponents = [p for p in game.get_adjacent_players(target, team=game.get_opp_team(player.team), down=False)
                     if p.has_tackle_zone()]
        assert np.isclose(x[i, column["target_tackle_zones"]], min(len(opponents), 4) / 4)
    assert np.all(x[moves, column["carrier"]] == float(game.get_ball_carrier() is player))


@pytest.mark.parametrize("seed, ours", [(2, True), (10, False)])
def test_a_moves_features_tell_a_guard_a_mark_and_the_ball(seed, ours):
    game = advance_until(random_position(5, seed=seed, steps=0), lambda g: g.state.active_player is not None
                         and g.get_ball_carrier() not in (None, g.state.active_player)
                         and any(c.action_type == ActionType.MOVE and c.paths for c in g.state.available_actions),
                         np.random.RandomState(seed))
    carrier = game.get_ball_carrier()
    assert (carrier.team == game.active_team) == ours
    actions = legal_actions(game)
    x = action_features(game, actions)
    column = {name: i for i, name in enumerate(ACTION_FEATURE_NAMES)}
    moves = [i for i, a in enumerate(actions) if a.action_type == ActionType.MOVE]
    beside = np.array([actions[i].position.distance(carrier.position) == 1 for i in moves], dtype=float)
    assert beside.sum() > 0
    assert np.array_equal(x[moves, column["beside_our_carrier"]], beside if ours else 0 * beside)
    assert np.array_equal(x[moves, column["beside_their_carrier"]], 0 * beside if ours else beside)
    assert not x[:, column["onto_ball"]].any(), "the ball is carried: no square holds it loose"


def test_a_move_onto_the_loose_ball_is_told():
    def ball_in_reach(g):
        ball = g.get_ball()
        return g.state.active_player is not None and ball is not None and ball.on_ground and not ball.is_carried \
            and any(c.action_type == ActionType.MOVE and any(p.steps[-1] == ball.position for p in c.paths)
                    for c in g.state.available_actions)
    game = advance_until(random_position(5, seed=3, steps=0), ball_in_reach, np.random.RandomState(3))
    actions = legal_actions(game)
    onto = action_features(game, actions)[:, ACTION_FEATURE_NAMES.index("onto_ball")]
    assert [actions[i].position for i in np.flatnonzero(onto)] == [game.get_ball().position]


def test_the_policy_as_prior_builds_the_default_tree():
    game = turn_position(3, seed=9)
    default = mcts_bot.search(game, iterations=120, seed=5)
    policy = mcts_bot.search(game, iterations=120, seed=5,
                             preset=mcts_bot.configure("default", priors=PolicyModel.initial()))
    assert tree_data(policy) == tree_data(default)


def test_fit_recovers_the_weights_that_made_the_targets():
    rng = np.random.RandomState(0)
    sizes = rng.randint(2, 12, size=400)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    x = rng.normal(size=(offsets[-1], NUM_ACTION_FEATURES))
    truth = rng.normal(size=NUM_ACTION_FEATURES)
    target = softmax_by_state(x @ truth, offsets)
    model, losses = fit_policy(x, target, offsets, l2=0.0, steps=600)
    assert losses[-1] < losses[0]
    assert np.max(np.abs(model.weights - truth)) < 0.1
    assert cross_entropy(model, x, target, offsets) < cross_entropy(PolicyModel.initial(), x, target, offsets)
    assert top_choice_agreement(model, x, target, offsets) > 0.95 > top_choice_agreement(PolicyModel.initial(), x,
                                                                                          target, offsets)


def test_a_hidden_layer_fits_what_the_linear_model_cannot():
    # The targets favour an action only when two facts hold together: no linear score says that.
    rng = np.random.RandomState(1)
    sizes = rng.randint(2, 8, size=600)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    x = (rng.uniform(size=(offsets[-1], NUM_ACTION_FEATURES)) < 0.5).astype(float)
    target = softmax_by_state(4.0 * x[:, 2] * x[:, 3], offsets)
    linear, _ = fit_policy(x, target, offsets, l2=0.0, steps=400)
    deep, losses = fit_policy(x, target, offsets, l2=0.0, steps=1500, hidden=16)
    assert losses[0] == pytest.approx(fit_policy(x, target, offsets, l2=0.0, steps=1)[1][0]), "it starts at the start"
    assert cross_entropy(deep, x, target, offsets) < cross_entropy(linear, x, target, offsets) - 0.1


def test_a_hidden_layer_with_context_reads_the_state():
    # The same action is favoured in one kind of state only: only a model that reads the state can tell.
    rng = np.random.RandomState(2)
    sizes = rng.randint(2, 8, size=600)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    x = (rng.uniform(size=(offsets[-1], NUM_ACTION_FEATURES)) < 0.5).astype(float)
    states = (rng.uniform(size=(600, NUM_FEATURES)) < 0.5).astype(float)
    target = softmax_by_state(4.0 * x[:, 2] * rows_of(states, offsets)[:, 0], offsets)
    plain, _ = fit_policy(x, target, offsets, l2=0.0, steps=1500, hidden=16)
    context, _ = fit_policy(x, target, offsets, l2=0.0, steps=1500, hidden=16, states=states)
    assert context.context and not plain.context
    assert cross_entropy(context, x, target, offsets, states) < cross_entropy(plain, x, target, offsets) - 0.1
    with pytest.raises(ValueError, match="state"):
        context.scores(x)
    with pytest.raises(ValueError, match="hidden units"):
        fit_policy(x, target, offsets, states=states)


def test_a_model_with_context_plays_from_the_game(tmp_path):
    layer = (np.ones((3, NUM_ACTION_FEATURES + NUM_FEATURES)), np.zeros(3), np.ones(3))
    model = PolicyModel(PolicyModel.initial().weights, hidden=layer)
    model.save(tmp_path / "c.npz")
    loaded = PolicyModel.load(tmp_path / "c.npz")
    assert loaded.context
    game = turn_position(5, seed=1)
    actions = legal_actions(game)
    state = value_features(game, game.active_team)
    x = action_features(game, actions)
    assert np.allclose(loaded(game, actions), loaded.probabilities(x, states=state))


def test_a_model_round_trips_and_refuses_other_features(tmp_path):
    model = PolicyModel(np.arange(NUM_ACTION_FEATURES, dtype=float), {"generation": "3"})
    model.save(tmp_path / "p.npz")
    loaded = PolicyModel.load(tmp_path / "p.npz")
    assert np.array_equal(loaded.weights, model.weights) and loaded.info == {"generation": "3"}
    layer = (np.ones((4, NUM_ACTION_FEATURES)), np.zeros(4), np.arange(4.0))
    PolicyModel(model.weights, hidden=layer).save(tmp_path / "h.npz")
    loaded = PolicyModel.load(tmp_path / "h.npz")
    assert all(np.array_equal(a, b) for a, b in zip(loaded.hidden, layer))
    x = np.eye(NUM_ACTION_FEATURES)[:5]
    assert np.allclose(loaded.scores(x), x @ model.weights + np.maximum(x @ layer[0].T, 0) @ layer[2])
    with pytest.raises(ValueError, match="weights"):
        PolicyModel(np.zeros(3))
    with pytest.raises(ValueError, match="hidden layer"):
        PolicyModel(model.weights, hidden=(np.ones((4, 3)), np.zeros(4), np.zeros(4)))
    with pytest.raises(FileNotFoundError, match="train_policy"):
        PolicyModel.load(tmp_path / "none.npz")


def test_a_self_play_game_records_each_search(tmp_path):
    spec = selfplay.specs(1, "mcts", "mcts", 1, iterations=8, base_seed=3)[0]
    record = selfplay.play_game(spec)
    offsets, visits = record["offsets"], record["visits"]
    n = len(record["chosen"])
    assert n > 20 and offsets[-1] == len(visits) == len(record["action_x"])
    assert np.all(np.add.reduceat(visits, offsets[:-1]) >= 1)
    assert np.all((record["chosen"] >= 0) & (record["chosen"] < np.diff(offsets))), "the action played is a child"
    # The features were read on the game's own players: the initial policy gives back the priors the search used.
    assert np.allclose(PolicyModel.initial().probabilities(record["action_x"], offsets), record["prior"], atol=1e-9)
    # Results from each decider's view: home and away records disagree unless it was a draw.
    home, away = record["result"][record["home"]], record["result"][~record["home"]]
    assert len(home) and len(away) and set(home) | set(away) <= {0.0, 0.5, 1.0}
    assert np.all(home == 1 - away[0])
    # Written as it ends, found again by the next run, and read back for training.
    save_game(tmp_path, record)
    assert missing(tmp_path, [spec]) == []
    data = selfplay.load([tmp_path])
    assert 0 < data.decisions <= n and np.allclose(np.add.reduceat(data.target, data.offsets[:-1]), 1.0)
    improved = selfplay.load([tmp_path], target="improved")
    assert np.array_equal(improved.offsets, data.offsets) and not np.allclose(improved.target, data.target)
    assert np.allclose(np.add.reduceat(improved.target, improved.offsets[:-1]), 1.0)
    # Games recorded before grod's plan prices (format 2, 43 features) still load off the Bot Bowl
    # board, where those prices are 0; on it they must be played again.
    plan = [i for i, name in enumerate(ACTION_FEATURE_NAMES) if name.startswith("plan_")]
    old = {k: v for k, v in record.items() if k not in ("key", "board")}
    old.update(version=np.array(2), action_x=np.delete(record["action_x"], plan, axis=1))
    (tmp_path / "v2").mkdir()
    np.savez(tmp_path / "v2" / "1p-old.npz", **old)
    assert np.array_equal(selfplay.load([tmp_path / "v2"]).x, data.x)
    (tmp_path / "v2" / "1p-old.npz").rename(tmp_path / "v2" / "11p-old.npz")
    with pytest.raises(ValueError, match="43 action features"):
        selfplay.load([tmp_path / "v2"])
    margin = selfplay.load([tmp_path], target="margin")
    assert np.array_equal(margin.offsets, data.offsets) and set(np.unique(margin.target)) <= {0.0, 1.0}
    with pytest.raises(ValueError, match="target must be one of visits, improved, margin"):
        selfplay.load([tmp_path], target="q")


def test_a_recorded_game_replays_and_its_features_are_computed_again(tmp_path):
    spec = selfplay.specs(1, "mcts", "mcts", 1, iterations=8, base_seed=3)[0]
    record = selfplay.play_game(spec)
    assert len(record["move_type"]) > len(record["chosen"]) and record["move"][-1] < len(record["move_type"])
    assert np.all(record["root_spread"] >= 0) and record["root_spread"].any()
    path = save_game(tmp_path, record)
    games._teams.cache_clear()  # new teams draw new player ids, as another process would
    again = selfplay.refeaturize(path)
    assert np.array_equal(again["action_x"], record["action_x"])
    # A replay that leaves the record says so.
    with np.load(path) as data:
        broken = {k: data[k] for k in data.files}
    broken["key"] = path.stem
    broken["seed"] = broken["seed"] + 1
    with pytest.raises(ValueError, match="the replay left the record|diverged"):
        selfplay.replay(broken, lambda *args: None)
    broken["version"] = np.array(2)
    with pytest.raises(ValueError, match="keeps no moves to replay"):
        selfplay.replay(broken, lambda *args: None)
    # The script: a folder done once, then found done; a folder of format 2 refused, with the fix.
    result = run_script("refeaturize", tmp_path, "--out", tmp_path / "again", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "again" / path.name).exists()
    assert "1 already in" in run_script("refeaturize", tmp_path, "--out", tmp_path / "again", "--workers", "1").stderr
    (tmp_path / "old").mkdir()
    np.savez(tmp_path / "old" / "x.npz", **broken)
    result = run_script("refeaturize", tmp_path / "old", "--out", tmp_path / "again")
    assert result.returncode == 2 and "recorded before format 3" in result.stderr and "record them again" in result.stderr


def test_playout_caps_search_a_share_deep_and_train_on_those_alone(tmp_path):
    spec = selfplay.specs(1, "mcts", "mcts", 1, iterations=4, base_seed=3, deep_iterations=40, deep_share=0.3)[0]
    assert spec.key.endswith("-4it-deep40x0.3")
    record = selfplay.play_game(spec)
    deep, offsets = record["deep"], record["offsets"]
    visits = np.add.reduceat(record["visits"], offsets[:-1])
    assert 0.15 < deep.mean() < 0.45, "about the share asked for, drawn per decision"
    # A deep root holds its 40 iterations (at least: a reused subtree adds its own); a fast one far fewer.
    assert np.all(visits[deep] >= 39) and np.median(visits[~deep]) < 20
    save_game(tmp_path, record)
    data = selfplay.load([tmp_path])
    deep_choices = [i for i in np.flatnonzero(deep) if offsets[i + 1] - offsets[i] >= 2]
    assert data.decisions == len(deep_choices), "only the deep searches are policy targets"
    plain = selfplay.play_game(selfplay.specs(1, "mcts", "mcts", 1, iterations=4, base_seed=3)[0])
    assert not plain["deep"].any()
    with pytest.raises(ValueError, match="must be more than the fast budget"):
        selfplay.specs(1, "mcts", "mcts", 1, iterations=40, deep_iterations=40)
    with pytest.raises(ValueError, match="deep share"):
        selfplay.specs(1, "mcts", "mcts", 1, iterations=4, deep_iterations=40, deep_share=0)


def test_a_generation_plays_with_its_policy_as_every_searchers_priors(tmp_path):
    # A policy far from the knowledge priors (it favours ending the turn): the records show it was used.
    weights = np.zeros(NUM_ACTION_FEATURES)
    weights[ACTION_FEATURE_NAMES.index("kind_end_turn")] = 5.0
    path = tmp_path / "gen9.npz"
    PolicyModel(weights).save(path)
    spec = selfplay.specs(1, "mcts", "mcts", 1, iterations=4, base_seed=3, policy=str(path))[0]
    assert spec.key.endswith("-policy-gen9")
    record = selfplay.play_game(spec)
    assert np.allclose(PolicyModel(weights).probabilities(record["action_x"], record["offsets"]), record["prior"])
    with pytest.raises(ValueError, match="no policy model at"):
        selfplay.specs(1, "mcts", "mcts", 1, iterations=4, policy=str(tmp_path / "none.npz"))
    with pytest.raises(ValueError, match="'vanilla' searches without"):
        selfplay.specs(1, "mcts", "mcts-vanilla", 1, iterations=4, policy=str(path))


def test_a_pool_of_opponents_is_played_in_turn(tmp_path):
    path = tmp_path / "gen1.npz"
    PolicyModel.initial().save(path)
    pool = ["mcts", "scripted", f"policy:{path}"]
    games = selfplay.specs(5, "mcts", pool, 7, iterations=10, base_seed=1)
    assert [g.opponent for g in games] == pool * 2 + ["mcts"]
    assert len({g.key for g in games}) == 7
    # One opponent is a pool of one: the same games as before pools existed.
    assert selfplay.specs(5, "mcts", ["mcts"], 3, 10, 1) == selfplay.specs(5, "mcts", "mcts", 3, 10, 1)
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        selfplay.specs(5, "mcts", ["mcts", "nobody"], 2, 10)
    # The earlier generation's game is saved in the data folder itself, though its name holds a path.
    spec = selfplay.specs(1, "mcts", [f"policy:{path}"], 1, iterations=4)[0]
    saved = save_game(tmp_path / "data", selfplay.play_game(spec))
    assert saved.parent == tmp_path / "data" and missing(tmp_path / "data", [spec]) == []
    assert "-vs-policy-gen1-" in saved.name


def test_the_margins_choice_is_the_favourite_unless_the_most_visited_beats_it_by_the_margin():
    prior, visits = np.array([0.6, 0.3, 0.1]), np.array([40, 50, 10])
    assert selfplay.margin_choice(prior, np.array([0.50, 0.51, 0.4]), visits).tolist() == [1, 0, 0]  # a near-tie
    assert selfplay.margin_choice(prior, np.array([0.50, 0.53, 0.4]), visits).tolist() == [0, 1, 0]
    assert selfplay.margin_choice(prior, np.array([0.50, 0.53, 0.4]), np.array([0, 50, 10])).tolist() == [0, 1, 0]
    assert selfplay.margin_choice(prior, np.array([0.50, 0.40, 0.9]), visits).tolist() == [1, 0, 0]


def test_the_improved_policy_moves_the_prior_toward_the_better_values():
    prior = np.array([0.5, 0.3, 0.2])
    # Equal values: nothing to learn beyond the prior.
    assert np.allclose(selfplay.improved_policy(prior, np.full(3, 0.6), np.array([10, 5, 1]), 0.6), prior)
    # The third child's value is the best: it gains on the prior, the worst loses.
    better = selfplay.improved_policy(prior, np.array([0.5, 0.4, 0.7]), np.array([10, 5, 3]), 0.5)
    assert np.isclose(better.sum(), 1.0) and better[2] > prior[2] and better[1] < prior[1]
    assert better[2] == better.max()
    # An unvisited child counts at the root's value (its recorded q is a placeholder).
    unvisited = selfplay.improved_policy(prior, np.array([0.5, 0.4, 0.5]), np.array([10, 5, 0]), 0.45)
    assert unvisited[2] < prior[2] and unvisited[1] < prior[1] and unvisited[0] > prior[0]
    # No priors recorded (a preset without them): uniform.
    flat = selfplay.improved_policy(np.full(3, np.nan), np.full(3, 0.5), np.array([1, 1, 1]), 0.5)
    assert np.allclose(flat, 1 / 3)


def test_a_value_is_refitted_on_self_play_games(tmp_path):
    for spec in selfplay.specs(1, "mcts", "mcts", 3, iterations=6, base_seed=5):
        save_game(tmp_path / "games", selfplay.play_game(spec))
    out = tmp_path / "value.npz"
    result = run_script("train_value", "--board", "1", "--selfplay", "--data", str(tmp_path / "games"),
                        "--root-weight", "1", "--epochs", "2", "--hidden", "4", "--out", str(out), "--test-share", "0.34")
    assert result.returncode == 0, result.stderr
    rows = [line.split("|")[1].strip() for line in result.stdout.splitlines() if line.startswith("| ") and "Value" not in line]
    assert rows == ["re-fitted value", "shipped value, recalibrated", "the search's root values", "shipped value"]
    assert "re-fitted value less the shipped value, recalibrated: " in result.stdout
    model = ValueModel.load(out)
    assert model.info["target"] == "selfplay, root weight 1" and model.w1.shape[1] == 4
    # Fine-tuning starts from the shipped weights, and keeps them when no epoch beats them.
    data = training.load_selfplay_values([tmp_path / "games"])
    shipped = value_model_for(1)
    tuned = training.train_on_selfplay(data, root_weight=1.0, epochs=0, start=shipped)
    assert np.array_equal(tuned.w1, shipped.w1) and np.array_equal(tuned.mean, shipped.mean)
    with pytest.raises(ValueError, match="root value's weight must be in"):
        training.train_on_selfplay(data, root_weight=2.0)
    # Cross-validated: every game scored by fits that did not see it; the model written is fitted on all.
    folded = run_script("train_value", "--board", "1", "--selfplay", "--data", str(tmp_path / "games"), "--folds", "3",
                        "--epochs", "2", "--hidden", "4", "--out", str(out))
    assert folded.returncode == 0, folded.stderr
    assert f"Held-out games ({len(np.unique(data.game))})" in folded.stdout and "cross-validated" in folded.stdout
    assert ValueModel.load(out).info["records"] == str(len(data.x))
    assert "--folds 99: there are only" in run_script("train_value", "--board", "1", "--selfplay", "--data",
                                                      str(tmp_path / "games"), "--folds", "99").stderr
    assert "are for self-play records" in run_script("train_value", "--board", "1", "--folds", "3").stderr
    # Collected games (scripts/run.sh collect) are not self-play records: a clear error.
    collected = Path(__file__).parent / "data"
    result = run_script("train_value", "--board", "1", "--selfplay", "--data", str(collected))
    assert result.returncode == 2 and "is not a self-play record of this version" in result.stderr


def test_out_of_fold_predicts_each_game_from_the_others_once():
    data = training.SelfPlayValues(x=np.zeros((10, 2)), result=np.ones(10), root_value=np.ones(10),
                                   game=np.repeat(np.arange(5), 2))
    held_out = []

    def predict(train, held):
        held_out.extend(np.unique(held.game))
        return np.isin(held.game, train.game).astype(float)  # 1 where a held-out game leaked into training

    assert training.out_of_fold(data, 3, 0, predict).tolist() == [0.0] * 10
    assert sorted(held_out) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="6 folds of 5 games"):
        training.out_of_fold(data, 6, 0, predict)


def test_a_calibration_mends_scale_and_bias():
    rng = np.random.RandomState(0)
    truth = rng.uniform(0.05, 0.95, 4000)
    y = (rng.uniform(size=4000) < truth).astype(float)
    overconfident = 1 / (1 + np.exp(-2 * np.log(truth / (1 - truth)) - 0.5))
    a, b = training.calibration(overconfident, y)
    assert abs(a - 0.5) < 0.1 and abs(b + 0.25) < 0.15
    assert training.log_loss(training.calibrated(overconfident, (a, b)), y) < training.log_loss(overconfident, y)


def test_train_policy_explains_a_missing_folder():
    result = run_script("train_policy", "--data", "/nonexistent/folder")
    assert result.returncode == 2 and "no self-play games in /nonexistent/folder" in result.stderr
    result = run_script("selfplay", "--bot", "scripted", "--games", "1")
    assert result.returncode == 2 and "is not one (use mcts or mcts-<preset>)" in result.stderr


def test_an_evaluation_searches_with_a_trained_policy(tmp_path):
    path = tmp_path / "policy.npz"
    PolicyModel.initial().save(path)
    spec = GameSpec(board=1, side="home", rollouts=True, seed=4, opponent="random", iterations=8, policy=str(path))
    record = play_game(spec)
    assert record["crash"] is None and record["illegal_actions"] == 0 and record["searches"] > 0
    assert spec.key.endswith(f"/policy={path}")
    with pytest.raises(ValueError, match="no policy model at"):
        GameSpec(board=1, side="home", rollouts=True, seed=4, iterations=8, policy=str(tmp_path / "none.npz"))
    with pytest.raises(ValueError, match="'vanilla' searches without"):
        GameSpec(board=1, side="home", rollouts=True, seed=4, iterations=8, preset="vanilla", policy=str(path))


def test_an_evaluation_searches_with_a_value_from_a_file(tmp_path):
    # A value that says 0.5 to every unfinished state: the search's leaves are scored by it, not the shipped one.
    shipped = value_model_for(1)
    flat = ValueModel(mean=shipped.mean, scale=shipped.scale, w2=np.zeros_like(shipped.mean), b2=0.0)
    path = tmp_path / "value.npz"
    flat.save(path)
    preset = with_models("default", value=str(path))
    game = turn_position(1, seed=2)
    assert preset.heuristic(game, game.active_team) == 0.5 != mcts_bot.get_preset("default").heuristic(
        game, game.active_team)
    spec = GameSpec(board=1, side="away", rollouts=True, seed=4, opponent="random", iterations=8, value=str(path))
    record = play_game(spec)
    assert record["crash"] is None and record["illegal_actions"] == 0 and record["searches"] > 0
    assert spec.key.endswith(f"/value={path}")
    with pytest.raises(ValueError, match="no value model at"):
        GameSpec(board=1, side="home", rollouts=True, seed=4, iterations=8, value=str(tmp_path / "none.npz"))
    np.savez(tmp_path / "stale.npz", **{k: v for k, v in np.load(path).items() if k != "names"},
             names=np.array(["another feature"]))
    with pytest.raises(ValueError, match="other features"):
        selfplay.specs(1, "mcts", "mcts", 1, iterations=4, value=str(tmp_path / "stale.npz"))


def test_the_benchmark_times_the_policy_against_the_priors_on_the_same_trees():
    result = run_script("benchmark", "--boards", "1", "--iterations", "20", "--compare", "learned-policy")
    assert result.returncode == 0, result.stderr
    rows = [[cell.strip() for cell in line.split("|")] for line in result.stdout.splitlines() if line.startswith("| 1 |")]
    assert [row[2] for row in rows] == ["on", "off"]
    assert rows[0][-2] == rows[1][-2], "generation 0 gives the priors' trees: the same nodes"


def test_a_split_by_game_holds_out_whole_games_a_share_of_them_and_the_same_for_a_seed():
    sizes = np.array([2, 3, 2, 4, 2, 3, 2, 2, 3, 2])  # ten decisions, one game each but the repeats below
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    game = np.array([0, 0, 1, 2, 2, 3, 4, 4, 5, 6])
    data = selfplay.PolicyData(np.zeros((offsets[-1], 2)), np.zeros(offsets[-1]), offsets, game, np.zeros((10, 1)))
    train, test = training.split_by_game(data, 0.3, seed=4)
    held = set(np.unique(test.game))
    assert len(held) == 2 and held.isdisjoint(train.game) and train.decisions + test.decisions == 10
    assert all((test.game == g).sum() == (game == g).sum() for g in held)  # a game's decisions stay together
    assert set(np.unique(training.split_by_game(data, 0.3, seed=4)[1].game)) == held
    assert len(np.unique(training.split_by_game(data, 0.01, seed=0)[1].game)) == 1  # at least one game held out
