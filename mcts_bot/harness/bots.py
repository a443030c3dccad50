"""The bots the scripts play against, by name: one place that checks a name and builds its bot.

A name is one of:
- `mcts` or `mcts-<preset>`: an MCTS bot with that preset (`mcts` is the default preset);
- `random`, `scripted`, `grod`, `policy` (the default's knowledge priors alone, no search), or any other bot
  registered with botbowl;
- `policy:path/to/policy.npz`: a learned policy (`scripts/run.sh train_policy`) alone, no search,
  reading the default's choice (`presets.planning_choice`);
- `path/to/file.py:ClassName`: any botbowl `Agent` subclass defined in a file, so a user can measure
  against their own bot. The class is built with its name (and `seed=`, when it takes one).

Names are strings, so a game's description can travel to another process (the evaluation's
workers, a Ray cluster), which builds the bot itself.
"""
from __future__ import annotations

import importlib.util
import inspect
import sys
from functools import partial
from pathlib import Path
from typing import Optional, Tuple, Type, Union

import botbowl
from botbowl.ai.bots.random_bot import RandomBot

from mcts_bot.agent import MCTSBot
from mcts_bot.knowledge.policy import PolicyModel
from mcts_bot.knowledge.policy_bot import PolicyBot
from mcts_bot.knowledge.scripted import ScriptedBot
from mcts_bot.knowledge.value import value_from_file
from mcts_bot.core.preset import Preset
from mcts_bot.presets import PRESETS, configure, planning_choice

# The bots that take a seed, built with it (botbowl's registry builds a bot from its name alone).
# "policy" is the default's priors alone, as `import mcts_bot` registers it.
SEEDED_BOTS = {"random": RandomBot, "scripted": ScriptedBot,
               "policy": partial(PolicyBot, priors=PRESETS["default"].priors)}
POLICY_FILE_PREFIX = "policy:"


def mcts_preset_of(name: str) -> Optional[str]:
    """The preset behind an MCTS bot name ("mcts" -> default, "mcts-vanilla" -> vanilla), else None."""
    if name == "mcts":
        return "default"
    if name.startswith("mcts-") and name[len("mcts-"):] in PRESETS:
        return name[len("mcts-"):]
    return None


def file_bot_of(name: str) -> Optional[Tuple[Path, str]]:
    """(file, class name) for a `path/to/file.py:ClassName` name, else None."""
    path, colon, class_name = name.rpartition(":")
    if not colon or not path.endswith(".py"):
        return None
    return Path(path), class_name


def policy_file_of(name: str) -> Optional[Path]:
    """The model file of a `policy:path/to/policy.npz` name, else None."""
    return Path(name[len(POLICY_FILE_PREFIX):]) if name.startswith(POLICY_FILE_PREFIX) else None


def label(name: str) -> str:
    """`name` as a file or folder name: a file bot's file stem and class (`my_bot-MyBot`), a learned
    policy's file stem, led by `policy-` unless it is already (`gen1.npz`: `policy-gen1`)."""
    file_bot = file_bot_of(name)
    if file_bot is not None:
        return f"{file_bot[0].stem}-{file_bot[1]}"
    policy_file = policy_file_of(name)
    if policy_file is None:
        return name
    return policy_file.stem if policy_file.stem.startswith("policy") else f"policy-{policy_file.stem}"


def load_agent_class(path: Path, class_name: str) -> Type[botbowl.Agent]:
    """The botbowl Agent class `class_name` defined in the Python file `path`; a clear error otherwise."""
    if not path.is_file():
        raise ValueError(f"no bot file {str(path)!r}: give an existing Python file, as path/to/file.py:ClassName")
    if not class_name.isidentifier():
        raise ValueError(f"{class_name!r} is not a class name: give the bot as path/to/file.py:ClassName")
    module_name = f"mcts_bot_user_bot_{abs(hash(str(path.resolve())))}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # before it runs: dataclasses and pickling look their module up there
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - any error in the user's file, reported with its cause
            del sys.modules[module_name]
            raise ValueError(f"importing the bot file {str(path)!r} failed: {type(exc).__name__}: {exc}") from exc
    cls = getattr(module, class_name, None)
    if cls is None:
        classes = sorted(name for name, value in vars(module).items()
                         if inspect.isclass(value) and issubclass(value, botbowl.Agent) and value is not botbowl.Agent)
        raise ValueError(f"{str(path)!r} defines no {class_name!r}: its botbowl Agent classes are "
                         f"{', '.join(classes) or 'none'}")
    if not (inspect.isclass(cls) and issubclass(cls, botbowl.Agent)):
        raise ValueError(f"{class_name!r} in {str(path)!r} is not a botbowl Agent subclass "
                         f"(class {class_name}(botbowl.Agent) with act, new_game and end_game)")
    return cls


def check_bot(name: str) -> str:
    """`name` if it names a bot we can build; otherwise a clear error listing what is allowed."""
    file_bot = file_bot_of(name)
    if file_bot is not None:
        load_agent_class(*file_bot)
        return name
    policy_file = policy_file_of(name)
    if policy_file is not None:
        try:
            PolicyModel.load(policy_file)
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"{name!r}: {exc}") from exc
        return name
    if mcts_preset_of(name) is not None or name.lower() in botbowl.list_bots():
        return name
    mcts_names = ["mcts"] + [f"mcts-{preset}" for preset in sorted(PRESETS) if preset != "default"]
    others = sorted(set(botbowl.list_bots()) - set(mcts_names))
    raise ValueError(f"unknown bot {name!r}: choose one of {', '.join(mcts_names + others)}, "
                     f"a learned policy alone as policy:path/to/policy.npz, "
                     f"or a bot of your own as path/to/file.py:ClassName")


def with_models(preset: str, policy: Optional[str] = None, value: Optional[str] = None) -> Union[str, Preset]:
    """The preset `preset` (a name) searching with the learned policy in the file `policy` as its
    priors and the value in the file `value` at its leaves; the name itself when both are None. A
    clear error, before any game, when the preset searches without priors or a file is missing or stale."""
    if policy is None and value is None:
        return preset
    parts = {}
    try:
        if policy is not None:
            if PRESETS[preset].priors is None:
                raise ValueError(f"a policy replaces the priors, and the preset {preset!r} searches without them: "
                                 f"choose a preset with priors (mcts, the default)")
            # Its `policy_choice` feature reads the choice this preset plans with (the board's, for the default).
            parts["priors"] = PolicyModel.load(Path(policy)).with_choice(planning_choice(PRESETS[preset]))
        if value is not None:
            parts["heuristic"] = value_from_file(Path(value))
    except (OSError, KeyError) as exc:  # a missing file says how to train one; a stale one is a ValueError already
        raise ValueError(str(exc)) from exc
    return configure(preset, **parts)


def make_bot(name: str, *, seed: int, seconds: Optional[float] = None, iterations: Optional[int] = None,
             policy: Optional[str] = None, value: Optional[str] = None) -> botbowl.Agent:
    """The bot `name` (see the module doc), seeded; MCTS bots search with `seconds` and/or `iterations`,
    and with the learned policy and value in the files `policy` and `value` when given (`with_models`)."""
    preset = mcts_preset_of(name)
    if preset is not None:
        return MCTSBot(name, seconds=seconds, iterations=iterations, preset=with_models(preset, policy, value), seed=seed)
    file_bot = file_bot_of(name)
    if file_bot is not None:
        cls = load_agent_class(*file_bot)
        try:
            takes_seed = "seed" in inspect.signature(cls).parameters
        except (TypeError, ValueError):
            takes_seed = False
        return cls(file_bot[1], seed=seed) if takes_seed else cls(file_bot[1])
    policy_file = policy_file_of(name)
    if policy_file is not None:
        model = PolicyModel.load(policy_file).with_choice(planning_choice(PRESETS["default"]))
        return PolicyBot(label(name), priors=model, seed=seed)
    seeded = SEEDED_BOTS.get(name.lower())
    if seeded is not None:
        return seeded(name.lower(), seed=seed)
    return botbowl.make_bot(name.lower())  # a bot registered elsewhere: built as botbowl builds it
