"""The faster forward-model bookkeeping behaves exactly as botbowl's own, and only while a search uses it."""
import subprocess
import sys
from enum import Enum

import numpy as np
import pytest
from botbowl.core.forward_model import AssignmentStep, CallableStep, Reversible, Trajectory
from botbowl.core.model import Player, Square

import mcts_bot
from conftest import tree_data, turn_position
from mcts_bot.adapter import actions, fast_reversible
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core.policies import random_rollout_policy
from mcts_bot.harness import collect
from mcts_bot.harness.games import make_game, random_position
from mcts_bot.knowledge.scripted import scripted_action

BOTBOWLS = (Reversible.__setattr__, Reversible.set_trajectory, Square.__init__)


def test_importing_the_package_and_searching_leave_botbowl_as_found():
    # In a fresh process: botbowl's functions before the import, after it, and after a search.
    code = """
import botbowl
from botbowl.core.forward_model import Reversible
from botbowl.core.model import Square
def now(): return (Reversible.__setattr__, Reversible.set_trajectory, Square.__init__)
before = now()
import mcts_bot
after_import = now()
from mcts_bot.harness.games import random_position
game = random_position(3, seed=1, steps=40)
mcts_bot.search(game, iterations=20, seed=0)
print(before == after_import == now())
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "True", result.stderr


def test_in_use_puts_them_in_for_its_block_only_and_nests():
    assert not fast_reversible.installed() and (Reversible.__setattr__, Reversible.set_trajectory,
                                                  Square.__init__) == BOTBOWLS
    with fast_reversible.in_use():
        assert fast_reversible.installed()
        with fast_reversible.in_use():
            assert fast_reversible.installed()
        assert fast_reversible.installed()  # the outer block is still under way
    assert not fast_reversible.installed()
    with pytest.raises(RuntimeError):
        with fast_reversible.in_use():
            raise RuntimeError("an error inside")
    assert not fast_reversible.installed()  # taken out on the way out of an error too


def test_botbowl_code_they_were_not_checked_against_is_left_alone(monkeypatch):
    assert fast_reversible.checked()
    monkeypatch.setitem(fast_reversible._CHECKED_SOURCES, "set_trajectory", "0" * 16)
    assert not fast_reversible.checked()
    monkeypatch.setattr(fast_reversible, "ENABLED", False)  # what the import decides when not checked
    with fast_reversible.in_use():
        assert not fast_reversible.installed()


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
    with fast_reversible.in_use():
        fast = _square(args)
    assert fast == _square(args) and fast[1]


class _Canon:
    """Values as plain data, comparable between two runs on two copies of one game: players and
    squares by what they are, other objects by kind and by the order they first appear in."""

    def __init__(self):
        self.seen = {}

    def __call__(self, value, depth: int = 0):
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, Enum):
            return str(value)
        if isinstance(value, Square):
            return "square", value.x, value.y
        if isinstance(value, Player):
            return "player", value.player_id
        if isinstance(value, (list, tuple)):
            return type(value).__name__, tuple(self(item, depth + 1) for item in value) if depth < 3 else len(value)
        if isinstance(value, dict):
            return "dict", tuple((self(k, depth + 1), self(v, depth + 1)) for k, v in value.items()) if depth < 3 \
                else len(value)
        return type(value).__name__, self.seen.setdefault(id(value), len(self.seen))


_TIMES = {"start_time", "end_time", "started_at", "running_time", "ratio_done", "seconds_left"}


def _log(trajectory: Trajectory, canon: _Canon) -> list:
    """Every step of a log with the values it set, as plain data (clock readings left out: they
    differ from run to run)."""
    entries = []
    for step in trajectory.action_log:
        if isinstance(step, AssignmentStep) and step.key in _TIMES:
            continue
        if isinstance(step, AssignmentStep):
            entries.append(("set", canon(step.owner), step.key, canon(step.from_val), canon(step.to_val)))
        elif isinstance(step, CallableStep):
            entries.append(("call", canon(step.owner), step.forward_func.__name__))
        else:
            entries.append((type(step).__name__, canon(getattr(step, "owner", None))))
    return entries


def _run(game, steps: int, fast: bool, botbowls_step: bool) -> tuple:
    """Step `game` (a copy with the forward model on) by the scripted policy, or random actions
    where it has no plan; the state (botbowl's own JSON of it) after each step, the whole log with
    its values, the kinds of procedures met, and the state after reverting to the start."""
    rng = np.random.RandomState(0)
    start = game.get_step()
    states, kinds = [], set()
    with fast_reversible.in_use() if fast else _nothing():
        assert fast_reversible.installed() == fast
        for _ in range(steps):
            if game.state.game_over:
                break
            action = scripted_action(game, rng) if rng.random_sample() < 0.8 else random_rollout_policy(game, rng)
            if botbowls_step:
                game.step(action)  # botbowl's own stepping, as a game between bots would run
            else:
                actions.step(game, action)  # the search's
            kinds.update(type(proc).__name__ for proc in game.state.stack.items)
            states.append(_state(game))
        log = _log(game.trajectory, _Canon())
        game.revert(start)
    return states, log, kinds, _state(game)


def _state(game) -> dict:
    """botbowl's own JSON of the game, without clock readings."""
    state = game.to_json()
    for key in ("start_time", "end_time"):
        state.pop(key)
    state["state"].pop("clocks")
    return state


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("board", [1, 3, 5, 11])
def test_same_logs_values_and_states_as_botbowls_own_from_the_kick_off(board):
    # From the coin toss: set-up, the kick-off and turns with blocks, on the search's copy.
    template = random_position(board, seed=board, steps=0)
    runs = [_run(private_copy(template, seed=7), steps=160 if board < 11 else 120, fast=fast, botbowls_step=False)
            for fast in (True, False)]
    (states, log, kinds, reverted), plain = runs
    assert {"Setup", "KickoffTable", "Turn", "Block"} <= kinds
    assert len(states) > 50 and len(log) > 1000
    assert runs[0] == plain
    assert reverted == _state(template)


def test_same_logs_values_and_states_in_a_game_stepped_by_botbowl():
    # A game that is not a search's copy, stepped by botbowl's own Game.step with its forward model
    # on, as another program would use it.
    def fresh():
        game = make_game(3, _Human("home"), _Human("away"), seed=21)
        game.init()
        game.enable_forward_model()
        return game

    fast, plain = _run(fresh(), 150, fast=True, botbowls_step=True), _run(fresh(), 150, fast=False, botbowls_step=True)
    assert "Block" in plain[2] and len(plain[0]) > 50
    # Games made apart differ in their ids: compare all else.
    assert _without_ids(fast) == _without_ids(plain)


class _Human(mcts_bot.ScriptedBot):
    """An agent botbowl waits for (human): `Game.step` returns whenever it is to act."""

    def __init__(self, name):
        super().__init__(name)
        self.human = True


def _without_ids(run):
    text = repr(run)
    import re
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "id", text)


def _tree(game, seed: int):
    return tree_data(mcts_bot.search(game, iterations=40, seed=seed))


@pytest.mark.parametrize("board", [3, 5])
def test_same_search_trees(board, monkeypatch):
    game = turn_position(board, seed=13)
    fast = _tree(game, seed=1)
    monkeypatch.setattr(fast_reversible, "ENABLED", False)
    assert len(fast) > 20 and fast == _tree(game, seed=1)


def test_same_collected_game_as_with_botbowls_own(monkeypatch):
    # The value data's games run under the faster versions: the same records, and botbowl's own after.
    spec = collect.specs(5, "grod", "scripted", games=1, base_seed=3, explore=0.05)[0]
    fast = collect.collect_game(spec)
    assert not fast_reversible.installed()
    monkeypatch.setattr(fast_reversible, "ENABLED", False)
    plain = collect.collect_game(spec)
    assert len(plain["x"]) > 100
    for name in ("x", "heuristic", "home_acts", "score", "final"):
        np.testing.assert_array_equal(fast[name], plain[name], err_msg=name)
