"""The search: leaves the real game alone, keeps its statistics consistent, is reproducible."""
import math

import numpy as np
import pytest
from botbowl.core import Action, ActionType
from botbowl.core.procedure import Setup

import mcts_bot
from conftest import (action_key, advance_until, arranged_position, game_snapshot, in_turn, node_with, setup_position,
                      turn_position)
from mcts_bot.adapter import actions
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core import search as search_module
from mcts_bot.core.nodes import iter_action_nodes
from mcts_bot.core.policies import most_visited, robust_child
from mcts_bot.core.search import Budget, decided
from mcts_bot.harness.games import random_position


@pytest.mark.parametrize("rollouts", [False, True])
def test_real_game_untouched(rollouts):
    game = turn_position(3, seed=4)
    before = game_snapshot(game)
    root = mcts_bot.search(game, iterations=150, seed=0, rollouts=rollouts, stop_when_decided=False)
    assert root.visits == 150
    assert game_snapshot(game) == before


def test_real_game_with_forward_model_enabled_untouched():
    game = turn_position(1, seed=4)
    game.enable_forward_model()
    before = game_snapshot(game)
    mcts_bot.search(game, iterations=50, seed=0)
    assert game_snapshot(game) == before


def test_copy_of_a_forward_model_game_starts_a_fresh_log():
    # A real game whose forward model is on, with a history: the copy neither carries that history
    # nor lets its reports grow over step/revert cycles, and the real game does not change.
    game = random_position(3, seed=4, steps=0)
    game.enable_forward_model()
    game = advance_until(game, in_turn, np.random.RandomState(4))
    assert game.get_step() > 0
    before = game_snapshot(game)
    copy = private_copy(game, seed=0)
    assert copy.get_step() == 0 and copy.trajectory is not game.trajectory
    reports = len(copy.state.reports)
    assert reports == len(game.state.reports)
    root = copy.get_step()
    end_turn = next(a for a in actions.legal_actions(copy) if a.action_type == ActionType.END_TURN)
    for _ in range(20):
        actions.step(copy, end_turn)
        assert len(copy.state.reports) > reports
        copy.revert(root)
    assert len(copy.state.reports) == reports
    assert game_snapshot(game) == before


def check_invariants(root, iterations, widening):
    assert 0 < root.visits <= iterations and root.visits == sum(c.visits for c in root.children)
    for node in iter_action_nodes(root):
        assert len(node.children) <= len(node.actions)
        assert 0.0 <= node.value <= 1.0
        for child in node.children:
            assert child.visits == sum(o.visits for o in child.outcomes.values())
            assert abs(child.total_value - sum(o.total_value for o in child.outcomes.values())) < 1e-9
            for outcome in child.outcomes.values():
                # created with one visit, then each later visit went on into exactly one child
                if outcome.children:
                    assert outcome.visits == 1 + sum(c.visits for c in outcome.children)
                else:
                    assert outcome.visits >= 1
        if widening is None and not node.is_fully_expanded():
            # Without widening the tree policy chooses among tried children only once every action
            # is tried: until then each pass through the node tried a new action, once.
            assert all(c.visits == 1 for c in node.children)


@pytest.mark.parametrize("board,preset,rollouts", [(1, "default", False), (3, "default", True), (5, "vanilla", True),
                                                   (11, "vanilla", False)])
def test_tree_invariants(board, preset, rollouts):
    root = mcts_bot.search(turn_position(board, seed=7), iterations=300, seed=1, preset=preset, rollouts=rollouts)
    check_invariants(root, 300, mcts_bot.get_preset(preset).widening)


def test_root_expands_every_action_before_repeating():
    game = turn_position(3, seed=2)
    root = mcts_bot.search(game, iterations=len(actions.legal_actions(game)), seed=0, preset="vanilla")
    assert root.is_fully_expanded()
    assert all(child.visits == 1 for child in root.children)


def test_random_outcomes_branch_under_one_chance_node():
    # On the 11-player board, first turn: moves off the line need dodges, so some action's
    # outcomes must split into several ActionNodes with distinct keys.
    root = mcts_bot.search(turn_position(11, seed=0), iterations=800, seed=0)
    assert any(len(chance.outcomes) > 1 for node in iter_action_nodes(root) for chance in node.children)


def test_opponent_nodes_are_marked():
    root = mcts_bot.search(turn_position(3, seed=2), iterations=400, seed=0)
    assert not root.is_opponent
    end_turn = next(c for c in root.children if c.action.action_type == ActionType.END_TURN)
    assert all(outcome.is_opponent for outcome in end_turn.outcomes.values() if not outcome.terminal)


def shape(node, depth=3):
    """The tree as plain data (no uuids), for comparing two searches."""
    if depth == 0:
        return None
    return [(mcts_bot.core.nodes.describe_action(c.action), c.visits, round(c.total_value, 9),
             sorted((o.visits, round(o.total_value, 9), str(shape(o, depth - 1))) for o in c.outcomes.values()))
            for c in node.children]


@pytest.mark.parametrize("rollouts", [False, True])
def test_same_seed_same_tree(rollouts):
    # With an iteration budget, the search is a function of the position and the seed.
    trees = [shape(mcts_bot.search(turn_position(3, seed=9), iterations=200, seed=5, rollouts=rollouts))
             for _ in range(2)]
    assert trees[0] == trees[1]
    other = shape(mcts_bot.search(turn_position(3, seed=9), iterations=200, seed=6, rollouts=rollouts))
    assert other != trees[0]


def test_a_private_copy_is_searched_in_place_as_a_copy_would_be():
    # copy=False (the agent with search workers, and each worker) searches the given private copy
    # itself: the same tree as searching a fresh copy of the game, and the copy is left as it was
    # (but for its dice, which the search draws anew).
    game = turn_position(3, seed=9)
    preset = mcts_bot.configure("default")
    copied = mcts_bot.run_search(game, budget=Budget(iterations=150), preset=preset, rng=np.random.RandomState(5))
    own = private_copy(game, seed=0)
    before = game_snapshot(own)[:4]
    in_place = mcts_bot.run_search(own, budget=Budget(iterations=150), preset=preset, rng=np.random.RandomState(5),
                                   copy=False)
    assert shape(in_place.root) == shape(copied.root)
    assert game_snapshot(own)[:4] == before
    with pytest.raises(TypeError, match="private_copy"):
        mcts_bot.run_search(game, budget=Budget(iterations=5), preset=preset, rng=np.random.RandomState(5),
                            copy=False)


def test_formation_is_followed_by_end_setup_in_search():
    game = setup_position(3, seed=1)
    team = game.active_team
    copy = private_copy(game, seed=0)
    legal = actions.legal_actions(copy)
    assert legal and all(actions.is_formation(a) for a in legal)  # no PLACE_PLAYER / END_SETUP in the tree
    actions.step(copy, legal[0])
    setups = [p for p in copy.state.stack.items if isinstance(p, Setup) and p.team == team]
    assert not setups, "the team's set-up should have ended with END_SETUP"
    root = mcts_bot.search(game, iterations=len(legal) * 3, seed=0)
    assert {c.action.action_type for c in root.children} <= actions.FORMATION_TYPES


def test_a_blitz_that_can_block_nobody_is_pruned_by_the_default_only():
    # Two blitzers (MA 7: 9 squares with the rushes) and one standing opponent: 11 squares from the
    # first, who cannot reach him, and 9 from the second, who can.
    game = arranged_position(11, "home", ours={0: (12, 7), 1: (10, 2)}, theirs={0: (1, 7)})
    far, near = game.active_team.players[:2]

    def blitzers(found):
        return {a.player.player_id for a in found if a.action_type == ActionType.START_BLITZ}

    def can_block(player):
        copy = private_copy(game, seed=0)
        actions.step(copy, Action(ActionType.START_BLITZ, player=copy.get_player(player.player_id)))
        return any(a.action_type == ActionType.BLOCK for a in actions.legal_actions(copy))

    assert blitzers(actions.legal_actions(game)) == {far.player_id, near.player_id}
    pruned = actions.legal_actions(game, prune_dominated=True)
    assert blitzers(pruned) == {near.player_id} and (can_block(far), can_block(near)) == (False, True)
    assert len(pruned) == len(actions.legal_actions(game)) - 1  # his move, and all else, stay
    for preset, searched in (("default", {near.player_id}), ("default-no-prune", {far.player_id, near.player_id})):
        root = mcts_bot.search(game, iterations=30, seed=0, preset=preset)
        assert blitzers(c.action for c in root.children) == searched, preset


def test_the_opening_prune_ends_no_blitz_unblocked_below_the_root_only():
    # One blitzer two squares from a standing opponent, the ball loose behind him.
    game = arranged_position(11, "home", ours={0: (12, 7)}, theirs={0: (10, 7)}, ball=(14, 7))
    blitzer = game.active_team.players[0]
    blitz = Action(ActionType.START_BLITZ, player=blitzer)
    assert any(actions.same_action(a, blitz) for a in actions.legal_actions(game, prune_dominated=True))
    copy = private_copy(game, seed=0)
    actions.step(copy, Action(ActionType.START_BLITZ, player=copy.get_player(blitzer.player_id)), end_moves=True)
    at_root = actions.legal_actions(copy, prune_dominated=True)
    below = actions.legal_actions(copy, prune_dominated=True, prune_openings=True, end_moves=True)
    ball = copy.get_ball().position
    kinds = {a.action_type for a in at_root}
    assert {ActionType.END_PLAYER_TURN, ActionType.MOVE, ActionType.BLOCK} <= kinds
    assert any(a.action_type == ActionType.MOVE and a.position != ball for a in at_root)
    assert {a.action_type for a in below} == {ActionType.MOVE, ActionType.BLOCK}
    assert [a.position for a in below if a.action_type == ActionType.MOVE] == [ball]  # the pick-up, then a block
    blocks = [action_key(a) for a in at_root if a.action_type == ActionType.BLOCK]
    assert blocks and blocks == [action_key(a) for a in below if a.action_type == ActionType.BLOCK]
    # Without end_moves a move in a blitz may be followed by a block: only END_PLAYER_TURN goes.
    assert len(actions.legal_actions(copy, prune_dominated=True, prune_openings=True)) == len(at_root) - 1
    assert len(actions.legal_actions(copy, prune_dominated=True, end_moves=True)) == len(at_root)  # not asked

    # In the tree of `default-openings` (not the default's): the blitz's first step lacks them; reused
    # as the root (the agent's tree reuse), it offers them again and keeps what it had learnt.
    for preset, ends in (("default", True), ("default-openings", False)):
        root = mcts_bot.search(game, iterations=60, seed=0, preset=preset)
        chance = next(c for c in root.children if actions.same_action(c.action, blitz))
        assert chance.visits > 0
        node = next(iter(chance.outcomes.values()))
        assert any(a.action_type == ActionType.END_PLAYER_TURN for a in node.actions) == ends, preset
    before = {action_key(c.action): c.visits for c in node.children}
    reused = mcts_bot.run_search(copy, budget=Budget(iterations=10), preset=mcts_bot.get_preset("default-openings"),
                                 rng=np.random.RandomState(0), root=node).root
    assert reused is node
    assert sorted(map(action_key, reused.actions)) == sorted(map(action_key, at_root))
    assert len(reused.children) == len(at_root) and reused.visits >= 10
    assert all(c.visits >= before[action_key(c.action)] for c in reused.children if action_key(c.action) in before)
    priors = [c.prior for c in reused.children]
    assert priors == sorted(priors, reverse=True) and math.isclose(sum(priors), 1.0)


def test_the_opening_prune_ends_no_hand_off_before_its_hand_off():
    # The carrier two squares from a teammate: a hand-off action's first step, below the root, offers
    # only the hand-off at the end of a path (a move would end the action, the carrier's own move).
    game = arranged_position(11, "home", ours={0: (12, 7), 1: (10, 7)}, theirs={0: (20, 1)}, carrier=0)
    copy = private_copy(game, seed=0)
    actions.step(copy, Action(ActionType.START_HANDOFF, player=copy.get_player(game.active_team.players[0].player_id)),
                 end_moves=True)
    at_root = actions.legal_actions(copy, prune_dominated=True)
    below = actions.legal_actions(copy, prune_dominated=True, prune_openings=True, end_moves=True)
    assert {ActionType.END_PLAYER_TURN, ActionType.MOVE, ActionType.HANDOFF} <= {a.action_type for a in at_root}
    assert below and {a.action_type for a in below} == {ActionType.HANDOFF}


def test_formation_is_followed_by_end_setup_in_play():
    game = setup_position(3, seed=1)
    bot = mcts_bot.MCTSBot(iterations=20, seconds=None, seed=0)
    bot.new_game(game, game.active_team)
    first = bot.act(game)
    assert actions.is_formation(first)
    actions.advance(game, first)
    second = bot.act(game)
    assert second.action_type == ActionType.END_SETUP


def test_stats_report_the_search():
    result = mcts_bot.run_search(turn_position(5, seed=3), budget=Budget(iterations=120),
                                 preset=mcts_bot.get_preset("vanilla"), rng=np.random.RandomState(0))
    stats = result.stats
    assert stats.iterations == 120 == result.root.visits
    action_nodes = list(iter_action_nodes(result.root))
    assert stats.nodes == len(action_nodes) + sum(len(n.children) for n in action_nodes)
    assert 0 <= stats.depth_min <= stats.depth_mean <= stats.depth_max
    assert 0 < stats.botbowl_seconds < stats.seconds and stats.iterations_per_second > 0
    assert stats.error is None


def test_widening_limits_the_children():
    preset = mcts_bot.get_preset("previous")
    c, alpha = preset.widening
    root = mcts_bot.search(turn_position(11, seed=1), iterations=200, seed=0, preset=preset)
    for node in iter_action_nodes(root):
        if node.visits:
            assert len(node.children) <= math.ceil(c * node.visits ** alpha)
    assert len(root.children) < len(root.actions)


def test_widening_is_validated():
    with pytest.raises(ValueError, match="widening must be"):
        mcts_bot.configure("default", widening=(1.0, 1.5))


def test_decided_when_the_leader_cannot_be_caught():
    root = node_with([(50, 25.0), (10, 5.0), (3, 1.0)])
    assert decided(root, 39) and not decided(root, 40)


def test_search_stops_once_decided():
    # Budget beyond what the choice needs: the previous default stops early, the same search without early
    # stopping runs it all, and both choose the same action. In this position the most visited
    # child changes hands after the first hundred iterations: a search that stopped too soon
    # would choose another action.
    game = turn_position(1, seed=0)
    preset = mcts_bot.get_preset("previous")
    early = mcts_bot.run_search(game, budget=Budget(iterations=800), preset=preset, rng=np.random.RandomState(0))
    full = mcts_bot.run_search(game, budget=Budget(iterations=800), rng=np.random.RandomState(0),
                               preset=mcts_bot.configure(preset, stop_when_decided=False))
    assert early.stats.iterations < 800 == full.stats.iterations
    assert action_key(most_visited(early.root).action) == action_key(most_visited(full.root).action)


def test_prior_bias_decays_as_the_game_goes_on():
    # At the start of three successive turns of one team: within a node every child's bias is one
    # weight times its prior, and that weight shrinks from turn to turn.
    from mcts_bot.knowledge.priors import action_priors
    game = turn_position(3, seed=2)
    team, rng = game.active_team, np.random.RandomState(2)
    weights = []
    for _ in range(3):
        root = mcts_bot.search(game, iterations=60, seed=0, preset="previous", prior_bias=0.5)
        ratios = [child.bias / prior for child, prior in zip(root.children, action_priors(game, root.actions))
                  if prior > 0]
        assert ratios and max(ratios) - min(ratios) < 1e-9
        weights.append(ratios[0])
        turn = team.state.turn
        advance_until(game, lambda g: in_turn(g) and g.active_team is team and team.state.turn > turn, rng)
    assert weights[0] > weights[1] > weights[2] > 0
    assert all(child.bias == 0 for child in mcts_bot.search(game, iterations=60, seed=0, preset="previous").children)
    with pytest.raises(ValueError, match="prior_bias must be 0 or more"):
        mcts_bot.configure("default", prior_bias=-1.0)


def test_early_stop_only_for_a_most_visited_final_choice():
    # The stop is sound only when the final choice is the most visited child: the default's
    # robust final choice can still change its mind, so it runs its whole budget, and a preset
    # cannot ask for the stop with another final policy.
    game = turn_position(3, seed=8)
    default = mcts_bot.get_preset("default")
    assert not default.stop_when_decided
    result = mcts_bot.run_search(game, budget=Budget(iterations=600), preset=default, rng=np.random.RandomState(0))
    assert result.stats.iterations == 600
    with pytest.raises(ValueError, match="stop_when_decided needs the most_visited final policy"):
        default.replace(stop_when_decided=True)
    # Another final choice for a preset that stops early turns the stop off, unless asked for.
    assert not mcts_bot.configure("previous", final_policy=robust_child).stop_when_decided
    assert mcts_bot.get_preset("default-most-visited").final_policy is most_visited


def test_no_iteration_is_started_that_would_end_past_the_deadline(monkeypatch):
    class Clock:  # the search's clock, advanced only by the leaf evaluation: no dependence on the machine
        now = 0.0

        def perf_counter(self):
            return self.now

    clock = Clock()
    monkeypatch.setattr(search_module, "time", clock)

    def slow(game, team):
        clock.now += 0.15
        return 0.5

    preset = mcts_bot.configure("vanilla", rollouts=False, heuristic=slow)
    result = mcts_bot.run_search(turn_position(3, seed=3), budget=Budget(seconds=0.4), preset=preset,
                                 rng=np.random.RandomState(0))
    # Two iterations fit (0.3 s); a third, started at 0.3 s, would end at 0.45 s.
    assert result.stats.iterations == 2 and result.stats.seconds == pytest.approx(0.3)


@pytest.mark.parametrize("time_left", [True, False])
def test_past_the_deadline_no_node_has_its_priors_worked_out(time_left):
    # Priors can take tens of milliseconds (a turn's plan): an iteration that reaches a node
    # without them once the time is up ends there, as at a leaf. The root always gets them.
    game = turn_position(5, seed=1)
    team = game.active_team
    search = search_module.Search(private_copy(game, seed=1), team.team_id, mcts_bot.get_preset("default"),
                                   np.random.RandomState(0), deadline=None)
    root = search.new_node()
    search.iterate(root)
    search.deadline = None if time_left else 0.0  # perf_counter() is past 0.0
    for _ in range(30):
        search.iterate(root)
    expanded = [node for node in iter_action_nodes(root) if node.children]
    assert root.visits == 31 and expanded[0] is root
    assert (len(expanded) > 1) == time_left


@pytest.mark.parametrize("turn_tree", [False, True])
def test_a_turn_tree_chooses_only_in_the_turn_it_decides(monkeypatch, turn_tree):
    # `Preset.turn_tree`: states past the end of the turn are leaves, scored by the value, so the
    # tree policy is never asked to choose there; without it, this search goes on into the next turn.
    turns = []
    choose = search_module.Search._choose

    def recording(self, node):
        turns.append(search_module._turns(self.game))
        return choose(self, node)

    monkeypatch.setattr(search_module.Search, "_choose", recording)
    game = random_position(3, seed=2, steps=80)
    preset = mcts_bot.configure("default", turn_tree=turn_tree)
    mcts_bot.run_search(game, budget=Budget(iterations=200), preset=preset, rng=np.random.RandomState(0))
    root_turns = search_module._turns(game)
    assert len(turns) >= 200 and turns[0] == root_turns
    assert (set(turns) == {root_turns}) == turn_tree


def test_remembering_grods_choices_leaves_the_search_unchanged(monkeypatch):
    # `default-grod` remembers grod's choice per state (`RememberedChoice`): the same tree as asking
    # grod every time, with most repeated states answered from the memo.
    from mcts_bot.core.policies import RememberedChoice
    from mcts_bot.presets import GROD_CHOICE

    def tree(remember):
        monkeypatch.setattr(RememberedChoice, "enabled", remember)
        game = turn_position(11, seed=3)
        return shape(mcts_bot.search(game, iterations=60, seed=2, preset="default-grod"), depth=4)

    hits = GROD_CHOICE.hits
    remembered = tree(True)
    assert GROD_CHOICE.hits > hits
    assert tree(False) == remembered


def test_default_exposure_searches_with_grods_exposure_choice_first():
    # Our carrier among four teammates, three opponents closing in: `grod` pricing the carrier's squares
    # by exposure starts a different player than the plain `grod` does; the search's priors put its choice first.
    from mcts_bot.knowledge.grod import grod_mended_action
    game = arranged_position(11, "home", ours={0: (11, 8), 1: (9, 9), 2: (12, 11), 5: (12, 10), 6: (8, 4)},
                             theirs={0: (7, 8), 1: (3, 6), 5: (7, 3)}, carrier=0)
    expected = action_key(grod_mended_action(game, exposure=True))
    assert expected != action_key(grod_mended_action(game))
    result = mcts_bot.run_search(game, budget=Budget(iterations=30), preset=mcts_bot.get_preset("default-exposure"),
                                 rng=np.random.RandomState(0))
    assert result.stats.error is None and result.root.visits == 30
    top = max(result.root.children, key=lambda child: child.prior)
    assert action_key(top.action) == expected


@pytest.mark.parametrize("common_dice", [False, True])
def test_common_dice_give_every_sibling_the_same_dice_on_its_kth_visit(monkeypatch, common_dice):
    # `Preset.common_dice`: before the root's children are stepped, the copy's generator is in the
    # same state on each child's first visit (so their dice are alike), and in another on a child's
    # second visit (so each child still samples its outcomes); without it the generator runs on from
    # wherever the last iteration's dice left it (a revert does not restore it).
    states = {}
    step = search_module.Search.step

    def recording(self, action):
        if self.game.get_step() == self.root_step:
            child = next(c for c in self.root.children if c.action is action)
            _, key, position, *_ = self.game.rng.get_state()
            states.setdefault(child.visits, []).append((key.tobytes(), position))
        return step(self, action)

    iterate = search_module.Search.iterate

    def remembering(self, root):
        self.root, self.root_step = root, self.game.get_step()
        return iterate(self, root)

    monkeypatch.setattr(search_module.Search, "step", recording)
    monkeypatch.setattr(search_module.Search, "iterate", remembering)
    preset = mcts_bot.configure("default", common_dice=common_dice)
    mcts_bot.run_search(turn_position(3, seed=9), budget=Budget(iterations=150), preset=preset,
                        rng=np.random.RandomState(0))
    first, second = states[0], states[1]
    assert len(first) >= 3 and len(second) >= 2
    assert (len(set(first)) == 1) == common_dice and (len(set(second)) == 1) == common_dice
    assert len(set(first) | set(second)) >= 2


def test_common_dice_searches_are_reproducible_and_change_the_tree():
    preset = mcts_bot.configure("default", common_dice=True)

    def tree(seed):
        return shape(mcts_bot.run_search(turn_position(3, seed=9), budget=Budget(iterations=150), preset=preset,
                                         rng=np.random.RandomState(seed)).root)

    assert tree(5) == tree(5)
    assert tree(5) != shape(mcts_bot.search(turn_position(3, seed=9), iterations=150, seed=5))
