"""The faster forward-model bookkeeping behaves exactly as botbowl's own."""
import numpy as np
import pytest
from botbowl.core.forward_model import AssignmentStep, CallableStep, Reversible, ReversibleList, Trajectory
from botbowl.core.model import Square

import mcts_bot
from conftest import move_position, tree_data, turn_position
from mcts_bot.adapter import actions, fast_reversible
from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core.policies import random_rollout_policy


def test_import_installs_them_and_uninstall_restores_botbowls():
    assert fast_reversible.installed()
    fast_reversible.uninstall()
    try:
        assert not fast_reversible.installed()
        assert Reversible.__setattr__ is fast_reversible._ORIGINAL["__setattr__"]
        assert Square.__init__ is fast_reversible._ORIGINAL["Square.__init__"]
    finally:
        assert fast_reversible.install()
    assert fast_reversible.installed()


def test_botbowl_code_they_were_not_checked_against_is_left_alone(monkeypatch):
    monkeypatch.setitem(fast_reversible._CHECKED_SOURCES, "set_trajectory", "0" * 16)
    fast_reversible.uninstall()
    try:
        assert fast_reversible.install() is False
        assert not fast_reversible.installed()
    finally:
        monkeypatch.undo()
        assert fast_reversible.install()


class _Holder(Reversible):
    """Odd corners of the walk: a class-level value, a property, a stored function, an ignored key."""

    shared = [1, 2]
    label = "holder"

    def __init__(self):
        super().__init__(ignored_keys=["skipped"])
        self.items = [3]
        self.table = {"a": [4]}
        self.callback = len
        self.skipped = [5]
        self.number = 6

    @property
    def doubled(self):
        return self.callback

    def method(self):
        return self.number


class _Listed(_Holder):
    def __dir__(self):
        return [name for name in object.__dir__(self) if name != "items"]


def _walked(cls, fast: bool):
    obj = cls()
    trajectory = Trajectory()
    (fast_reversible._set_trajectory if fast else fast_reversible._ORIGINAL["set_trajectory"])(obj, trajectory)
    return {name: (type(value).__name__, value if not callable(value) else "callable")
            for name, value in vars(obj).items() if name != "_trajectory"}


@pytest.mark.parametrize("cls", [_Holder, _Listed])
def test_the_walk_makes_the_same_values_reversible(cls):
    assert _walked(cls, fast=True) == _walked(cls, fast=False)


def _square(args: tuple) -> tuple:
    """What a square holds (its entries, in order) and whether it refuses a new value afterwards."""
    square = Square(*args)
    try:
        square.x = 0
        frozen = False
    except AttributeError:
        frozen = True
    return list(vars(square).items()), frozen


@pytest.mark.parametrize("args", [(3, 4), (0, 2, True), (5, 1, False)])
def test_squares_are_made_as_botbowl_makes_them(args):
    fast = _square(args)
    fast_reversible.uninstall()
    try:
        plain = _square(args)
    finally:
        assert fast_reversible.install()
    assert fast == plain and fast[1]


def _log(trajectory: Trajectory) -> list:
    """What a log holds, comparably across two copies of a game."""
    entries = []
    for step in trajectory.action_log:
        if isinstance(step, AssignmentStep):
            entries.append(("set", type(step.owner).__name__, step.key, type(step.to_val).__name__))
        elif isinstance(step, CallableStep):
            entries.append(("call", type(step.owner).__name__, step.forward_func.__name__))
        else:
            entries.append((type(step).__name__,))
    return entries


def _play(game, seed: int, steps: int):
    """Step a private copy with seeded random actions; the log and hash after each step, then revert."""
    copy = private_copy(game, seed=seed)
    rng = np.random.RandomState(seed)
    start = len(copy.trajectory)
    before = game_state_hash(copy)
    seen = []
    for _ in range(steps):
        if copy.state.game_over:
            break
        actions.step(copy, random_rollout_policy(copy, rng))
        seen.append((_log(copy.trajectory), game_state_hash(copy),
                     all(isinstance(item, ReversibleList) for item in (copy.state.stack.items, copy.state.reports))))
    copy.revert(start)
    assert game_state_hash(copy) == before
    return seen


@pytest.mark.parametrize("position", [lambda: turn_position(3, seed=11), lambda: move_position(5, seed=12)],
                         ids=["turn-3", "move-5"])
def test_same_logs_and_states_as_botbowls_own(position):
    game = position()
    fast = _play(game, seed=3, steps=40)
    fast_reversible.uninstall()
    try:
        plain = _play(game, seed=3, steps=40)
    finally:
        assert fast_reversible.install()
    assert len(fast) > 10 and fast == plain


def _tree(game, seed: int):
    return tree_data(mcts_bot.search(game, iterations=40, seed=seed))


@pytest.mark.parametrize("board", [3, 5])
def test_same_search_trees(board):
    game = turn_position(board, seed=13)
    fast = _tree(game, seed=1)
    fast_reversible.uninstall()
    try:
        plain = _tree(game, seed=1)
    finally:
        assert fast_reversible.install()
    assert len(fast) > 20 and fast == plain
