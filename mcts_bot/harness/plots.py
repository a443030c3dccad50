"""Figures for the README: one way to make them, one way to save them (PNG, 110 dpi, off-screen)."""
from __future__ import annotations

from pathlib import Path
from typing import Tuple


def figure(size: Tuple[float, float], **subplots):
    """(fig, ax) drawn off-screen (no display needed); `subplots` go to plt.subplots (nrows=2: two axes)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=size, **subplots)


def save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
