"""The game-state hash: equal for equal states, different where the search must not merge states."""
import os
from collections import Counter, defaultdict
from copy import deepcopy

import botbowl
import numpy as np
import pytest
from botbowl.core import D6, Action, ActionType, BBDieResult
from botbowl.core.model import DiceRoll
from botbowl.core.procedure import Apothecary, Setup, Turn
from botbowl.core.table import CasualtyEffect, CasualtyType, OutcomeType, RollType

from conftest import action_key, fixed_dice, turn_position, with_apothecaries
from mcts_bot.adapter import actions
from mcts_bot.adapter.hashing import game_state_hash, state_encoding
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core.policies import random_rollout_policy
from mcts_bot.harness.games import BOARD_SIZES, random_position


@pytest.fixture
def apothecary_clock(monkeypatch):
    """botbowl 1.1.0's Apothecary calls `Game.add_opp_clock`, which botbowl does not define, when the
    injured player is not on the team whose turn it is: such a game stops at the first injury in the
    opponent's turn. Stand botbowl's secondary clock in for it, as the call's name intends."""
    monkeypatch.setattr(botbowl.Game, "add_opp_clock", botbowl.Game.add_secondary_clock, raising=False)


def legal_keys(game):
    return sorted(map(action_key, actions.legal_actions(game)))


def test_equal_for_equal_states():
    # Two separately built games (different uuids) with the same seed and moves reach equal states.
    a = random_position(3, seed=5, steps=60)
    b = random_position(3, seed=5, steps=60)
    assert game_state_hash(a) == game_state_hash(b)
    assert game_state_hash(deepcopy(a)) == game_state_hash(a)


def test_equal_after_step_and_revert():
    game = private_copy(turn_position(3, seed=1), seed=0)
    before = game_state_hash(game)
    root = game.get_step()
    actions.step(game, actions.legal_actions(game)[0])
    assert game_state_hash(game) != before
    game.revert(root)
    assert game_state_hash(game) == before


def test_different_after_a_move():
    game = private_copy(turn_position(5, seed=2), seed=0)
    before = game_state_hash(game)
    move = next(a for a in actions.legal_actions(game) if a.action_type == ActionType.START_MOVE)
    actions.step(game, move)
    after_start = game_state_hash(game)
    target = next(a for a in actions.legal_actions(game) if a.action_type == ActionType.MOVE)
    actions.step(game, target)
    assert len({before, after_start, game_state_hash(game)}) == 3


def _risky_move(game):
    """A START_MOVE player and a MOVE target whose path needs dice (dodge or going for it)."""
    root = game.get_step()
    for start in actions.legal_actions(game):
        if start.action_type != ActionType.START_MOVE:
            continue
        actions.step(game, start)
        for choice in game.state.available_actions:
            if choice.action_type == ActionType.MOVE:
                for path in choice.paths:
                    if path.rolls and any(path.rolls):
                        target = Action(ActionType.MOVE, position=path.get_last_step())
                        game.revert(root)
                        return start, target
        game.revert(root)
    return None


def test_different_after_a_dice_outcome():
    # Same state, same action, dice forced to all-6 or all-1: two outcomes, two hashes.
    # In a first turn on the 11-player board, leaving the line of scrimmage needs a dodge.
    game = next(g for g in (private_copy(turn_position(11, seed=seed), seed=0) for seed in range(10))
                if _risky_move(g) is not None)
    start, target = _risky_move(game)
    root = game.get_step()
    hashes = []
    for value in (6, 1):
        with fixed_dice(d6=[value] * 12):
            actions.step(game, start)
            actions.step(game, target)
            hashes.append(game_state_hash(game))
            game.revert(root)
    assert hashes[0] != hashes[1]


def test_squares_whose_botbowl_hashes_collide_hash_differently():
    # botbowl's Square.__hash__ is 7x + 13y: (14, 1) and (1, 8) collide. Ours must not merge them.
    game = private_copy(turn_position(11, seed=3), seed=0)
    a, b = game.get_square(14, 1), game.get_square(1, 8)
    assert hash(a) == hash(b)
    assert game.get_player_at(a) is None and game.get_player_at(b) is None
    player = game.get_players_on_pitch(game.active_team)[0]
    root = game.get_step()
    game.move(player, a)
    at_a = game_state_hash(game)
    game.revert(root)
    game.move(player, b)
    at_b = game_state_hash(game)
    game.revert(root)
    assert at_a != at_b


def _states(board: int, seed: int, steps: int):
    """(the full encoding as text, the key) of each state a seeded random game passes through."""
    game = random_position(board, seed=seed, steps=0)
    rng = np.random.RandomState(seed)
    for _ in range(steps):
        if game.state.game_over:
            break
        actions.step(game, random_rollout_policy(game, rng))
        yield repr(state_encoding(game)), game_state_hash(game)  # repr: 1, 1.0 and True are told apart


def test_equal_keys_exactly_when_the_encodings_are_equal():
    # Thousands of reachable states on several boards, each seed played twice in two games built
    # apart (equal states, other objects): a key is one encoding, and one encoding one key.
    key_of, encoding_of = {}, {}
    seen = 0
    for board, seeds, steps in ((1, range(4), 200), (3, range(4), 250), (5, range(3), 250), (11, range(2), 200)):
        for seed in seeds:
            for _ in range(2):
                for encoding, key in _states(board, seed, steps):
                    assert key_of.setdefault(encoding, key) == key, "one state, two keys"
                    assert encoding_of.setdefault(key, encoding) == encoding, "two states, one key"
                    seen += 1
    assert len(key_of) >= 2000 and seen >= 2 * len(key_of)


def test_minus_one_and_minus_two_are_two_keys():
    # CPython's hash(-1) == hash(-2): a key built with hash() of a tuple merges two states that
    # differ only there, such as a dice modifier of -1 against -2.
    assert hash((1, -1)) == hash((1, -2))
    game = private_copy(turn_position(3, seed=2), seed=0)
    proc = game.state.stack.items[-1]
    keys = []
    for value in (-1, -2):
        object.__setattr__(proc, "probe", value)
        keys.append(game_state_hash(game))
    object.__delattr__(proc, "probe")
    assert keys[0] != keys[1]


def test_same_in_every_process():
    # Nothing in the key depends on Python's per-process string hash salt.
    import subprocess
    import sys
    code = ("from mcts_bot.adapter.hashing import game_state_hash; from mcts_bot.harness.games import random_position; "
            "print(game_state_hash(random_position(3, seed=5, steps=60)))")
    environment = {"PATH": "", **{k: v for k, v in os.environ.items() if k == "PYTHONPATH"}}
    values = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**environment, "PYTHONHASHSEED": str(salt)}).stdout.strip() for salt in (1, 2)}
    assert len(values) == 1 and values != {""}


def start_block(game):
    """In a copy of a first-turn position on the 11-player board: the first block the team can make."""
    start = next(a for a in actions.legal_actions(game) if a.action_type == ActionType.START_BLOCK)
    actions.step(game, start)
    return next(a for a in actions.legal_actions(game) if a.action_type == ActionType.BLOCK)


def blocked(game, block_die, d6=(), d8=()):
    """Block with one die forced to `block_die`, decline the re-roll, and take the die, the next D6
    and D8 forced as given: the state where botbowl next asks for a decision."""
    block = start_block(game)
    with fixed_dice(d6=d6, d8=d8, block=[block_die]):
        actions.step(game, block)
        assert [c.action_type for c in game.state.available_actions] == [ActionType.USE_REROLL,
                                                                          ActionType.DONT_USE_REROLL]
        actions.step(game, Action(ActionType.DONT_USE_REROLL))
        actions.step(game, actions.legal_actions(game)[0])
    return game


def test_block_dice_under_a_reroll_decision_differ():
    # At the re-roll decision both offer USE_REROLL / DONT_USE_REROLL; the dice decide what comes after.
    game = private_copy(turn_position(11, seed=0), seed=0)
    root = game.get_step()
    hashes, after = [], []
    for die in (BBDieResult.DEFENDER_DOWN, BBDieResult.PUSH):
        block = start_block(game)
        with fixed_dice(block=[die]):
            actions.step(game, block)
        hashes.append(game_state_hash(game))
        actions.step(game, Action(ActionType.DONT_USE_REROLL))
        after.append(legal_keys(game))
        game.revert(root)
    assert after[0] != after[1]
    assert hashes[0] != hashes[1]


# Armor broken (6+6), an injury roll of 10 (5+5): a casualty, whose D6 and D8 say which (11 badly hurt, 61 dead).
BADLY_HURT = dict(d6=(6, 6, 5, 5, 1), d8=(1,))
DEAD = dict(d6=(6, 6, 5, 5, 6), d8=(1,))


def test_pending_casualties_under_the_apothecary_differ(apothecary_clock):
    # The player is still on the pitch while the team decides on the apothecary; the casualty it
    # would treat (badly hurt or dead) is held only by the Apothecary and Casualty procedures.
    game = private_copy(with_apothecaries(turn_position(11, seed=0)), seed=0)
    root = game.get_step()
    hashes, after = [], []
    for dice in (BADLY_HURT, DEAD):
        blocked(game, BBDieResult.ATTACKER_DOWN, **dice)
        assert isinstance(game.get_procedure(), Apothecary)
        hashes.append(game_state_hash(game))
        player = game.get_procedure().player
        with fixed_dice(d6=(1,), d8=(1,)):  # the apothecary's second roll: badly hurt
            actions.step(game, Action(ActionType.USE_APOTHECARY))
        actions.step(game, Action(ActionType.SELECT_FIRST_ROLL))  # keep the first roll
        after.append(list(player.state.injuries_gained))
        game.revert(root)
    assert after == [[], [CasualtyEffect.DEAD]]
    assert hashes[0] != hashes[1]


def test_apothecary_for_a_knock_out_and_for_a_casualty_differ():
    # Issue 11's case: the same position with the apothecary asked for a knock-out, or for a casualty,
    # as KnockOut and Casualty ask it. The same choices now, different choices after USE_APOTHECARY;
    # a hash that saw only the stack's procedure types and the players merged the two.
    game = private_copy(with_apothecaries(turn_position(3, seed=1)), seed=0)
    player = game.get_players_on_pitch(game.active_team)[0]
    root = game.get_step()
    hashes, now, after = [], [], []
    for outcome, casualty, effect in ((OutcomeType.KNOCKED_OUT, None, None),
                                      (OutcomeType.CASUALTY, CasualtyType.BADLY_HURT, CasualtyEffect.NONE)):
        with fixed_dice(d6=(5, 5)):
            roll = DiceRoll([D6(game.rng), D6(game.rng)], roll_type=RollType.INJURY_ROLL)
        Apothecary(game, player, roll=roll, outcome=outcome, inflictor=None, casualty=casualty, effect=effect)
        game.get_procedure().start()
        game.get_procedure().started = True
        game.set_available_actions()
        hashes.append(game_state_hash(game))
        now.append(legal_keys(game))
        actions.step(game, Action(ActionType.USE_APOTHECARY))
        after.append(legal_keys(game))
        game.revert(root)
    assert now[0] == now[1] and after[0] != after[1]
    assert hashes[0] != hashes[1]


# The property test below: in many states of seeded games, the outcomes of one action under
# different dice are grouped by hash, as a ChanceNode groups them. Outcomes that share a hash must
# offer the same actions, and (checked for a few groups of each kind) each of those actions, with
# the same dice, must lead to the same hash and the same actions again. States are sampled where
# the hash has most to tell apart: inside procedures rather than at the start of an action, and the
# action that first led to each kind of state (an apothecary's decision, an interception, a
# touchback, ...) is tried with many more dice.
WALK_STEPS = 200
DICE = 6  # outcomes tried per action
DICE_TO_NEW_KINDS = 32  # outcomes tried for an action that led to a kind of state met for the first times
NEW_KIND_ARRIVALS = 2  # arrivals at each kind of state that count as the first times
SAMPLES_PER_KIND = 4  # states sampled per kind of state (the procedure on top)
DEEP_CHECKS_PER_KIND = 1  # merged groups followed one step further, per kind of outcome
MERGED_FOLLOWED = 3  # outcomes followed per merged group
FUTURE_WIDTH = 3  # actions followed one step further from a merged state


class PropertyCheck:
    """Walks one game on a forward-model copy and checks the hash wherever the walk asks."""

    def __init__(self, game):
        self.game = game
        self.offered = {}  # hash -> legal actions, for every state met
        self.deep_checks = Counter()

    def offer(self):
        """The hash of the current state, after checking it offers what other states of that hash offered."""
        key, legal = game_state_hash(self.game), legal_keys(self.game)
        assert self.offered.setdefault(key, legal) == legal, self.game.get_procedure_names()
        return key

    def outcomes(self, action, dice):
        """Step `action` from the current state under `dice` seeds, then compare merged outcomes' futures."""
        game, root = self.game, self.game.get_step()
        top = type(game.get_procedure()).__name__
        groups = defaultdict(list)  # hash -> (seed, procedure stack)
        for seed in range(dice):
            game.set_seed(seed)
            actions.step(game, action)
            groups[self.offer()].append((seed, tuple(game.get_procedure_names())))
            game.revert(root)
        for group in groups.values():
            # Followed one step further: the first outcome of each procedure stack in the group (outcomes
            # that share a hash but not a stack are the likeliest to differ), then others, up to a few.
            firsts = {stack: seed for seed, stack in reversed(group)}
            seeds = list(firsts.values()) + [seed for seed, _ in group if seed not in firsts.values()]
            kind = (top, action.action_type, group[0][1])
            if len(seeds) < 2 or self.deep_checks[kind] >= DEEP_CHECKS_PER_KIND:
                continue
            self.deep_checks[kind] += 1
            futures = []
            for seed in seeds[:MERGED_FOLLOWED]:
                game.set_seed(seed)
                actions.step(game, action)
                futures.append(self.future())
                game.revert(root)
            assert all(f == futures[0] for f in futures), kind

    def future(self, depth=2):
        """What a state leads to: for a few of its legal actions (the same ones for states that offer
        the same actions), the hash and the legal actions after that action with the same dice, and
        from a state of at most two choices (a re-roll, an apothecary) one step further still."""
        game, root = self.game, self.game.get_step()
        legal = sorted(actions.legal_actions(game), key=action_key)
        if len(legal) > FUTURE_WIDTH:
            legal = [legal[i] for i in sorted(np.random.RandomState(0).choice(len(legal), FUTURE_WIDTH, replace=False))]
        result = []
        for action in legal:
            game.set_seed(0)
            actions.step(game, action)
            offered = legal_keys(game)
            further = self.future(depth - 1) if depth > 1 and len(offered) <= 2 and not game.state.game_over else None
            result.append((action_key(action), game_state_hash(game), offered, further))
            game.revert(root)
        return result


def walk_action(game, rng):
    """Mostly the violent choice when there is one (blocks, blitzes, fouls and passes bring the dice
    and procedures the hash must tell apart), else any legal action."""
    legal = actions.legal_actions(game)
    violent = [a for a in legal if a.action_type in (ActionType.START_BLOCK, ActionType.START_BLITZ, ActionType.BLOCK,
                                                     ActionType.START_FOUL, ActionType.FOUL, ActionType.START_PASS,
                                                     ActionType.PASS, ActionType.START_HANDOFF, ActionType.HANDOFF)]
    if violent and rng.rand() < 0.7:
        return violent[rng.randint(len(violent))]
    return legal[rng.randint(len(legal))]


@pytest.mark.parametrize("apothecary", [False, True], ids=["no-apothecary", "apothecary"])
@pytest.mark.parametrize("board", BOARD_SIZES)
def test_equal_hashes_offer_equal_actions_now_and_next(board, apothecary, apothecary_clock):
    game = random_position(board, seed=board, steps=0)
    game = private_copy(with_apothecaries(game, 1 if apothecary else 0), seed=0)
    check = PropertyCheck(game)
    rng = np.random.RandomState(board)
    tops, arrivals = Counter(), Counter()
    for walk_step in range(WALK_STEPS):
        if game.state.game_over:
            break
        check.offer()
        top = type(game.get_procedure()).__name__
        tops[top] += 1
        sampled = not isinstance(game.get_procedure(), (Turn, Setup)) or rng.rand() < 0.05
        if sampled and tops[top] <= SAMPLES_PER_KIND:
            legal = actions.legal_actions(game)
            for action in legal if len(legal) <= 2 else [legal[i] for i in rng.choice(len(legal), 2, replace=False)]:
                check.outcomes(action, DICE)
        parent, action = game.get_step(), walk_action(game, rng)
        game.set_seed(walk_step)
        actions.step(game, action)
        arrived = type(game.get_procedure()).__name__ if not game.state.game_over else None
        if arrived is not None and arrivals[arrived] < NEW_KIND_ARRIVALS:
            arrivals[arrived] += 1
            game.revert(parent)
            check.outcomes(action, DICE_TO_NEW_KINDS)
            game.set_seed(walk_step)  # back on the walk: the same dice give the same state
            actions.step(game, action)
    # The walk must have reached what the test is about: decisions inside procedures, merged outcomes,
    # and with apothecaries, the apothecary's decision.
    assert sum(check.deep_checks.values()) > 20 and len(tops) > 8
    assert (tops["Apothecary"] > 0) == apothecary, tops
