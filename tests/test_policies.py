"""Tree and final policies on hand-built nodes."""
import gc
import math
import random
import weakref

import numpy as np
import pytest
from botbowl.core import Action, ActionType
from botbowl.core.model import Player, Square

from conftest import node_with, turn_position
from mcts_bot.adapter.actions import step
from mcts_bot.adapter.game_memos import MAX_GAMES, game_memo
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.core.policies import (idle_action_as_move, lower_bound, most_visited, normalized_ucb1, puct, robust_child,
                                  ucb1)
from mcts_bot.presets import board_choice, get_preset


def test_ucb1_maximises_on_our_nodes():
    node = node_with([(10, 3.0), (10, 7.0), (10, 5.0)])
    assert ucb1(node) is node.children[1]


def test_ucb1_minimises_on_the_opponents_nodes():
    node = node_with([(10, 3.0), (10, 7.0), (10, 5.0)], opponent=True)
    assert ucb1(node) is node.children[0]


def test_ucb1_explores_rarely_visited_children():
    # Lower mean but far fewer visits: the exploration term wins with the seed's constant...
    node = node_with([(100, 60.0), (2, 1.0)])
    assert ucb1(node) is node.children[1]
    # ...and loses when exploration is switched off.
    assert ucb1(node, c=0.0) is node.children[0]


def test_ucb1_formula_is_the_seeds():
    node = node_with([(4, 2.0), (6, 3.6)])
    c = 0.707
    scores = [0.5 + 2 * c * math.sqrt(2 * math.log(10) / 4), 0.6 + 2 * c * math.sqrt(2 * math.log(10) / 6)]
    assert ucb1(node) is node.children[scores.index(max(scores))]


def test_ucb1_takes_an_unvisited_child_first():
    node = node_with([(5, 5.0), (0, 0.0)])
    assert ucb1(node) is node.children[1]


def test_most_visited_picks_visits_over_value():
    node = node_with([(30, 12.0), (31, 3.0), (5, 5.0)])
    assert most_visited(node) is node.children[1]


def test_most_visited_tie_break_is_value_then_order_whatever_the_order():
    stats = [(20, 8.0), (20, 12.0), (20, 12.0), (19, 19.0)]
    for seed in range(10):
        node = node_with(stats)
        random.Random(seed).shuffle(node.children)
        best = most_visited(node)
        assert (best.visits, best.total_value) == (20, 12.0)
        # among the exact ties, the earlier child in expansion order wins
        tied = [c for c in node.children if (c.visits, c.total_value) == (20, 12.0)]
        assert best is tied[0]


def test_normalized_ucb1_is_scale_free():
    # The same preferences on a tiny value scale and on a wide one give the same choices.
    for scale in (0.01, 1.0):
        node = node_with([(10, 10 * (0.5 + 0.3 * scale)), (10, 10 * (0.5 + 0.1 * scale)), (40, 40 * 0.5)])
        assert normalized_ucb1(node, min_span=0.0) is node.children[0]
        opponent = node_with([(10, 10 * (0.5 + 0.3 * scale)), (10, 10 * (0.5 + 0.1 * scale)), (40, 40 * 0.5)],
                             opponent=True)
        assert normalized_ucb1(opponent, min_span=0.0) is opponent.children[2]  # the lowest value for us


def test_normalized_ucb1_does_not_blow_up_noise():
    # A child one unlucky roll behind (0.003) is not written off: below min_span, exploration decides.
    node = node_with([(40, 40 * 0.5225), (3, 3 * 0.5196)])
    assert normalized_ucb1(node, min_span=0.0) is node.children[0]
    assert normalized_ucb1(node) is node.children[1]


def test_normalized_ucb1_explores_with_its_constant():
    node = node_with([(200, 200 * 0.6), (2, 2 * 0.5)])
    assert normalized_ucb1(node, c=1.0) is node.children[1]
    assert normalized_ucb1(node, c=0.05) is node.children[0]


def with_priors(node, priors):
    """`node` with these priors on its children, and its own value their visits' mean."""
    for child, prior in zip(node.children, priors):
        child.prior = prior
    node.total_value = sum(child.total_value for child in node.children)
    return node


def test_puct_follows_values_and_priors_from_the_choosing_side():
    # Equal visits and priors: the best mean for the side choosing.
    node = with_priors(node_with([(10, 5.0), (10, 7.0)]), [0.5, 0.5])
    assert puct(node) is node.children[1]
    opponent = with_priors(node_with([(10, 5.0), (10, 7.0)], opponent=True), [0.5, 0.5])
    assert puct(opponent) is opponent.children[0]
    # A far higher prior outweighs a slightly lower value when its visits are few.
    node = with_priors(node_with([(2, 1.0), (20, 10.4)]), [0.9, 0.1])
    assert puct(node) is node.children[0]


def test_puct_min_span_keeps_small_differences_small():
    # Children 0.02 apart: rescaled over the children alone (min_span 0.01) that gap is the whole
    # scale and the better mean wins; over at least 0.1 it is a fifth of it and the prior decides.
    node = with_priors(node_with([(20, 20 * 0.50), (20, 20 * 0.52)]), [0.8, 0.2])
    assert puct(node) is node.children[1]
    assert puct(node, min_span=0.1) is node.children[0]


def test_vanilla_is_the_seeds_algorithm():
    from mcts_bot import get_preset
    from mcts_bot.core.policies import botbowl_order, random_rollout_policy
    from mcts_bot.knowledge.heuristics import material_heuristic
    vanilla = get_preset("vanilla")
    assert vanilla.tree_policy is ucb1 and vanilla.final_policy is most_visited
    assert vanilla.heuristic is material_heuristic and vanilla.action_order is botbowl_order
    assert vanilla.rollout_policy is random_rollout_policy and vanilla.rollouts is False
    assert vanilla.widening is None and not vanilla.reuse_tree and not vanilla.stop_when_decided


def test_the_default_plans_with_grod_on_the_bot_bowl_board_and_the_scripted_policy_on_smaller_ones(monkeypatch):
    from functools import partial

    from conftest import turn_position
    from mcts_bot import get_preset, presets
    from mcts_bot.knowledge.priors import knowledge_priors
    from mcts_bot.knowledge.scripted import scripted_action
    # The choice it plans with prices the carrier's squares by their exposure and settles ties in its own
    # frame; the defaults before did neither, then not the second.
    assert presets.GROD_OWN_FRAME_CHOICE.policy.keywords == {"exposure": True, "own_frame": True}
    assert get_preset("default-no-exposure").rollout_policy.keywords == {"grod": presets.GROD_MENDED_CHOICE}
    for name in ("default-board-order", "default-exposure"):
        assert get_preset(name).rollout_policy.keywords == {"grod": presets.GROD_EXPOSURE_CHOICE}
        assert get_preset(name).priors.keywords["choose"].keywords == {"grod": presets.GROD_EXPOSURE_CHOICE}
    assert presets.GROD_EXPOSURE_CHOICE.policy.keywords == {"exposure": True}
    monkeypatch.setattr(presets.GROD_OWN_FRAME_CHOICE, "policy", lambda game, rng=None: "grod")
    monkeypatch.setattr(presets, "scripted_action", lambda game, rng=None: "scripted")
    assert [presets.board_choice(turn_position(board, seed=0)) for board in (11, 5, 3)] == ["grod", "scripted", "scripted"]
    default = get_preset("default")
    assert default.rollout_policy is presets.board_choice
    assert isinstance(default.priors, partial) and default.priors.func is knowledge_priors
    assert default.priors.keywords == {"choose": presets.board_choice}
    # Its final choice asks an overrule for a margin on the Bot Bowl board only.
    finals = [default.for_game(turn_position(board, seed=0)).final_policy for board in (11, 5, 3)]
    assert [final.keywords for final in finals] == [{"z": 3.0, "min_gain": 0.02}, {"z": 3.0}, {"z": 3.0}]
    assert all(final.func is robust_child for final in finals)
    # The default until the change, on every board; and `learned`, the settings its measurements ran with.
    for name in ("default-scripted", "learned"):
        assert get_preset(name).priors is knowledge_priors and get_preset(name).rollout_policy is scripted_action


def test_a_childs_bias_adds_to_its_score():
    node = node_with([(10, 6.0), (10, 5.0)])
    assert ucb1(node) is node.children[0] and normalized_ucb1(node) is node.children[0]
    node.children[1].bias = 2.0
    assert ucb1(node) is node.children[1] and normalized_ucb1(node) is node.children[1]


def _rooted(stats, priors, spread):
    """A root with these (visits, mean) children and priors, whose values spread by `spread`."""
    node = with_priors(node_with([(visits, visits * mean) for visits, mean in stats]), priors)
    n = node.visits
    mean = node.total_value / n
    node.total_square = n * (spread ** 2 * (n - 1) / n + mean ** 2)
    return node


def test_robust_child_keeps_the_priors_choice_unless_another_is_better_beyond_doubt():
    # Second child 0.52 against the first's 0.50 over 10 visits, values spread by 0.1: its lower
    # bound 0.52 - 0.1 / sqrt(10) = 0.488 is below 0.50, so the prior's choice stays.
    node = _rooted([(20, 0.50), (10, 0.52)], [0.6, 0.4], spread=0.1)
    assert robust_child(node) is node.children[0]
    # The same gap with a fifth of the spread (the least it counts with) is beyond doubt: 0.52 -
    # 0.02 / sqrt(10) > 0.50.
    calm = _rooted([(20, 0.50), (10, 0.52)], [0.6, 0.4], spread=0.01)
    assert robust_child(calm) is calm.children[1]
    # Unless the bound must also clear a margin: 0.514 is not 0.02 above 0.50.
    assert robust_child(calm, min_gain=0.02) is calm.children[0]
    assert robust_child(calm, min_gain=0.01) is calm.children[1]
    clear = _rooted([(20, 0.50), (30, 0.60)], [0.6, 0.4], spread=0.1)
    assert robust_child(clear) is clear.children[1]
    # Not the most visited either: the best lower bound wins among the others.
    three = _rooted([(40, 0.50), (30, 0.56), (6, 0.70)], [0.5, 0.3, 0.2], spread=0.1)
    assert robust_child(three) is three.children[2]  # 0.70 - 0.1 / sqrt(6) = 0.659 beats 0.56 - 0.018


def test_the_lower_bound_counts_the_whole_nodes_spread_with_a_floor():
    node = _rooted([(20, 0.50), (16, 0.60)], [0.6, 0.4], spread=0.1)
    assert lower_bound(node, node.children[1], z=2.0) == pytest.approx(0.60 - 2.0 * 0.1 / 4)
    calm = _rooted([(20, 0.50), (16, 0.60)], [0.6, 0.4], spread=0.001)
    assert lower_bound(calm, calm.children[1]) == pytest.approx(0.60 - 0.02 / 4)  # the floor, not 0.001
    assert lower_bound(calm, calm.children[1], min_spread=0.04) == pytest.approx(0.60 - 0.04 / 4)


def test_robust_child_when_the_search_turned_away_from_the_priors_choice():
    # The first child has fewer than min_visits visits: the best lower bound among the others.
    node = _rooted([(2, 0.9), (20, 0.45), (10, 0.55)], [0.7, 0.2, 0.1], spread=0.1)
    assert robust_child(node) is node.children[2]
    # Nobody with min_visits: the most visited.
    few = _rooted([(3, 0.5), (2, 0.9)], [0.7, 0.3], spread=0.1)
    assert robust_child(few) is few.children[0]


def test_robust_child_without_priors_is_most_visited():
    node = node_with([(5, 4.0), (9, 3.0), (7, 6.0)])
    assert robust_child(node) is most_visited(node) is node.children[1]
    with pytest.raises(ValueError, match="at least one child"):
        robust_child(node_with([]))


def test_a_remembered_choice_asks_once_per_state_of_each_game_and_pickles_without_its_memo():
    import copy
    import pickle

    from conftest import turn_position
    from mcts_bot.core.policies import RememberedChoice

    asked = []

    def policy(game, rng=None):
        asked.append(game)
        return "choice"

    remembered = RememberedChoice(policy)
    game = turn_position(3, seed=1)
    other = copy.deepcopy(game)  # the same state, but its own players: a remembered action would name the wrong ones
    assert [remembered(game), remembered(game), remembered(other)] == ["choice"] * 3
    assert asked == [game, other] and (remembered.hits, remembered.misses) == (1, 2)
    sent = pickle.loads(pickle.dumps(RememberedChoice(ucb1)))  # as presets go to search workers
    assert sent.policy is ucb1 and sent.hits == 0


def test_per_game_memos_let_go_of_games_their_values_lead_back_to():
    class Game:  # a value naming the game's player leads back to the game, as under the forward model
        pass

    memos = weakref.WeakKeyDictionary()
    alive = []
    for _ in range(MAX_GAMES + 4):
        game = Game()
        game_memo(memos, game)["state"] = game
        alive.append(weakref.ref(game))
    assert game_memo(memos, game) is memos[game]  # the newest keeps its memo
    del game
    gc.collect()
    assert sum(ref() is not None for ref in alive) == MAX_GAMES and alive[-1]() is not None


def test_the_knowledge_on_copies_played_forward_and_dropped_keeps_a_bounded_number_of_them():
    # A probe's replay: a private copy (forward model on) played on by the knowledge, never reverted.
    game = turn_position(11, seed=3)
    copies = []
    for seed in range(MAX_GAMES + 4):
        copy = private_copy(game, seed)
        for _ in range(3):
            step(copy, board_choice(copy, np.random.RandomState(seed)), True)
        copies.append(weakref.ref(copy))
    del copy
    gc.collect()
    assert sum(ref() is not None for ref in copies) <= MAX_GAMES


def _blitz_tree(then_kind, then_offers, move_offered=True, start=ActionType.START_BLITZ, act=ActionType.BLOCK):
    """A root offering X's blitz (or `start`; searched: its continuation `then_kind` most visited, whose
    outcome offers `then_offers`; a block, or `act`, tried less), Y's move, and X's move if `move_offered`
    (never visited)."""
    x, y = (Player(pid, role=None, name=pid, nr=1, team=None) for pid in ("x", "y"))
    root = ActionNode(key=0, actions=[], is_opponent=False, terminal=False)
    blitz = ChanceNode(Action(start, player=x), False)
    started = ActionNode(key=1, actions=[], is_opponent=False, terminal=False)
    then = ChanceNode(Action(then_kind, position=Square(5, 5)), False)
    then.visits = 30
    then.outcomes[2] = ActionNode(key=2, actions=[Action(kind) for kind in then_offers], is_opponent=False, terminal=False)
    block = ChanceNode(Action(act, position=Square(6, 5)), False)
    block.visits = 10
    started.children = [then, block]
    blitz.outcomes[1] = started
    blitz.visits = 40
    root.children = [ChanceNode(Action(ActionType.START_MOVE, player=y), False), blitz]
    if move_offered:
        root.children.append(ChanceNode(Action(ActionType.START_MOVE, player=x), False))
    return root, blitz


def test_a_blitz_its_subtree_would_only_move_with_is_played_as_the_players_move():
    after_a_move = (ActionType.START_MOVE, ActionType.START_BLOCK, ActionType.END_TURN)  # his action over
    root, blitz = _blitz_tree(ActionType.MOVE, after_a_move)
    played = idle_action_as_move(root, blitz)
    assert played.action.action_type == ActionType.START_MOVE and played.action.player.player_id == "x"
    assert played.visits == 0  # never searched: the blitz's move was, and the move action does the same
    root, blitz = _blitz_tree(ActionType.END_PLAYER_TURN, after_a_move)
    assert idle_action_as_move(root, blitz) is root.children[2]
    # Kept: the block most visited; a move after which a block is offered (the ball picked up); no move to play.
    for then, offers, move in ((ActionType.BLOCK, after_a_move, True), (ActionType.MOVE, (ActionType.BLOCK,), True),
                               (ActionType.MOVE, after_a_move, False)):
        root, blitz = _blitz_tree(then, offers, move)
        assert idle_action_as_move(root, blitz) is blitz
    root, blitz = _blitz_tree(ActionType.MOVE, after_a_move)
    blitz.outcomes[1].children[0].visits = blitz.outcomes[1].children[1].visits = 0
    assert idle_action_as_move(root, blitz) is blitz  # its continuations never searched: nothing known
    root, _ = _blitz_tree(ActionType.MOVE, after_a_move)
    assert idle_action_as_move(root, root.children[0]) is root.children[0]  # not a blitz: as chosen


def test_a_hand_off_or_foul_its_subtree_would_only_move_in_is_played_as_the_move_when_asked():
    after_a_move = (ActionType.START_MOVE, ActionType.END_TURN)
    for start, act in ((ActionType.START_HANDOFF, ActionType.HANDOFF), (ActionType.START_FOUL, ActionType.FOUL)):
        root, started = _blitz_tree(ActionType.MOVE, after_a_move, start=start, act=act)
        assert idle_action_as_move(root, started) is started  # blitzes only, unless asked
        assert idle_action_as_move(root, started, (start,)) is root.children[2]
        root, started = _blitz_tree(ActionType.MOVE, (act,), start=start, act=act)  # the ball picked up: he may still
        assert idle_action_as_move(root, started, (start,)) is started


def test_a_pass_whose_thrower_the_search_would_only_move_is_played_as_the_move_when_asked():
    # A move does not end a pass: where the thrower may still throw, what the search does next decides.
    pass_ = (ActionType.START_PASS,)
    may_throw = (ActionType.MOVE, ActionType.PASS, ActionType.END_PLAYER_TURN)
    root, started = _blitz_tree(ActionType.MOVE, (ActionType.MOVE, ActionType.END_PLAYER_TURN), start=pass_[0],
                                act=ActionType.PASS)
    assert idle_action_as_move(root, started) is started  # blitzes only, unless asked
    assert idle_action_as_move(root, started, pass_) is root.children[2]  # no ball: he cannot throw
    # Where he may still throw: the move action only when the search would end his action there.
    for then_there, visits, as_move in ((ActionType.END_PLAYER_TURN, 8, True), (ActionType.PASS, 8, False),
                                        (ActionType.END_PLAYER_TURN, 0, False), (None, 0, False)):
        root, started = _blitz_tree(ActionType.MOVE, may_throw, start=pass_[0], act=ActionType.PASS)
        _search_after_the_move(started, then_there, visits)
        expected = root.children[2] if as_move else started
        assert idle_action_as_move(root, started, pass_) is expected, (then_there, visits)
    # The same look for a blitzer who picked the ball up on his move (which then does not end his blitz).
    root, blitz = _blitz_tree(ActionType.MOVE, (ActionType.MOVE, ActionType.BLOCK, ActionType.END_PLAYER_TURN))
    _search_after_the_move(blitz, ActionType.END_PLAYER_TURN, 8)
    assert idle_action_as_move(root, blitz) is root.children[2]


def _search_after_the_move(started: ChanceNode, then_there, visits: int) -> None:
    """Children for the state after `_blitz_tree`'s move: a move, and `then_there` visited `visits` times."""
    if then_there is None:
        return
    after = started.outcomes[1].children[0].outcomes[2]
    after.children = [ChanceNode(Action(ActionType.MOVE, position=Square(4, 4)), False),
                      ChanceNode(Action(then_there, position=Square(9, 5)), False)]
    after.children[1].visits = visits


def test_the_default_plays_an_idle_blitz_as_a_move_and_the_default_before_did_not():
    assert get_preset("default").idle_as_move == {ActionType.START_BLITZ}
    assert get_preset("default-idle-blitz-as-move") == get_preset("default-unguarded").replace(
        name="default-idle-blitz-as-move")
    assert get_preset("default-unguarded") == get_preset("default").replace(name="default-unguarded", final_guard=None)
    assert not get_preset("default-worthy-blocks").idle_as_move
    assert get_preset("default-idle-actions-as-move").idle_as_move == {
        ActionType.START_BLITZ, ActionType.START_HANDOFF, ActionType.START_FOUL, ActionType.START_PASS}
    with pytest.raises(ValueError, match="idle_as_move must be a frozenset of START_BLITZ"):
        get_preset("default").replace(idle_as_move=frozenset({ActionType.START_MOVE}))
    with pytest.raises(ValueError, match="idle_as_move must be a frozenset"):
        get_preset("default").replace(idle_as_move=True)


def test_between_player_actions_the_priors_choice_is_played_within_them_the_inner_guards():
    from conftest import move_position
    from mcts_bot.core.policies import priors_between_actions, priors_within_actions

    def root_of(game):
        from mcts_bot.adapter.actions import legal_actions
        actions = legal_actions(game)[:3]
        root = ActionNode(key=0, actions=actions, is_opponent=False, terminal=False)
        root.children.extend(ChanceNode(action, is_opponent=False) for action in actions)
        return root

    last = lambda game, root, chosen: root.children[-1]  # noqa: E731 - an inner guard that is seen
    between = turn_position(11, seed=3)
    root = root_of(between)
    assert priors_between_actions(between, root, root.children[1]) is root.children[0]
    assert priors_between_actions(between, root, root.children[1], within=last) is root.children[0]
    # After a touchdown botbowl leaves the scorer as the active player into the next drive's first turn.
    between.state.active_player = between.active_team.players[0]
    assert priors_between_actions(between, root, root.children[1]) is root.children[0]
    within = move_position(3, seed=4)
    root = root_of(within)
    assert priors_between_actions(within, root, root.children[1]) is root.children[1]
    assert priors_between_actions(within, root, root.children[0], within=last) is root.children[-1]
    # The complement: the priors' choice within actions, the outer guard between them.
    assert priors_within_actions(within, root, root.children[1], between=last) is root.children[0]
    root = root_of(between)
    assert priors_within_actions(between, root, root.children[1]) is root.children[1]
    assert priors_within_actions(between, root, root.children[0], between=last) is root.children[-1]


def test_the_turn_priors_preset_plays_its_priors_between_player_actions_on_the_bot_bowl_board():
    from mcts_bot import MCTSBot
    from mcts_bot.core.carrier_guard import guarded_carrier_choice
    from mcts_bot.core.policies import choice_stands, priors_between_actions
    preset = get_preset("default-turn-priors")
    game = turn_position(11, seed=3)
    guard = preset.for_game(game).final_guard
    assert guard.func is priors_between_actions and guard.keywords["within"].func is guarded_carrier_choice
    assert preset.for_game(turn_position(3, seed=0)).final_guard is choice_stands
    bot = MCTSBot(preset=preset, seconds=None, iterations=30, seed=0)
    bot.act(game)
    assert bot.last_choice is bot.last_root.children[0] and bot.totals.overruled == 0


def test_the_search_between_actions_preset_plays_its_priors_within_player_actions_on_the_bot_bowl_board():
    from conftest import move_position
    from mcts_bot import MCTSBot
    from mcts_bot.core.carrier_guard import guarded_carrier_choice
    from mcts_bot.core.policies import choice_stands, priors_within_actions
    preset = get_preset("default-search-between-actions")
    game = move_position(11, seed=11)  # within a foul, where the default's search overrules its priors
    guard = preset.for_game(game).final_guard
    assert guard.func is priors_within_actions and guard.keywords["between"].func is guarded_carrier_choice
    assert preset.for_game(move_position(3, seed=0)).final_guard is choice_stands
    default = MCTSBot(preset="default", seconds=None, iterations=30, seed=0)
    default.act(game)
    assert default.last_choice is not default.last_root.children[0] and default.totals.overruled == 1
    bot = MCTSBot(preset=preset, seconds=None, iterations=30, seed=0)
    bot.act(game)
    assert bot.last_choice is bot.last_root.children[0] and bot.totals.overruled == 0
