"""The probes of docs/probes/: `grod` with one idea changed (measured in docs/bot-bowl-board.md) loads
as bots of one's own, plays legal games, and leaves the shipped `grod` as it was; the value's
exposure inputs (docs/learned-value.md) sit on the right side and leave the collector as it was; the
stateless probe plays `grod_action`'s choice legally and counts where it differs from `GrodBot`; the
blitz replay logs each of the MCTS bot's blitzes once, as it was played; the carrier-blitz probe judges
each turn that begins with their carrier in reach once, at its start; the targets probe sharpens each
decision's visit shares alone; the open-carrier probe keeps each game as it ends and resumes; the dry
probes keep a teammate's move with dice out of the offence; the relay probe raises only the scores of
passes and hand-offs, by what their gain left out against the carrier's moves; the luck probe splits each
game into its start, play and luck, exactly, counts no luck where no dice are thrown, and resumes; the
recorded games' probes judge each carrier's turn once, count each started action once and trace
a game again as the trace did; the value's
correction with no features is the recalibration, and with them finds what the value leaves out; the
sibling probe replays a child to its leaf and our next turn alike for a seed, and its fit finds what
the leaf features add to the leaf value."""
import argparse
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from botbowl.ai.bots.random_bot import RandomBot
from botbowl.core import Action, ActionType

from conftest import (arranged_position, give_ball_to_opponent, legality_checked, mirror_ready, move_position,
                      turn_position)
import mcts_bot
from mcts_bot.harness import collect, training
from mcts_bot.harness.bots import load_agent_class
from mcts_bot.harness.games import make_game
from mcts_bot.knowledge import exposure, features, grod
from mcts_bot.knowledge.exposure import DICE, EXPOSURES, MARKED, OPEN, exposure_grid
from mcts_bot.knowledge.grod import Board

PROBE_DIR = Path(__file__).resolve().parents[1] / "docs" / "probes"
(PROBES, VALUE_PROBE, STATELESS_PROBE, BLITZ_PROBE, CARRIER_BLITZ_PROBE, TARGETS_PROBE, SCORING_PROBE,
 OPEN_CARRIER_PROBE) = (PROBE_DIR / name for name in ("grod_variants.py", "exposure_value.py", "grod_stateless.py",
                                                     "blitz_replay.py", "carrier_blitz.py", "policy_targets.py",
                                                     "scoring_chances.py", "open_carrier.py"))
SHIPPED = {name: getattr(grod, name)
           for name in ("knockdown_value", "best_plan", "price", "TURNOVER_BASE", "CLOSE_VALUE", "Board",
                        "position_map", "LOSE_BY_EXPOSURE_THIN", "FORMATIONS_KICK", "FORMATIONS_RECEIVE",
                        "PATHS_WITH_REROLL")}


def bot_probe(path: Path, bot: str):
    """The module of a probe file that defines `bot`, loaded as `--bots FILE.py:CLASS` loads it (once:
    its bots and its functions share it)."""
    return sys.modules[load_agent_class(path, bot).__module__]


def probes():
    return bot_probe(PROBES, "WeightsGrod")


@pytest.mark.parametrize("class_name", ["WeightsGrod", "LaneGrod", "SafeFirstGrod", "CageBreakGrod", "CornerCageGrod",
                                        "ExposureGrod", "ExposureCageGrod", "ReserveBlitzGrod",
                                        "UnguardedExposureGrod", "StrandedExposureGrod", "StrandedAllExposureGrod",
                                        "SpreadKickGrod", "LineReceiveGrod", "OwnFrameGrod", "OpenCageGrod",
                                        "OpenCagePairGrod", "BlocksFirstGrod", "OwnFrameWeightsGrod", "KickFirstGrod",
                                        "DesperateGrod", "FreeSupportGrod", "KeepClosedGrod", "DryBeforeCarrierGrod",
                                        "DryOffenceGrod", "LaneOwnFrameGrod", "RelayGrod", "BlitzCostGrod",
                                        "RerollPathsGrod"])
def test_each_probe_plays_a_legal_game_and_restores_grod(class_name, monkeypatch):
    monkeypatch.setenv("GROD_WEIGHTS", "TURNOVER_BASE=3")
    bot = legality_checked(load_agent_class(PROBES, class_name))(class_name, seed=1)
    game = make_game(3, bot, RandomBot("random", seed=2), seed=3)
    game.init()
    assert game.state.game_over and bot.decisions > 20 and bot.illegal == []
    assert all(getattr(grod, name) is value for name, value in SHIPPED.items())
    assert exposure.BLITZ_BLOCK_COST == 0


def test_weights_are_read_from_the_environment_with_clear_errors():
    weights_from_env = probes().weights_from_env
    assert weights_from_env("TURNOVER_BASE=3, CAGE_PACE=6") == {"TURNOVER_BASE": 3.0, "CAGE_PACE": 6.0}
    assert weights_from_env(None) == {}
    with pytest.raises(ValueError, match="not a weight"):
        weights_from_env("NO_SUCH_WEIGHT=1")
    with pytest.raises(ValueError, match="needs a number"):
        weights_from_env("TURNOVER_BASE=high")


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_lane_probe_values_an_opponent_in_the_carriers_way(side):
    lane = probes().lane_knockdown_value
    # Our carrier 8 squares out; one opponent two squares ahead of him in his row, one behind him.
    game = arranged_position(3, side, ours={0: (8, 4)}, theirs={0: (6, 4), 1: (11, 4)}, carrier=0)
    board = Board(game, game.active_team)
    in_the_way, behind = (game.get_opp_team(game.active_team).players[i] for i in (0, 1))
    assert lane(board, in_the_way) > grod.knockdown_value(board, in_the_way)
    assert lane(board, behind) == grod.knockdown_value(board, behind)


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_relay_probe_scores_a_hand_off_on_the_footing_of_the_carriers_moves(side):
    module = probes()
    # Our carrier nine squares out, a teammate five out who can run in after a hand-off; one opponent far off.
    game = arranged_position(11, side, ours={0: (9, 7), 1: (5, 5)}, theirs={0: (24, 12)}, carrier=0)
    carrier, receiver = game.active_team.players[:2]
    shipped, _ = grod.candidate_plans(Board(game, game.active_team, exposure=True, own_frame=True))
    with module.patched(module.RelayGrod.patch):
        board = Board(game, game.active_team, exposure=True, own_frame=True)
        relayed, _ = grod.candidate_plans(board)
        offset = grod._keep_value(board, carrier, [p for p in relayed if p.label in ("score", "advance the carrier")]) \
            - board.ball_value(carrier, carrier.position)
    assert offset > 0 and len(shipped) == len(relayed)
    hand_off = None
    for before, after in zip(shipped, relayed):
        assert (before.label, before.gain) == (after.label, after.gain)
        ball = after.label in ("hand off", "pass")
        assert after.score == pytest.approx(before.score + (offset if ball else 0.0))
        if after.label == "hand off" and after.steps[-1][1] == receiver.position:
            hand_off = after
    assert hand_off is not None
    assert bot_probe(SCORING_PROBE, "ScoringChanceLog").relay_chance(game, carrier)[0] > 0.5


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_cage_break_probe_values_a_guard_of_their_carrier(side):
    cage_break = probes().cage_break_knockdown_value
    # Their carrier with one guard beside him; another opponent three squares off.
    game = arranged_position(3, side, ours={0: (8, 4)}, theirs={0: (10, 3), 1: (10, 4), 2: (10, 1)})
    carrier = give_ball_to_opponent(game, 0)
    board = Board(game, game.active_team)
    guard, away = (game.get_opp_team(game.active_team).players[i] for i in (1, 2))
    assert cage_break(board, guard) > grod.knockdown_value(board, guard)
    assert cage_break(board, away) == grod.knockdown_value(board, away)
    assert cage_break(board, carrier) == grod.knockdown_value(board, carrier)


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_open_cage_probe_counts_the_dice_a_guard_down_or_a_marker_beside_would_give(side):
    module = probes()
    # Their carrier at (10, 7) with a guard on each side, (10, 6) and (10, 8): every free square
    # beside him is beside a guard. Our blitzer four squares off; a teammate who walks, with no dodge,
    # to (9, 6), beside the carrier and the guard at (10, 6).
    game = arranged_position(11, side, ours={0: (14, 5), 1: (8, 4)}, theirs={0: (10, 7), 1: (10, 6), 2: (10, 8)})
    carrier = give_ball_to_opponent(game, 0)
    blitzer, marker = game.active_team.players[:2]
    guard = game.get_opp_team(game.active_team).players[1]
    ahead = game.get_opp_endzone_x(game.active_team)
    step = 1 if ahead == 1 else -1
    front, beside = game.get_square(ahead + step * 11, 6), game.get_square(ahead + step * 9, 6)
    for square in game.get_adjacent_squares(carrier.position, occupied=False):
        for blitz in (False, True):
            assert module.attack_dice(game, blitzer, square, carrier, blitz) \
                == game.num_block_dice_at(blitzer, carrier, square, blitz=blitz)
    assert module.attack_dice(game, blitzer, front, carrier, True) == -2  # the guard assists him
    assert module.attack_dice(game, blitzer, front, carrier, True, down=guard) == 1
    assert module.attack_dice(game, blitzer, front, carrier, True, moved={marker: beside}) == 1
    board = Board(game, game.active_team)
    shipped, _ = grod.candidate_plans(board)
    with module.patched({"price": module.open_cage_price}):
        opened, _ = grod.candidate_plans(Board(game, game.active_team))

    def marker_to_beside(plans):
        return next(p for p in plans if p.player is marker and p.start == ActionType.START_MOVE
                    and p.steps[-1][1] == beside)

    assert marker_to_beside(opened).score > marker_to_beside(shipped).score
    elsewhere = [(a.score, b.score) for a, b in zip(shipped, opened) if a.player is marker
                 and a.start == ActionType.START_MOVE and a.steps[-1][1].distance(carrier.position) > 1]
    assert elsewhere and all(a == b for a, b in elsewhere)


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_paired_open_cage_probe_sees_the_two_markers_a_guarded_carrier_needs(side):
    module = probes()
    # Their carrier at (10, 7), guards at (11, 6), (11, 8) and (8, 7); our blocker between the first
    # two, beside the carrier at (11, 7), at 2 dice against. Two teammates who walk, with no dodge, to
    # (10, 6) and (10, 8): each beside the carrier and one of those guards, whose assist against the
    # block his tackle zone takes away.
    game = arranged_position(11, side, ours={0: (11, 7), 1: (8, 4), 2: (8, 10)},
                             theirs={0: (10, 7), 1: (11, 6), 2: (11, 8), 3: (8, 7)})
    carrier = give_ball_to_opponent(game, 0)
    blocker, marker, other = game.active_team.players[:3]
    ahead = game.get_opp_endzone_x(game.active_team)
    step = 1 if ahead == 1 else -1
    north, south = (game.get_square(ahead + step * 10, y) for y in (6, 8))
    here = blocker.position
    assert module.attack_dice(game, blocker, here, carrier, False) == -2
    assert module.attack_dice(game, blocker, here, carrier, False, moved={marker: north}) == -2  # one is not enough
    assert module.attack_dice(game, blocker, here, carrier, False, moved={marker: north, other: south}) == 1

    board = Board(game, game.active_team)
    plans, _ = grod.candidate_plans(board)
    block = [module.attack(board, next(p for p in plans if p.player is blocker and p.start == ActionType.START_BLOCK
                                       and p.steps[-1][1] == carrier.position), carrier)]
    now = module._attack_value(board, block[0], carrier)
    assert module._attack_value(board, block[0], carrier, moved={marker: north}) == now
    beside = module._moves_beside(board, plans, carrier)
    assert module._paired_marks(board, beside, block, carrier, marker, north) > now


def test_the_corner_cage_probe_counts_corners_above_edges(monkeypatch):
    module = probes()
    # Our carrier with two teammates: one diagonal to square A, the other beside square B.
    game = arranged_position(11, "home", ours={0: (12, 7), 1: (9, 5), 2: (9, 10)},
                             theirs={0: (3, 7)}, carrier=0)
    ahead = game.get_opp_endzone_x(game.active_team)
    step = 1 if ahead == 1 else -1
    a, b = (game.get_square(ahead + step * 10, y) for y in (6, 10))  # (9, 5) is A's corner, (9, 10) B's edge
    corner_map = module.CornerBoard(game, game.active_team).ball_map()
    assert corner_map[a.y][a.x] < corner_map[b.y][b.x]
    shipped = Board(game, game.active_team).ball_map()
    assert shipped[a.y][a.x] == shipped[b.y][b.x]  # the shipped map counts both as one
    monkeypatch.setattr(module, "CORNER_SUPPORT", 1.0)
    monkeypatch.setattr(module, "EDGE_SUPPORT", 1.0)
    assert module.CornerBoard(game, game.active_team).ball_map() == shipped  # otherwise the shipped map


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_stranded_probe_charges_a_teammates_turnover_what_the_guards_still_to_come_are_worth(side):
    module = probes()
    # The carrier alone at (10, 7), the blitzer at (13, 7) walking up to him; four teammates four and
    # five squares off could still come and guard him, unless a turnover ends the turn first.
    cage = {1: (5, 6), 2: (7, 6), 5: (5, 8), 6: (7, 8)}
    game = arranged_position(11, side, ours={0: (10, 7), **cage}, theirs={0: (13, 7)}, carrier=0)
    team = game.active_team
    carrier, mate = team.players[0], team.players[1]
    x, y = carrier.position.x, carrier.position.y
    assert exposure_grid(game, team, carrier)[y, x] == OPEN
    board = Board(game, team, exposure=True)
    alone = grod.LOSE_BY_EXPOSURE_THIN[OPEN]  # no guard beside him, nobody to close the way
    assert board.ball_map()[y][x] < alone  # those who could still come lower the shipped price...
    stranded = (alone - board.ball_map()[y][x]) * (board.worth(carrier, carrier.position) + grod.LOOSE_BALL_COST)
    assert module.stranded_cost(board) == pytest.approx(stranded) and stranded > 5  # ...which a turnover takes back
    assert module.stranded_cost(Board(game, team)) == 0.0  # only with the exposure
    beside, far = game.get_square(x, y - 1), game.get_square(x, y - 3)
    for guards_pay in (False, True):
        plans = [grod.Plan(mate, ActionType.START_MOVE, ((ActionType.MOVE, far),), 1.0, 0.5, "move"),
                 grod.Plan(mate, ActionType.START_MOVE, ((ActionType.MOVE, beside),), 1.0, 0.5, "guard"),
                 grod.Plan(carrier, ActionType.START_MOVE, ((ActionType.MOVE, far),), 1.0, 0.5, "advance")]
        module.stranded_price(plans, board, opportunity={}, guards_pay=guards_pay)
        base = 1.0 - 0.5 * grod.TURNOVER_BASE
        # A teammate's failure elsewhere strands him; his own (the loose ball, in its gain) does not, nor,
        # unless the guards pay, a guard's on his way to the carrier's side.
        guard = base - 0.5 * stranded if guards_pay else base
        assert [plan.score for plan in plans] == pytest.approx([base - 0.5 * stranded, guard, base])
    for number in cage:  # nobody left to come: nothing stranded
        team.players[number].state.used = True
    assert module.stranded_cost(Board(game, team, exposure=True)) == pytest.approx(0.0)


def file_probe(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def value_probe():
    return file_probe(VALUE_PROBE, "exposure_value_probe")


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_value_probe_adds_the_carriers_exposure_for_the_side_that_holds_him(side):
    module = value_probe()
    # Our carrier at (6, 7), an opponent standing beside him: marked.
    game = arranged_position(11, side, ours={0: (6, 7)}, theirs={0: (7, 7)}, carrier=0)
    ours, theirs = game.active_team, game.get_opp_team(game.active_team)
    assert np.flatnonzero(module.exposure_inputs(game, ours)).tolist() == [MARKED]
    assert np.flatnonzero(module.exposure_inputs(game, theirs)).tolist() == [len(EXPOSURES) + MARKED]
    inputs = module.features_with_exposure(game, ours)
    assert np.array_equal(inputs[:features.NUM_FEATURES], features.features(game, ours))
    loose = arranged_position(11, side, ours={0: (6, 7)}, theirs={0: (7, 7)}, ball=(6, 8))
    assert not module.exposure_inputs(loose, loose.active_team).any()


def test_the_value_probe_restores_the_collector_and_the_trainer():
    module = value_probe()
    with module.with_exposure():
        assert collect.NUM_FEATURES == training.NUM_FEATURES == features.NUM_FEATURES + module.EXTRA
    assert collect.features is features.features
    assert collect.NUM_FEATURES == training.NUM_FEATURES == features.NUM_FEATURES


@pytest.mark.parametrize("class_name", ["GrodStateless", "GrodStatelessOnCopies", "GrodMendedOnCopies"])
def test_the_stateless_probe_plays_grod_actions_choice_as_a_legal_bot(class_name):
    bot = legality_checked(load_agent_class(STATELESS_PROBE, class_name))(class_name, seed=1)
    game = make_game(3, bot, RandomBot("random", seed=2), seed=3)
    game.init()
    assert game.state.game_over and bot.decisions > 20 and bot.illegal == []


@pytest.mark.parametrize("copies", [False, True])
def test_the_stateless_probe_counts_where_grod_action_differs_from_grodbot(copies):
    module = bot_probe(STATELESS_PROBE, "ComparingGrod")
    differ, decisions = Counter(), Counter()
    home = module.ComparingGrod("grod", 0, differ, decisions, copies)
    away = module.ComparingGrod("grod-away", 100, differ, decisions, copies)
    make_game(3, home, away, seed=0).init()
    assert decisions["Turn"] > 10 and sum(differ.values()) < sum(decisions.values())
    # The blitz played as the block at the end of botbowl's path, by design (see grod._first_step).
    assert all(len(key) == 4 for key in differ) and differ[("BlitzAction", "BLITZ", "MOVE", "BLOCK")] > 0


def test_the_blitz_replay_logs_each_blitz_once_as_played(tmp_path):
    module = bot_probe(BLITZ_PROBE, "BlitzLog")
    out = tmp_path / "blitzes.jsonl"
    blitzes = module.replay("mcts", "random", board=1, seed=3, games=2, iterations=10, out=str(out))
    assert len(blitzes) > 3 and [json.loads(line)["steps"][0]["action"] for line in out.read_text().splitlines()] \
        == [blitz["steps"][0]["action"] for blitz in blitzes]
    for blitz in blitzes:
        actions = [step["action"].split()[0] for step in blitz["steps"]]
        assert actions[0] == "START_BLITZ" and "START_BLITZ" not in actions[1:]
        assert blitz["blocked"] == ("BLOCK" in actions) and blitz["ended"]
        assert all(step["priors_first"] and len(step["most_visited"]) <= 5 for step in blitz["steps"] if "priors_first" in step)


def logged_turns(path: Path, bot: str, side: str, tmp_path: Path):
    """A turn probe's module and its records of one game against `scripted`, checked to be the ones it
    wrote to its file, one per turn."""
    module = bot_probe(path, bot)
    out = tmp_path / "turns.jsonl"
    turns = module.play("scripted", side, seed=13000, games=1, out=str(out))
    assert turns and [json.loads(line) for line in out.read_text().splitlines()] == turns
    assert len({tuple(t["turn"]) for t in turns}) == len(turns)
    return module, turns


def test_the_carrier_blitz_probe_judges_each_turn_once_at_its_start(tmp_path):
    _, turns = logged_turns(CARRIER_BLITZ_PROBE, "CarrierBlitzLog", "away", tmp_path)
    for turn in turns:
        assert turn["exposure"] in ("exposed_marked", "exposed_open")
        assert turn["blocked_carrier"] <= ("BLOCK" in turn["actions"])
        assert turn["blitz_used_on"] != "carrier" or turn["blocked_carrier"]
        assert turn["best_on_carrier"] is None or turn["best_on_carrier"]["target"] is not None


def test_the_scoring_probe_judges_each_turn_with_our_carrier_once_and_tables_them_all(tmp_path):
    module, turns = logged_turns(SCORING_PROBE, "ScoringChanceLog", "home", tmp_path)
    assert all(0.0 <= t["p"] <= 1.0 and t["to_go"] >= 1 for t in turns)
    assert all(t["actions"] for t in turns if t["scored"])
    rows = module.table(turns).splitlines()[2:]
    assert sum(int(row.split("|")[2]) for row in rows) == len(turns)
    assert all(0.0 <= t["relay"] <= 1.0 and (t["relay_kind"] is None) == (t["relay"] == 0.0) for t in turns)
    relay_rows = module.relay_table(turns).splitlines()[2:]
    assert sum(int(row.split("|")[2]) for row in relay_rows) == sum(t["p"] < module.RELAY_FROM for t in turns)


def test_the_targets_probe_sharpens_each_decisions_visit_shares_on_its_own():
    sharpen = file_probe(TARGETS_PROBE, "policy_targets_probe").sharpen
    target, offsets = np.array([0.5, 0.3, 0.2, 0.25, 0.75]), np.array([0, 3, 5])
    assert sharpen(target, offsets, 1.0) == pytest.approx(target)
    assert sharpen(target, offsets, 0.0).tolist() == [1, 0, 0, 0, 1]
    half = sharpen(target, offsets, 0.5)
    assert half[:3] == pytest.approx(np.array([25, 9, 4]) / 38) and half[3:] == pytest.approx([0.1, 0.9])


def test_the_targets_probe_tells_the_decisions_between_player_actions_and_holds_features_at_zero():
    from mcts_bot.harness.selfplay import PolicyData
    from mcts_bot.knowledge.policy import ACTION_FEATURE_NAMES, NUM_ACTION_FEATURES
    probe = file_probe(TARGETS_PROBE, "policy_targets_probe")
    column = ACTION_FEATURE_NAMES.index
    x = np.zeros((5, NUM_ACTION_FEATURES))
    x[[0, 1], column("kind_move")] = 1  # a decision within a player action
    x[2, column("kind_start_block")] = x[3, column("kind_end_turn")] = x[4, column("kind_start_move")] = 1
    x[:, column("plan_score")] = 0.5
    data = PolicyData(x, np.full(5, 0.5), np.array([0, 2, 5]), np.array([0, 1]), np.zeros((2, features.NUM_FEATURES)))
    starts = probe.between_actions(data)
    assert starts.decisions == 1 and np.array_equal(starts.x, x[2:]) and starts.game.tolist() == [1]
    held = probe.without(data, [column("plan_score")])
    assert not held.x[:, column("plan_score")].any() and data.x[:, column("plan_score")].all()


def test_the_blocks_first_probe_throws_a_safe_block_before_a_move_and_only_then():
    choose = probes().blocks_first_best_plan

    def plan(start, score, p_turnover=0.0, deferred=False):
        return grod.Plan(None, start, (), score, p_turnover, start.name, deferred, score)

    move, block = plan(ActionType.START_MOVE, 2.0), plan(ActionType.START_BLOCK, 1.0, 0.11)
    assert choose([move, block]) is block
    assert choose([move, plan(ActionType.START_BLITZ, 1.0, 0.3)]) is move  # a one-die blitz waits
    assert choose([move, plan(ActionType.START_BLOCK, 0.1)]) is move  # not worth a player's action
    carrier = plan(ActionType.START_MOVE, 3.0, deferred=True)
    assert choose([carrier, block]) is carrier  # the carrier's own moves: the shipped rule decides
    assert choose([plan(ActionType.START_BLOCK, 3.0, 0.2), block]).score == 3.0


@pytest.mark.parametrize("class_name,kick,depth", [("OwnFrameGrod", ActionType.RECEIVE, 4),
                                                   ("KickFirstGrod", ActionType.KICK, 4),
                                                   ("OwnFrameWeightsGrod", ActionType.RECEIVE, 7)])
def test_the_kick_off_probes_choose_to_kick_first_or_kick_shorter(class_name, kick, depth, monkeypatch):
    monkeypatch.setenv("GROD_WEIGHTS", "KICK_DEPTH_FRACTION=0.27")
    chosen = {}

    class KickedOff(Exception):
        pass

    class Recording(load_agent_class(PROBES, class_name)):
        def act(self, game):
            action = super().act(game)
            chosen.setdefault(type(game.get_procedure()).__name__, (action, game.get_opp_endzone_x(self.team)))
            if "PlaceBall" in chosen:
                raise KickedOff  # the coin toss and the kick are all this test needs
            return action

    game = make_game(11, Recording(class_name, seed=1), Recording(class_name, seed=2), seed=3)
    with pytest.raises(KickedOff):
        game.init()
    assert chosen["CoinTossKickReceive"][0].action_type == kick
    ball, their_endzone = chosen["PlaceBall"]
    assert abs(ball.position.x - their_endzone) == depth


def test_the_desperate_probe_risks_turns_for_the_ball_only_late_and_not_ahead():
    probe = probes()
    # Two of ours beside their carrier, a third two squares from him, a teammate of his behind him.
    game = arranged_position(3, "home", ours={0: (8, 3), 1: (8, 5), 2: (6, 4)}, theirs={0: (9, 4), 1: (10, 4)})
    give_ball_to_opponent(game, 0)
    team = game.active_team

    def scores(half, turn, our_score):
        game.state.half, team.state.turn, team.state.score = half, turn, our_score
        board = Board(game, team)
        plans, _ = grod.candidate_plans(board)
        shipped = [p.score for p in plans]
        probe.desperate_price(plans, board)
        return probe.desperate(board), shipped, [p.score for p in plans]

    rounds = game.config.rounds
    desperate, shipped, priced = scores(2, rounds - 2, 0)
    assert desperate and any(b > a for a, b in zip(shipped, priced))
    assert all(b >= a for a, b in zip(shipped, priced))  # a turnover only ever costs less
    for half, turn, our_score in ((1, rounds - 2, 0), (2, rounds - 3, 0), (2, rounds - 2, 1)):
        desperate, shipped, priced = scores(half, turn, our_score)
        assert not desperate and shipped == priced


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_free_support_probe_counts_cover_only_from_teammates_free_to_come(side):
    module = probes()
    # The stranded probe's carrier, open to the blitzer behind him, and four teammates who could come;
    # then an opponent beside all four of them, so that each would have to dodge to come.
    cage = {1: (5, 6), 2: (7, 6), 5: (5, 8), 6: (7, 8)}
    for theirs, free in (({0: (13, 7)}, True), ({0: (13, 7), 1: (6, 7)}, False)):
        game = arranged_position(11, side, ours={0: (10, 7), **cage}, theirs=theirs, carrier=0)
        team = game.active_team
        x, y = team.players[0].position.x, team.players[0].position.y
        shipped = Board(game, team, exposure=True).ball_map()[y][x]
        priced = module.FreeSupportBoard(game, team, exposure=True).ball_map()[y][x]
        if free:
            assert priced == shipped < grod.LOSE_BY_EXPOSURE_THIN[OPEN]
        else:  # marked, they count for nothing: the carrier's price is that of one left alone
            assert shipped < priced == pytest.approx(grod.LOSE_BY_EXPOSURE_THIN[OPEN])


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_open_carrier_probe_finds_the_carriers_safe_squares_and_leaves_the_game_alone(side):
    module = file_probe(OPEN_CARRIER_PROBE, "open_carrier")
    # The carrier open to a blitzer three squares behind him; six squares on he is beyond a walk.
    game = arranged_position(11, side, ours={0: (10, 7)}, theirs={0: (13, 7)}, carrier=0)
    carrier = game.active_team.players[0]
    before = (carrier.position, game.get_opp_team(game.active_team).players[0].position)
    assert module.exposure.exposure(game, carrier) == "exposed_open"
    best, keep, here = module.options(game, carrier)
    assert best >= keep >= module.exposure.DICE and here == 10
    assert module.verdict("exposed_open", (best, keep, here)) == "safe square, no ground lost"
    assert module.verdict("exposed_open", (best, module.exposure.OPEN, here)) == "safe square, ground given"
    assert module.verdict("exposed_open", (module.exposure.OPEN,) * 2 + (here,)) == "no safe square"
    assert not module.could_close(game, carrier)  # nobody to close the way in
    assert (carrier.position, game.get_opp_team(game.active_team).players[0].position) == before


def test_the_open_carrier_probe_keeps_each_game_as_it_ends_and_resumes(tmp_path, monkeypatch, capsys):
    module = file_probe(OPEN_CARRIER_PROBE, "open_carrier")
    played = []

    def play(job):  # a stand-in game, won 1-0
        played.append(job)
        return job, {"games": 1, "points": 2, "touchdowns for": 1, "touchdowns against": 0}

    class Serial:  # the pool, in this process
        def __init__(self, processes):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def imap_unordered(self, f, jobs):
            return map(f, jobs)

    monkeypatch.setattr(module, "play", play)
    monkeypatch.setattr(module, "Pool", Serial)
    out = tmp_path / "open.jsonl"
    run = ["open_carrier.py", "--games", "2", "--opponents", "scripted", "--out", str(out)]
    monkeypatch.setattr(sys, "argv", run[:2] + ["1"] + run[3:])  # one game a side first
    module.main()
    assert len(out.read_text().splitlines()) == 2 and len(played) == 2
    monkeypatch.setattr(sys, "argv", run)
    module.main()  # the other two only, and the totals over all four
    assert len(played) == 4 and len(out.read_text().splitlines()) == 4
    assert "4 games, score 100%, touchdowns 4-0" in capsys.readouterr().out
    out.write_text("not json\n")
    with pytest.raises(SystemExit, match="line 1: not a game of this probe"):
        module.main()


def test_the_dry_probes_drop_a_teammates_move_with_dice_while_our_carrier_holds_the_ball():
    module = probes()
    # Our carrier has not acted; the mover stands in their player's tackle zone, so any move is a dodge.
    game = arranged_position(11, "home", ours={0: (10, 7), 1: (14, 7)}, theirs={0: (15, 7)}, carrier=0)
    team = game.active_team
    carrier, mover = team.players[0], team.players[1]
    board = Board(game, team, exposure=True)
    pmap = grod.position_map(board, None)
    shipped = [p for p in grod._move_plans(board, mover, pmap) if p.label == "move"]
    assert shipped and all(p.p_turnover > 1.0 - grod.SAFE for p in shipped)
    assert [p for p in module.dry_move_plans(board, mover, pmap) if p.label == "move"] == []
    carrier.state.used = True  # once he has acted, only the stricter probe still keeps the mover still
    assert len(module.dry_move_plans(board, mover, pmap)) == len(grod._move_plans(board, mover, pmap))
    assert [p for p in module.dry_move_plans(board, mover, pmap, until_carrier_acted=False) if p.label == "move"] == []


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_keep_closed_probe_charges_a_move_that_opens_the_way_to_a_carrier_who_has_acted(side):
    module = probes()
    # Our carrier has acted; their only player stands in the tackle zone of our player between them, so
    # he reaches the carrier only with a dodge. That player walking off opens the way; a step aside does not.
    game = arranged_position(11, side, ours={0: (10, 7), 1: (12, 7), 2: (20, 3)}, theirs={0: (13, 7)}, carrier=0)
    team = game.active_team
    carrier, closer, other = team.players[0], team.players[1], team.players[2]
    carrier.state.used = True
    x, y = carrier.position.x, carrier.position.y
    assert exposure_grid(game, team, carrier)[y, x] == DICE
    endzone = game.get_opp_endzone_x(team)
    step = 1 if endzone == 1 else -1
    away, aside = game.get_square(endzone + step * 20, 7), game.get_square(endzone + step * 12, 6)

    def scores(board):
        plans = [grod.Plan(closer, ActionType.START_MOVE, ((ActionType.MOVE, away),), 1.0, 0.0, "move"),
                 grod.Plan(closer, ActionType.START_MOVE, ((ActionType.MOVE, aside),), 1.0, 0.0, "move"),
                 grod.Plan(other, ActionType.START_MOVE, ((ActionType.MOVE, aside),), 1.0, 0.0, "move")]
        module.keep_closed_price(plans, board, opportunity={})
        return [plan.score for plan in plans]

    walked_off, stepped_aside, elsewhere = scores(Board(game, team, exposure=True))
    assert walked_off < 1.0 - 5 and stepped_aside == elsewhere == pytest.approx(1.0)
    assert scores(Board(game, team)) == pytest.approx([1.0] * 3)  # only with the exposure
    carrier.state.used = False  # he can still move himself: nothing charged
    assert scores(Board(game, team, exposure=True)) == pytest.approx([1.0] * 3)


def luck_probe():
    return file_probe(PROBE_DIR / "luck.py", "luck_probe")


def test_the_luck_probe_splits_each_game_into_its_start_play_and_luck_and_resumes(tmp_path, monkeypatch, capsys):
    module = luck_probe()
    out = tmp_path / "luck.jsonl"
    monkeypatch.setattr(sys, "argv", ["luck.py", "--bots", "scripted", "scripted", "--board", "3", "--games", "2",
                                      "--samples", "3", "--seed", "5", "--out", str(out)])
    module.main()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["side"] for r in records] == ["home", "away"]
    for r in records:
        assert r["result"] in (0.0, 0.5, 1.0)
        for i, luck in enumerate((r["luck"], r["luck_finished"])):
            assert r["start"][i] + r["play"][i] + luck == pytest.approx(r["result"], abs=1e-9)
        assert 0 < r["terms"] < r["decisions"]  # dice in some decisions, not in all
    assert "2 games" in capsys.readouterr().out
    module.main()  # a rerun plays nothing more
    assert len(out.read_text().splitlines()) == 2


def test_the_luck_probe_counts_no_luck_where_no_dice_are_thrown():
    module = luck_probe()
    game = arranged_position(11, "home", ours={0: (10, 7)}, theirs={0: (20, 3)})
    team = game.active_team
    meter = module.LuckMeter(team.team_id, 4, np.random.RandomState(0))
    player = team.players[0]
    start = Action(ActionType.START_MOVE, player=player)
    meter.observe(game, start)  # starting a move throws no dice
    assert meter.terms == 0 and meter._expected is None
    assert meter.start == pytest.approx([meter._last[0], meter._last[1]])


def carrier_at_their_endzone():
    """Our carrier one square from their endzone, nobody near him: the game, our team, our score and
    the carrier's move that runs in."""
    game = mirror_ready(arranged_position(11, "home", ours={0: (1, 7), 1: (12, 7)}, theirs={0: (20, 3)}, carrier=0))
    team = game.active_team
    return game, team, team.state.score, Action(ActionType.START_MOVE, player=team.players[0])


def overrule_probe():
    return file_probe(PROBE_DIR / "overrule_outcomes.py", "overrule_probe")


def test_the_overrule_probe_replays_an_action_and_plays_out_the_half_the_same_way_for_a_seed():
    module = overrule_probe()
    # Nobody near our carrier: running in beats ending the turn.
    game, team, score, run_in = carrier_at_their_endzone()
    end_turn = Action(ActionType.END_TURN)
    ran = module.half_outcome(game, run_in, team.team_id, seed=3, end_moves=True)
    assert module.half_outcome(game, run_in, team.team_id, seed=3, end_moves=True) == ran  # seeded
    stood = module.half_outcome(game, end_turn, team.team_id, seed=3, end_moves=True)
    assert isinstance(ran[0], int) and 0.0 <= stood[1] <= 1.0
    assert ran[1] > stood[1]  # a touchdown up where our next turn starts (the rest of the half may score either way)
    assert team.state.score == score and game.get_ball_carrier() is team.players[0]  # the real game untouched


def test_the_overrule_probe_sums_a_games_gains_over_every_game_played():
    module = overrule_probe()

    def overrule(key, tds):
        return {"key": key, "chosen_tds": [tds, tds], "first_tds": [0, 0], "chosen_next": [0.5], "first_next": [0.5]}

    records = [overrule("a", 1), overrule("a", 1), overrule("a", 1), overrule("b", -1)]
    assert module.bootstrap_by_game(records, "tds")[0] == pytest.approx(2 / 4)  # per overrule
    per_game = module.bootstrap_by_game(records, "tds", games=["a", "b", "c"])  # game c had none
    assert per_game[0] == pytest.approx(2 / 3) and per_game[1] <= per_game[0] <= per_game[2]
    assert module.bootstrap_by_game(records, "tds", games=["a", "b"])[0] == pytest.approx(1.0)


@pytest.fixture(scope="module")
def recorded_games(tmp_path_factory):
    """Two short games of the MCTS bot against `grod` (3 players, 5 iterations), recorded as `trace
    --record` keeps them: the settings, the folder of the recordings and the games' records by key."""
    from mcts_bot.harness import trace
    out = tmp_path_factory.mktemp("recorded")
    settings = trace.TraceSettings(board=3, bots=("mcts", "grod"), games_per_side=1, iterations=5,
                                   record=str(out / "searches"))
    records = {r["key"]: r for r in trace.run(settings, out, progress=False)}
    return settings, out / "searches", records


def test_the_search_scoring_probe_judges_each_carriers_turn_of_a_recorded_game_once(recorded_games, monkeypatch):
    monkeypatch.syspath_prepend(str(PROBE_DIR))  # it reads the knowledge probe beside it
    module = file_probe(PROBE_DIR / "search_scoring.py", "search_scoring_probe")
    settings, searches, records = recorded_games
    for spec in settings.specs():
        turns = module.game_turns(searches / f"{spec.file_key}.npz")
        assert set(turns) <= {"mcts", "grod"} and turns
        for name, score in zip(spec.bots, records[spec.key]["score"]):
            found = turns.get(name, [])
            assert len(found) <= 16  # a team's turns in a game of two halves of 8
            assert all(0.0 <= t["p"] <= 1.0 and 0.0 <= t["relay"] <= 1.0 for t in found)
            assert sum(t["scored"] for t in found) <= score  # a turn is closed once, against its own team's score
            assert all(t["actions"] for t in found if t["scored"])
            assert all(t["scored_soon"] for t in found if t["scored"]) and (score > 0 or not any(t["scored_soon"] for t in found))
        rows = module.relay_taken_table(sum(turns.values(), [])).splitlines()[2:]
        offered = [t for t in sum(turns.values(), []) if t["p"] < module.RELAY_FROM <= t["relay"]]
        assert sum(int(row.split("|")[2]) for row in rows) == len(offered)


def test_the_start_overrules_probe_counts_each_started_action_and_whether_it_was_used(recorded_games):
    from mcts_bot.harness.selfplay import read_game
    module = file_probe(PROBE_DIR / "start_overrules.py", "start_overrules_probe")
    kinds = np.array([t.value for t in (ActionType.START_BLITZ, ActionType.MOVE, ActionType.BLOCK, ActionType.END_PLAYER_TURN,
                                        ActionType.START_BLITZ, ActionType.MOVE, ActionType.END_PLAYER_TURN, ActionType.BLOCK)])
    assert module.used_after(kinds, 0) and not module.used_after(kinds, 4)  # the last BLOCK is another action's
    assert not module.used_after(kinds, 0, ActionType.PASS.value)
    rows = [row for path in sorted(recorded_games[1].glob("*.npz")) for row in module.starts(read_game(path))]
    assert rows and all(r["chosen"].startswith("START_") for r in rows)
    assert all(r["gain"] == 0.0 for r in rows if not r["overrule"])
    result = module.summary(rows)
    assert result["starts"] == len(rows) and result["overruled"] == sum(r["overrule"] for r in rows)
    for start in ("START_BLITZ", "START_PASS", "START_HANDOFF", "START_FOUL"):
        started = [r for r in rows if r["chosen"] == start]
        assert sum(result["once"][start, by]["started"] for by in ("prior", "overrule")) == len(started)
        assert sum(result["once"][start, by]["unused"] for by in ("prior", "overrule")) == \
            sum(not r["used"] for r in started)
    assert any(r["chosen"] == "START_BLITZ" for r in rows)


def test_the_overrule_guards_probe_traces_a_recorded_game_again_as_the_trace_did(recorded_games):
    from mcts_bot.harness.selfplay import read_game
    from mcts_bot.harness.trace import GUARDS, Counts
    module = file_probe(PROBE_DIR / "overrule_guards.py", "overrule_guards_probe")
    settings, searches, records = recorded_games
    found = Counter()
    for spec in settings.specs():
        record = read_game(searches / f"{spec.file_key}.npz")
        counts = module.retrace(record)
        traced = Counts.from_dict(records[spec.key]["counts"]["A"])  # the recording bot, as the trace saw it
        # the replay sees the game the trace saw: every count of the board and the reports the same
        for name in ("turn_ends_with_ball", "possessions", "turnovers", "blitzes", "dodges_tried", *GUARDS,
                     *(f"turnover_ended_{k}" for k in GUARDS), *(f"overruled_{k}" for k in GUARDS),
                     *(f"overruled_turnover_ended_{k}" for k in GUARDS)):
            assert getattr(counts, name) == getattr(traced, name), name
        split = module.by_overrule(counts)
        assert [a + b for a, b in zip(*(split[k][0] for k in split))] == [getattr(counts, k) for k in GUARDS]
        assert bool(module.overruled_moves(record)) >= any(split["with an overrule"][0])
        kinds = Counter()  # each overrule of a turn with the ball counted once, by its turn's end
        assert module.retrace(record, kinds) == counts
        assert sum(kinds.values()) <= len(module.overruled_moves(record))
        assert {end for _, end in kinds} <= {*GUARDS, "no end"}
        assert all(kind.startswith(("start: ", "within: ")) for kind, _ in kinds)
        found.update(kinds)
    assert found  # these seeded games hold overrules with our carrier on the pitch


def test_the_value_residual_probe_with_no_features_is_the_recalibration_and_finds_a_features_signal():
    probe = file_probe(Path(__file__).parent.parent / "docs" / "probes" / "value_residual.py", "value_residual")
    rng = np.random.RandomState(0)
    n = 4000
    x = rng.normal(size=(n, 3))

    class Shipped:  # a value that reads the first feature only, half as strongly as the results do
        @staticmethod
        def predict(states):
            return 1 / (1 + np.exp(-0.5 * states[:, 0]))

    truth = 1 / (1 + np.exp(-(x[:, 0] + 0.3 + 1.5 * x[:, 2])))
    data = training.SelfPlayValues(x=x, result=(rng.uniform(size=n) < truth).astype(float),
                                   root_value=np.full(n, 0.5), game=np.arange(n) // 40)
    alone = probe.Correction(Shipped, np.arange(0)).fit(data, 0.0)
    platt = training.calibrated(Shipped.predict(x), training.calibration(Shipped.predict(x), data.result))
    # the same two numbers as training's recalibration, but for its small ridge on the slope: the exact minimum
    assert training.log_loss(platt, data.result) - 1e-3 < training.log_loss(alone.predict(data), data.result) \
        <= training.log_loss(platt, data.result)
    with_third = probe.Correction(Shipped, np.array([2])).fit(data, 1e-4)
    assert with_third.w[1] > 1.0  # the feature the shipped value leaves out, found (per standard deviation)
    held = probe.corrected_out_of_fold(data, 5, 0, Shipped, np.array([2]), 1e-4)
    assert training.log_loss(held, data.result) < training.log_loss(
        probe.corrected_out_of_fold(data, 5, 0, Shipped, np.arange(0), 0.0), data.result)


def test_the_search_scope_probe_leaves_only_the_turns_choices_to_the_priors():
    scope = bot_probe(PROBE_DIR / "search_scope.py", "TurnPriorsMCTS")
    between = turn_position(11, seed=3)
    root = mcts_bot.search(between, iterations=30, seed=0)
    assert {c.action.action_type.name.split("_")[0] for c in root.children} <= {"START", "END"}
    other = root.children[-1]
    assert scope.priors_between_actions(between, root, other) is root.children[0]
    within = move_position(11, seed=4)
    root = mcts_bot.search(within, iterations=30, seed=0)
    assert scope.priors_between_actions(within, root, root.children[-1]) is root.children[-1]


def test_the_common_dice_probe_reports_overrules_agreement_and_the_gaps_spread(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("common_dice_probe", PROBE_DIR / "common_dice.py")
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    lines = []
    for name in probe.PRESET_NAMES:
        for seed, (chosen, gap) in enumerate([("A", 0.01), ("B", 0.03), ("A", 0.02)]):
            lines.append({"position": 0, "preset": name, "seed": seed, "first": "A", "chosen": chosen,
                          "children": [["A", 50, 0.5], ["B", 5, 0.5 + gap], ["C", 1, 0.9]]})
    out = tmp_path / "lines.jsonl"
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    probe.report(argparse.Namespace(out=str(out), min_visits=4))
    report = capsys.readouterr().out
    # One overrule of three searches; one seed pair of three choosing alike; B's gaps 0.01, 0.03, 0.02
    # (spread 0.01); C, with one visit, is left out.
    assert report.count("3 searches, overrules 1 (33.3%), seed pairs choosing alike 1/3 (33.3%)") == 2
    assert report.count("spread over seeds 0.0100 (median 0.0100, n=1), mean gap +0.0200") == 2


def sibling_probe():
    return file_probe(PROBE_DIR / "sibling_outcomes.py", "sibling_probe")


def test_the_sibling_probe_replays_a_child_to_its_leaf_and_our_next_turn_the_same_way_for_a_seed():
    from mcts_bot.adapter.actions import step
    from mcts_bot.adapter.search_copy import private_copy
    module = sibling_probe()
    # Nobody near our carrier: his move scores at the leaf already.
    game, team, score, run_in = carrier_at_their_endzone()
    ran = module.replay(game, run_in, team.team_id, seed=3)
    assert module.replay(game, run_in, team.team_id, seed=3) == ran  # seeded
    assert ran["leaf_tds"] == 1 and len(ran["leaf_features"]) == len(features.FEATURE_NAMES) == len(ran["next_features"])
    # Ending the turn finishes no player's action: the leaf is the position right after it, the next
    # turn's start (theirs played by `grod`) another.
    stood = module.replay(game, Action(ActionType.END_TURN), team.team_id, seed=3)
    ended = private_copy(game, 3)
    step(ended, Action(ActionType.END_TURN))
    assert stood["leaf_features"] == features.features(ended, ended.get_team_by_id(team.team_id)).tolist()
    assert stood["leaf_tds"] == stood["next_tds"] == 0 and stood["next_features"] != stood["leaf_features"]
    assert 0.0 <= stood["next_value"] <= 1.0
    assert team.state.score == score and game.get_ball_carrier() is team.players[0]  # the real game untouched


def test_the_sibling_probe_picks_the_first_child_and_the_most_visited_others():
    from mcts_bot.core.nodes import ChanceNode
    module = sibling_probe()
    children = [ChanceNode(Action(ActionType.END_TURN), is_opponent=False) for _ in range(5)]
    for child, visits in zip(children, (1, 3, 9, 5, 4)):
        child.visits = visits
    assert module.siblings(children, 3, min_visits=4) == [children[0], children[2], children[3]]
    assert module.siblings(children, 3, min_visits=10) == [children[0]]


def test_the_sibling_probe_takes_the_seeds_of_real_runs():
    # The first run on 11 players (--seed 56000) failed: its dice seeds passed numpy's 32 bits.
    module = sibling_probe()
    recorders = [module.SiblingRecorder("k", 0.2, 3, 4, 2, game_seed, "default") for game_seed in (56000, 56001)]
    assert all(0 <= r.seed < 2**31 for r in recorders) and recorders[0].seed != recorders[1].seed


def test_the_sibling_probe_records_only_the_decisions_asked_for():
    from types import SimpleNamespace
    from mcts_bot.core.nodes import ChanceNode
    module = sibling_probe()
    game, team, _, run_in = carrier_at_their_endzone()  # a turn's start: between player actions
    children = [ChanceNode(run_in, is_opponent=False), ChanceNode(Action(ActionType.END_TURN), is_opponent=False)]
    for child in children:
        child.prior, child.visits = 0.5, 5
    result = SimpleNamespace(root=SimpleNamespace(children=children))
    recorded = {}
    for kind in ("within", "between"):
        recorder = module.SiblingRecorder("k", 1.0, 2, 4, 2, 56000, "default", decisions=kind)
        recorder(game, result, run_in)
        assert recorder.decisions == 1  # counted, recorded or not
        recorded[kind] = recorder.records
    assert recorded["within"] == []
    [record] = recorded["between"]
    assert record["between_actions"] and record["played"] == 0 and len(record["siblings"]) == 2
    assert module.GameSpec("default", 120, "home", 1, 0.2, 3, 4, 8, decisions="within").key == "11p-default-120-within-home-1"


def test_the_sibling_probe_reports_each_judges_agreement_with_the_outcomes(tmp_path):
    module = sibling_probe()

    def sibling(q, leaf, outcomes):
        return {"q": q, "replays": [{"leaf_value": leaf, "next_value": o} for o in outcomes]}

    rng = np.random.RandomState(0)
    lines = []
    for game in range(4):
        key, records = f"g{game}", []
        for decision in range(6):
            truth = rng.uniform(-0.1, 0.1)
            # The leaf value tracks the outcome's gap; the search's gap is its opposite.
            records.append({"key": key, "between_actions": decision % 2 == 0, "siblings": [
                sibling(0.5, 0.5, [0.5, 0.5]), sibling(0.5 - truth, 0.5 + truth, [0.5 + truth, 0.5 + truth])]})
        lines.append({"key": key, "decisions": 30, "records": records})
    out = tmp_path / "siblings.jsonl"
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = module.report(out)
    assert report.startswith("4 games, 120 searched decisions, 24 recorded, 24 sibling pairs, 2 paired replays each")
    row = next(line for line in report.splitlines() if line.startswith("| all |"))
    assert row.split(" | ")[1:] == ["24", "-1.00 (-1.00 to -1.00)", "+1.00 (+1.00 to +1.00)",
                                    "+0.00 (+0.00 to +0.00)", "+1.00 (+1.00 to +1.00)", "1.00 |"]
    # Every judge's gaps as far apart as the outcome's, which the dice do not blur here.
    spreads = [line for line in report.splitlines() if line.startswith("| all |")][1].strip("| ").split(" | ")[1:]
    assert len(set(spreads)) == 1 and float(spreads[0]) > 0.0
    # Where the search prefers the sibling its outcome is worse; where the leaf value does, better.
    means = [line for line in report.splitlines() if line.startswith("| all |")][2].strip("| ").split(" | ")[1:]
    search_sibling, search_first, leaf_sibling, leaf_first = (float(cell.split()[0]) for cell in means)
    assert search_sibling < 0 < search_first and leaf_first < 0 < leaf_sibling
    # By the search's gap: where it puts the sibling below the first child the outcome is better, where 0.02 above, worse.
    binned = [line for line in report.splitlines() if line.startswith("| all |")][3].strip("| ").split(" | ")[1:]
    assert len(binned) == 4 and sum(int(cell.split()[-1].strip("()")) for cell in binned) == 24
    assert float(binned[0].split()[0]) > 0 > float(binned[3].split()[0])


def test_the_sibling_probes_fit_finds_what_the_leaf_features_add_to_the_leaf_value(tmp_path):
    module = sibling_probe()
    rng = np.random.RandomState(1)

    def sibling(leaf, x):
        return {"q": 0.5, "replays": [{"leaf_value": leaf, "leaf_features": x, "next_value": None}]}

    lines = []
    for game in range(10):
        records = []
        for _ in range(30):
            x, leaf = rng.normal(size=3), rng.normal(0, 0.05)
            outcome = 0.5 * leaf + 0.03 * x[0] + rng.normal(0, 0.005)  # the first feature matters beyond the value
            first, other = sibling(0.5, [0.0, 0.0, 0.0]), sibling(0.5 + leaf, x.tolist())
            first["replays"][0]["next_value"], other["replays"][0]["next_value"] = 0.5, 0.5 + outcome
            records.append({"key": f"g{game}", "siblings": [first, other]})
        lines.append({"key": f"g{game}", "decisions": 30, "records": records})
    out = tmp_path / "siblings.jsonl"
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rows = {line.split(" | ")[0].lstrip("| "): float(line.split(" | ")[1])
            for line in module.fit_report(out).splitlines() if line.startswith("| ") and "|---" not in line
            and not line.startswith("| Outcome")}
    assert rows["leaf value's gap, rescaled"] < rows["no gap"]
    assert rows["with the features' gaps, L2 0.01"] < 0.2 * rows["leaf value's gap, rescaled"]
    assert "10 games with recorded pairs, fewer than the 11 folds" in module.fit_report(out, folds=11)



def test_the_sibling_probe_keeps_each_game_as_it_ends_and_plays_only_those_missing(tmp_path):
    from mcts_bot.harness.records import play_missing
    module = sibling_probe()
    specs = [module.GameSpec("default", 5, side, 700 + i, share=0.3, siblings=2, min_visits=1, rollouts=2, board=3)
             for i, side in enumerate(("home", "away"))]
    out = tmp_path / "siblings.jsonl"
    first = play_missing(specs[:1], module.play_game, out, progress=False)
    assert first[0]["key"] == "3p-default-5-home-700" and first[0]["records"]
    assert all(len(r["siblings"]) == 2 and len(r["siblings"][0]["replays"]) == 2 for r in first[0]["records"])
    both = play_missing(specs, module.play_game, out, progress=False)
    assert both[0] == first[0] and len(out.read_text().splitlines()) == 2  # the first game was not played again
    assert module.report(out).startswith(f"2 games, {first[0]['decisions'] + both[1]['decisions']} searched decisions")


def test_a_probe_of_recorded_games_names_the_folders_without_any_and_how_to_record_some(tmp_path, monkeypatch, capsys):
    from mcts_bot.harness import probing
    monkeypatch.setattr(sys, "argv", ["probe", str(tmp_path)])
    with pytest.raises(SystemExit):
        probing.recorded_games("a probe")
    assert f"no recorded games (*.npz) in {tmp_path}: record some with scripts/run.sh trace" in capsys.readouterr().err
