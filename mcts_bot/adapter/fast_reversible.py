"""Faster bookkeeping for botbowl's forward model, with the same behaviour.

Every assignment to an attribute of a botbowl object goes through `Reversible.__setattr__`, and
every object the game creates while its forward model is on (a procedure pushed on the stack, a
list put in one) through `Reversible.set_trajectory`. In a search both run thousands of times per
iteration: `__setattr__` looks the attribute up three times, and `set_trajectory` walks
`dir(self)`, a hundred-odd names, methods included, to find the dozen values the object holds.

Squares are the other hot spot: botbowl makes `Square` immutable after its `__init__`
(`immutable_after_init`), so each of the three assignments in it goes through a `__setattr__` that
looks itself up on the instance, and the pathfinding makes hundreds of thousands of squares in a
search on the 11-player board. The replacement `__init__` sets the same four attributes (x, y,
_out_of_bounds, and the `__setattr__ = None` that freezes it) with `object.__setattr__` directly.

`in_use()` puts in versions that do the same work with fewer lookups (the same attributes made
reversible, the same steps logged in the same order, the same errors, the same squares) for what
runs inside it, and botbowl's own back when it ends: the search's copy and its iterations run in
it (`search_copy.private_copy`, `core.search.run_search`, the tree helpers' iterations), and so
do the value data's games (`harness.collect`), and nothing else. Importing the package changes
nothing in botbowl. The versions are class-level, so another thread's game that steps while a
search is under way runs on them too, for that while; they behave as botbowl's own, so it plays the
same.
The walk visits the names `dir(self)` lists (the instance's own plus its class's, the class's kept
per class) less the class's methods, which botbowl's walk skips anyway as callable. A class that
lists its names its own way (`__dir__`, `__slots__`) gets botbowl's walk. Only botbowl code these
versions were checked against is replaced (its source is compared); any other botbowl keeps its
own. `tests/test_fast_reversible.py` checks the equivalence: the same logs (values included) and
states on every board through set-up, kick-off and blocks, a game stepped by botbowl's own
`Game.step`, and the same search trees, with and without.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import threading
import types
from contextlib import contextmanager
from typing import Callable, Dict, FrozenSet, Iterator, Optional, TypeVar

from botbowl.core.forward_model import AssignmentStep, Reversible, add_reversibility, immutable_types
from botbowl.core.model import Square

_ORIGINAL = {"__setattr__": Reversible.__setattr__, "set_trajectory": Reversible.set_trajectory,
             "Square.__init__": Square.__init__}
# Square's own __init__, which botbowl's `immutable_after_init` wraps (the wrapper calls it)
_SQUARE_OWN_INIT = inspect.getclosurevars(Square.__init__).nonlocals.get("old_init")
# sha256 of the source of botbowl 1.1.0's versions, the ones these replacements reproduce
_CHECKED_SOURCES = {"__setattr__": "044bcd0cab939b54", "set_trajectory": "0827dc335b9f560f",
                    "Square.__init__": "7fad58b3c09ffc05", "Square.__setattr__": "303c575f369399cb",
                    "Square's own __init__": "7fd8b98ab3cbb2b6"}
_MISSING = object()
_object_setattr = object.__setattr__
_METHOD_KINDS = (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType,
                 types.WrapperDescriptorType, staticmethod, classmethod)
# Per class: the public names dir() lists, less its methods; None for a class that lists its names
# its own way (botbowl's walk then).
_data_names: Dict[type, Optional[FrozenSet[str]]] = {}


def _class_data_names(cls: type) -> Optional[FrozenSet[str]]:
    if cls in _data_names:
        return _data_names[cls]
    names = None
    if cls.__dir__ is object.__dir__ and not hasattr(cls, "__slots__"):
        public = [name for name in dir(cls) if name[0] != "_"]
        methods = {name for name in public
                   if isinstance(next(vars(k)[name] for k in cls.__mro__ if name in vars(k)), _METHOD_KINDS)}
        names = frozenset(public) - methods
    _data_names[cls] = names
    return names


def _setattr(self, key, to_value):
    trajectory = self._trajectory
    if trajectory is not None and key not in self._ignored_keys:
        from_value = getattr(self, key, _MISSING)
        if from_value is not _MISSING and to_value != from_value:
            if type(to_value) not in immutable_types:  # which add_reversibility hands back as they are
                to_value = add_reversibility(to_value, trajectory)
            self.log_this(AssignmentStep(self, key, from_value, to_value))
    object.__setattr__(self, key, to_value)


def _set_trajectory(self, trajectory):
    if self._trajectory is not None:
        return
    names = _class_data_names(type(self))
    if names is None:
        _ORIGINAL["set_trajectory"](self, trajectory)
        return
    object.__setattr__(self, "_trajectory", trajectory)
    ignored = self._ignored_keys
    names = names.union(name for name in vars(self) if name[0] != "_")
    for name in sorted(names):  # dir()'s order
        attr = getattr(self, name)
        if callable(attr) or name in ignored:
            continue
        object.__setattr__(self, name, add_reversibility(attr, trajectory))


def _square_init(self, x, y, _out_of_bounds=None):
    # object.__setattr__, as botbowl's wrapper ends up doing: writing to `self.__dict__` instead
    # would be quicker here but slows every later read of the square's x and y (Python then keeps
    # the attributes in a dict of their own rather than inline).
    _object_setattr(self, "x", x)
    _object_setattr(self, "y", y)
    _object_setattr(self, "_out_of_bounds", _out_of_bounds)
    _object_setattr(self, "__setattr__", None)  # what `immutable_after_init` sets last: later assignments raise


def _source_digest(function) -> str:
    try:
        return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        return "unknown"


def checked() -> bool:
    """Whether this botbowl's versions are the ones the faster ones were checked against."""
    originals = {**_ORIGINAL, "Square.__setattr__": Square.__setattr__, "Square's own __init__": _SQUARE_OWN_INIT}
    return all(_source_digest(originals[name]) == digest for name, digest in _CHECKED_SOURCES.items())


ENABLED = checked()  # False: `in_use()` changes nothing (botbowl's own throughout; for measuring the saving)
_users = 0  # the `in_use()` blocks under way, in all threads
_lock = threading.Lock()


@contextmanager
def in_use() -> Iterator[None]:
    """The faster versions for what runs inside (if `ENABLED`), botbowl's own again once the last
    block under way ends. Blocks nest, in one thread or several."""
    global _users
    if not ENABLED:
        yield
        return
    with _lock:
        _users += 1
        if _users == 1:
            Reversible.__setattr__ = _setattr
            Reversible.set_trajectory = _set_trajectory
            Square.__init__ = _square_init
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                Reversible.__setattr__ = _ORIGINAL["__setattr__"]
                Reversible.set_trajectory = _ORIGINAL["set_trajectory"]
                Square.__init__ = _ORIGINAL["Square.__init__"]


F = TypeVar("F", bound=Callable)


def used_by(function: F) -> F:
    """`function` run `in_use()`."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with in_use():
            return function(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


def installed() -> bool:
    """Whether the faster versions are in place now."""
    return Reversible.__setattr__ is _setattr and Square.__init__ is _square_init
