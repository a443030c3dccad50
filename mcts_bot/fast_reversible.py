"""Faster bookkeeping for botbowl's forward model, with the same behaviour.

Every assignment to an attribute of a botbowl object goes through `Reversible.__setattr__`, and
every object the game creates while its forward model is on (a procedure pushed on the stack, a
list put in one) through `Reversible.set_trajectory`. In a search both run thousands of times per
iteration: `__setattr__` looks the attribute up three times, and `set_trajectory` walks
`dir(self)`, a hundred-odd names, methods included, to find the dozen values the object holds.

`install()` (done by `import mcts_bot`) puts in versions that do the same work with fewer lookups:
the same attributes made reversible, the same steps logged in the same order, the same errors.
The walk visits the names `dir(self)` lists (the instance's own plus its class's, the class's kept
per class) less the class's methods, which botbowl's walk skips anyway as callable. A class that
lists its names its own way (`__dir__`, `__slots__`) gets botbowl's walk. Only botbowl code these
versions were checked against is replaced (its source is compared); any other botbowl keeps its
own. `uninstall()` restores botbowl's. `tests/test_fast_reversible.py` checks the equivalence:
the same logs and states, and the same search trees, with and without.
"""
from __future__ import annotations

import hashlib
import inspect
import types
from typing import Dict, FrozenSet, Optional

from botbowl.core.forward_model import AssignmentStep, Reversible, add_reversibility

_ORIGINAL = {"__setattr__": Reversible.__setattr__, "set_trajectory": Reversible.set_trajectory}
# sha256 of the source of botbowl 1.1.0's versions, the ones these replacements reproduce
_CHECKED_SOURCES = {"__setattr__": "044bcd0cab939b54", "set_trajectory": "0827dc335b9f560f"}
_MISSING = object()
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


def _source_digest(function) -> str:
    try:
        return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]
    except (OSError, TypeError):
        return "unknown"


def install() -> bool:
    """Use the faster versions, if this botbowl's are the ones they were checked against; whether they are in use."""
    if any(_source_digest(_ORIGINAL[name]) != digest for name, digest in _CHECKED_SOURCES.items()):
        return False
    Reversible.__setattr__ = _setattr
    Reversible.set_trajectory = _set_trajectory
    return True


def uninstall() -> None:
    """Back to botbowl's own versions."""
    Reversible.__setattr__ = _ORIGINAL["__setattr__"]
    Reversible.set_trajectory = _ORIGINAL["set_trajectory"]


def installed() -> bool:
    return Reversible.__setattr__ is _setattr
