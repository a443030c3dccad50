"""Results files: one JSON line per finished game, written as it ends, so that a run that stops
keeps what it had and the same command resumes with the games still missing."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from tqdm import tqdm

from mcts_bot.harness.parallel import check_backend, run_tasks


def read_results(path: Path) -> List[dict]:
    """The records in a results file; a last line cut off by an interruption is ignored."""
    if not path.exists():
        return []
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a half-written last line from an interrupted run: that game is played again
    return records


def drop_partial_last_line(path: Path) -> None:
    """Cut a last line that an interruption left without its newline, so appends start on a fresh line."""
    if not path.exists():
        return
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def append_result(path: Path, record: dict) -> None:
    """Append one game's record and make sure it is on disk before going on."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
        f.flush()
        os.fsync(f.fileno())


def play_missing(specs: Sequence, play: Callable[[object], dict], path: Path, *, workers: int = 1,
                 backend: str = "local", ray_address: Optional[str] = None, progress: bool = True,
                 on_result: Optional[Callable[[dict], None]] = None,
                 postfix: Optional[Callable[[List[dict]], str]] = None,
                 before_append: Optional[Callable[[dict], None]] = None) -> List[dict]:
    """Play (`play(spec)` -> a record with the spec's `key`) the specs whose key is not yet in the
    results file `path`, appending each record as it ends, with a progress bar (`postfix` of the
    finished records beside it). `before_append(record)` runs first, and may take out of the record
    what does not go in the results file (and write it elsewhere: a game that is in the file has it).
    Returns the records of all `specs`, earlier ones included, in order."""
    check_backend(workers, backend)
    path.parent.mkdir(parents=True, exist_ok=True)
    drop_partial_last_line(path)
    done = {record["key"]: record for record in read_results(path)}
    todo = [spec for spec in specs if spec.key not in done]
    bar = tqdm(total=len(specs), initial=len(specs) - len(todo), unit="game", disable=not progress,
               dynamic_ncols=True, file=sys.stderr)
    for record in run_tasks(play, todo, workers=workers, backend=backend, ray_address=ray_address):
        if before_append is not None:
            before_append(record)
        append_result(path, record)
        done[record["key"]] = record
        if postfix is not None:
            bar.set_postfix_str(postfix([done[spec.key] for spec in specs if spec.key in done]), refresh=False)
        bar.update()
        if on_result:
            on_result(record)
    bar.close()
    return [done[spec.key] for spec in specs]
