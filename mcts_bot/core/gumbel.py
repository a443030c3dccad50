"""Gumbel root selection: sequential halving over the root's likeliest actions (Danihelka et al.,
2022, "Policy improvement by planning with Gumbel"), for the small budgets a bot searches with.

With a few hundred iterations PUCT spends its visits where the prior points, and its most visited
child mostly repeats the prior. Gumbel MuZero instead draws `considered` actions without replacement
(Gumbel-top-k: the actions with the largest g + logit, g ~ Gumbel(0, 1)), spreads the budget evenly
over them in phases, and after each phase keeps the better half by g + logit + sigma(q), where
sigma(q) = (c_visit + most visits) * c_scale * q grows with the evidence. The action played is the
best survivor by the same score. Below the root the preset's tree policy (PUCT) selects as before.
With `gumbel_scale` = 0 (preset `default-halving`) there is no g: the likeliest actions, ranked by
logit + sigma(q). Measured against the default at 100 iterations on 5 players (docs/learning.md): with
the noise 0-2-8, without it 9-1-10; the default keeps PUCT at the root.

The budget's progress (iterations or seconds, whichever is further along) decides the phase, so it
works under a seconds budget too: a search cut short plays the best survivor so far. `q` is a
child's mean value (a win probability, from the side choosing at the root), not rescaled over the
children, so that a difference of a few hundredths after a handful of visits does not count as much
as a sure one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import numpy as np

from mcts_bot.core.nodes import ActionNode, ChanceNode

Progress = Callable[[], float]  # the share of the search's budget used so far, in [0, 1]


@dataclass(frozen=True)
class GumbelRoot:
    """The settings of Gumbel root selection; called with a search's root, its random generator and
    its progress, it gives the `SequentialHalving` that selects at that root."""

    considered: int = 16  # actions drawn at the root (m in the paper)
    c_visit: float = 50.0
    c_scale: float = 1.0
    # The Gumbel noise's scale: 1 samples (self-play, where the improved policy is the target); 0 takes the
    # likeliest actions and the best by logit + sigma(q), for play (mctx's advice for perfect-information games).
    gumbel_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.considered < 2:
            raise ValueError(f"considered must be at least 2, got {self.considered}")
        if not (self.c_visit >= 0 and self.c_scale > 0 and self.gumbel_scale >= 0):
            raise ValueError(f"c_visit and gumbel_scale must be >= 0 and c_scale > 0, "
                             f"got {self.c_visit}, {self.gumbel_scale}, {self.c_scale}")

    def __call__(self, root: ActionNode, rng: np.random.RandomState, progress: Progress) -> "SequentialHalving":
        return SequentialHalving(self, root, rng, progress)


class SequentialHalving:
    """Selects the root's child for each iteration of one search, and its final choice.

    The root's children (with their priors) may not exist yet when the search starts: the draw is
    made at the first selection."""

    def __init__(self, settings: GumbelRoot, root: ActionNode, rng: np.random.RandomState, progress: Progress):
        self.settings = settings
        self.root = root
        self.rng = rng
        self.progress = progress
        self.candidates: List[ChanceNode] = []
        self.phases = 1
        self.phase = 0
        self._noisy_logit: Dict[int, float] = {}  # g + log prior, by id of the child
        self._visits_before: Dict[int, int] = {}  # with a reused tree: the visits from earlier searches

    def _draw(self) -> None:
        children = self.root.children
        priors = np.array([child.prior if child.prior is not None else 1.0 / len(children) for child in children])
        noisy = np.log(np.maximum(priors, 1e-12)) + self.settings.gumbel_scale * self.rng.gumbel(size=len(children))
        order = np.argsort(-noisy, kind="stable")[:min(self.settings.considered, len(children))]
        self.candidates = [children[i] for i in order]
        self._noisy_logit = {id(children[i]): float(noisy[i]) for i in range(len(children))}
        self._visits_before = {id(child): child.visits for child in children}
        self.phases = max(1, math.ceil(math.log2(len(self.candidates))))
        self.phase = 0

    def _q(self, child: ChanceNode) -> float:
        return 1.0 - child.value if self.root.is_opponent else child.value

    def scores(self) -> Dict[int, float]:
        """g + logit + sigma(q) of each candidate, by id: what ranks them (q counts once a child was visited)."""
        scale = (self.settings.c_visit + max(c.visits for c in self.root.children)) * self.settings.c_scale
        return {id(c): self._noisy_logit[id(c)] + (scale * self._q(c) if c.visits else 0.0) for c in self.candidates}

    def _halve_to(self, phase: int) -> None:
        while self.phase < phase and len(self.candidates) > 1:
            scores = self.scores()
            keep = math.ceil(len(self.candidates) / 2)
            self.candidates = sorted(self.candidates, key=lambda c: -scores[id(c)])[:keep]
            self.phase += 1
        self.phase = max(self.phase, phase)

    def _drawn(self) -> bool:
        """Whether the candidates are drawn and still the root's children (a stale root is rebuilt
        with new children: `Search.iterate`)."""
        children = {id(child) for child in self.root.children}
        return bool(self.candidates) and all(id(c) in children for c in self.candidates)

    def select(self) -> ChanceNode:
        """The candidate with the fewest visits in this search, after halving to the budget's phase."""
        if not self._drawn():
            self._draw()
        self._halve_to(min(self.phases - 1, int(self.progress() * self.phases)))
        scores = self.scores()
        return min(self.candidates, key=lambda c: (c.visits - self._visits_before[id(c)], -scores[id(c)]))

    def choice(self) -> Optional[ChanceNode]:
        """The survivor with the best score among those visited; None before any selection (or since
        the root was rebuilt)."""
        if not self._drawn():
            return None
        scores = self.scores()
        visited = [c for c in self.candidates if c.visits]
        return max(visited, key=lambda c: scores[id(c)]) if visited else None
