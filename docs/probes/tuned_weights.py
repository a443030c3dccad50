"""Probe: the default searching with the weights a tuning found (`scripts/run.sh tune`), as a bot of
one's own for `--bots FILE.py:CLASS` (docs/tuning.md).

`grod`'s weights are set to those of $TUNED_WEIGHTS (a tuning's weights.json) while the bot decides, so
its priors and the playouts that finish its leaves plan with them; an opponent in the same process
plays the shipped ones. It searches 1 s a decision whatever the script's budget (a file's bot is built
from its name and seed alone):

    TUNED_WEIGHTS=docs/tuned-weights/tune-11-grod.json scripts/run.sh trace \\
        --bots docs/probes/tuned_weights.py:TunedMCTS grod --board 11 --games 10 --seed 38000
"""
import os
from pathlib import Path
from typing import Optional

from mcts_bot.agent import MCTSBot
from mcts_bot.harness.tuning import WeightedBot, read_weights


def tuned_weights():
    path = os.environ.get("TUNED_WEIGHTS")
    if not path:
        raise ValueError("set TUNED_WEIGHTS to a tuning's weights.json (scripts/run.sh tune writes OUT/weights.json)")
    return read_weights(Path(path))


class TunedMCTS(WeightedBot):
    """The default MCTS bot (1 s a decision) deciding with the tuned weights."""

    def __init__(self, name: str = "mcts-tuned", seed: Optional[int] = None):
        super().__init__(MCTSBot(name, seconds=1.0, seed=seed), tuned_weights())
