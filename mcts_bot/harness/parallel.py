"""Running many independent tasks (games) at once: local processes, or Ray tasks on a cluster.

Results come back as tasks finish, in any order, so that the caller can write each one at once.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, Optional, Sequence, TypeVar

Task = TypeVar("Task")
Result = TypeVar("Result")
BACKENDS = ("local", "ray")


def check_backend(workers: int, backend: str) -> None:
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: choose local or ray")


def run_tasks(fn: Callable[[Task], Result], tasks: Sequence[Task], *, workers: int = 1, backend: str = "local",
              ray_address: Optional[str] = None) -> Iterator[Result]:
    """`fn(task)` for every task, `workers` at a time, yielded as each finishes.

    `fn` must be a module-level function (it is sent to other processes). With the Ray backend and
    no address, a local Ray with `workers` CPUs is started (and shut down at the end); with an
    address, the tasks go to that cluster.
    """
    check_backend(workers, backend)
    if backend == "ray":
        yield from _run_ray(fn, tasks, workers, ray_address)
    elif workers == 1:
        for task in tasks:
            yield fn(task)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(fn, task) for task in tasks]
            for future in as_completed(futures):
                yield future.result()


@contextmanager
def ray_session(workers: int, address: Optional[str]) -> Iterator[None]:
    """Ray joined (or a local Ray started) for the duration, unless it already is: a caller with many
    rounds of tasks (a tuning's iterations) opens one session around them all, not one per round."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the ray backend needs Ray: pip install 'mcts_bot[ray]' (or pip install ray)") from None
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                 log_to_driver=False, logging_level="ERROR")
    try:
        yield
    finally:
        if started_here:
            ray.shutdown()


def _run_ray(fn, tasks, workers: int, address: Optional[str]):
    with ray_session(workers, address):
        import ray
        remote_fn = ray.remote(num_cpus=1)(fn)
        pending = [remote_fn.remote(task) for task in tasks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
