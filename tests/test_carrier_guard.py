"""The carrier's guard in the final choice (`core.carrier_guard`): where a root child leaves our
carrier, read from the tree, and the priors' choice kept against an overrule that thins him."""
import math

import pytest
from botbowl.core import Action, ActionType

from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.core.carrier_guard import carrier_guard, guarded_carrier_choice, guards_after

from conftest import arranged_position, turn_position

# Our carrier (index 0) on (6, 7) with two guards beside him (1, 2) and two players away from him (3, 4).
OURS = {0: (6, 7), 1: (7, 6), 2: (7, 8), 3: (10, 2), 4: (10, 12)}
THEIRS = {0: (3, 7)}


def searched_child(game, player, moves, visits=20, value=0.5):
    """A root child starting `player`'s move, its most visited line moving him along `moves`
    ((ahead, y) squares), then ending his action."""
    team = game.active_team
    endzone = game.get_opp_endzone_x(team)
    step = 1 if endzone == 1 else -1
    child = ChanceNode(Action(ActionType.START_MOVE, player=player), is_opponent=False, prior=0.5)
    node = child
    for square in moves + [None]:
        state = ActionNode(key=len(moves), actions=[], is_opponent=False, terminal=False)
        state.visits = visits
        node.outcomes[id(state)] = state
        node.visits, node.total_value = visits, visits * value
        action = Action(ActionType.END_PLAYER_TURN) if square is None else \
            Action(ActionType.MOVE, position=game.get_square(endzone + step * square[0], square[1]))
        node = ChanceNode(action, is_opponent=False)
        node.visits, node.total_value = visits, visits * value
        state.children.append(node)
    return child


def root_of(*children):
    root = ActionNode(key=0, actions=[c.action for c in children], is_opponent=False, terminal=False)
    root.children.extend(children)
    for child in children:
        root.visits += child.visits
        root.total_value += child.total_value
    return root


@pytest.mark.parametrize("side", ["home", "away"])
def test_guards_are_counted_where_the_childs_line_leaves_its_player(side):
    game = arranged_position(11, side, ours=OURS, theirs=THEIRS, carrier=0)
    players = game.active_team.players
    assert guards_after(game, searched_child(game, players[3], [(9, 3)])) == 2  # away from the carrier
    assert guards_after(game, searched_child(game, players[1], [(8, 5), (9, 4)])) == 1  # a guard walks off
    assert guards_after(game, searched_child(game, players[3], [(7, 7)])) == 3  # a third guard
    assert guards_after(game, searched_child(game, players[0], [(5, 7), (4, 7)])) == 0  # the carrier runs ahead
    assert guards_after(game, searched_child(game, players[0], [(5, 7), (0, 7)])) is None  # ... and scores


def test_nothing_is_counted_without_our_carrier():
    game = arranged_position(11, "home", ours=OURS, theirs=THEIRS, ball=(2, 2))
    assert guards_after(game, searched_child(game, game.active_team.players[1], [(9, 4)])) is None


def test_an_overrule_into_a_thin_carrier_needs_the_margin():
    game = arranged_position(11, "home", ours=OURS, theirs=THEIRS, carrier=0)
    players = game.active_team.players
    first = searched_child(game, players[3], [(9, 3)], visits=40, value=0.50)
    thinning = searched_child(game, players[1], [(9, 4)], visits=200, value=0.60)
    root = root_of(first, thinning)
    assert guarded_carrier_choice(game, root, thinning, margin=math.inf) is first
    assert guarded_carrier_choice(game, root, thinning, margin=0.2) is first  # the bound is below 0.70
    assert guarded_carrier_choice(game, root, thinning, margin=0.02) is thinning
    assert guarded_carrier_choice(game, root, first, margin=math.inf) is first
    # Where the priors' choice thins him too, or the overrule keeps two guards, the overrule stands.
    also_thin = searched_child(game, players[2], [(9, 10)], visits=40, value=0.50)
    assert guarded_carrier_choice(game, root_of(also_thin, thinning), thinning, margin=math.inf) is thinning
    keeping = searched_child(game, players[4], [(9, 11)], visits=200, value=0.60)
    assert guarded_carrier_choice(game, root_of(first, keeping), keeping, margin=math.inf) is keeping


def test_the_guard_checks_its_margin_and_needs_priors():
    from mcts_bot.presets import VANILLA
    with pytest.raises(ValueError, match="margin must be 0 or more"):
        carrier_guard(-0.1)
    with pytest.raises(ValueError, match="give the preset priors"):
        VANILLA.replace(final_guard=carrier_guard(0.05))


def test_the_bot_plays_the_guarded_choice_and_counts_it():
    """On a turn with our carrier caged, the preset's guard has the last word on the searched choice."""
    from mcts_bot import MCTSBot
    from mcts_bot.presets import DEFAULT
    game = arranged_position(11, "home", ours=OURS, theirs=THEIRS, carrier=0)
    seen = []

    def guard(game, root, chosen):
        seen.append((root, chosen))
        return root.children[-1]  # a guard that always plays the priors' last choice

    bot = MCTSBot(preset=DEFAULT.replace(final_guard=guard), seconds=None, iterations=20, seed=0)
    action = bot.act(game)
    assert len(seen) == 1 and bot.last_choice is seen[0][0].children[-1]
    assert action.action_type == bot.last_choice.action.action_type
    assert bot.totals.guarded == (seen[0][1] is not seen[0][0].children[-1])


def test_the_default_guards_its_carrier_on_the_bot_bowl_board_only():
    from mcts_bot.core.policies import choice_stands
    from mcts_bot.presets import get_preset
    default = get_preset("default")
    on_11 = default.for_game(arranged_position(11, "home", ours=OURS, theirs=THEIRS, carrier=0)).final_guard
    assert on_11.func is guarded_carrier_choice and on_11.keywords == {"margin": math.inf}
    assert default.for_game(turn_position(3, seed=0)).final_guard is choice_stands
    assert get_preset("default-unguarded").final_guard is None
