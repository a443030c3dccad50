"""The scripts run end to end on tiny budgets and reject bad arguments with a clear message."""
import argparse
import contextlib
import importlib.util
import io
import re
import runpy
import shlex
import shutil
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import SCRIPTS, die, run_script
from mcts_bot.parallel import root as root_parallel
from mcts_bot.knowledge.value import ValueModel


@pytest.mark.parametrize("script,args,message", [
    ("inspect_tree", ["--board", "4"], "unknown board size '4': choose one of 1, 3, 5, 7, 11"),
    ("inspect_tree", ["--iterations", "0"], "0 must be at least 1"),
    ("inspect_tree", ["--seconds", "-2"], "-2 must be greater than 0"),
    ("inspect_tree", ["--preset", "turbo"], "unknown preset 'turbo'"),
    ("demo", ["--board", "two"], "unknown board size 'two'"),
    ("benchmark", ["--boards", "1", "9"], "unknown board size '9'"),
    ("web", ["--iterations", "0"], "0 must be at least 1"),
    ("screenshots", ["--board", "2"], "unknown board size '2'"),
    ("budget_curve", ["--seconds", "0.5", "1", "--games", "2", "3", "4"], "give one number or one per budget"),
    ("budget_curve", ["--opponent", "alphago"], "unknown bot 'alphago'"),
    ("benchmark", ["--workers", "1", "2", "--iterations", "5"], "give --seconds, not --iterations"),
    ("collect", ["--home", "alphago"], "unknown bot 'alphago'"),
    ("train_value", ["--data", "/nonexistent/folder"], "no collected games in /nonexistent/folder"),
    ("train_value", ["--test-share", "1.5"], "--test-share must be in (0, 1)"),
])
def test_bad_arguments(script, args, message):
    result = run_script(script, *args)
    assert result.returncode == 2
    assert message in result.stderr


def test_inspect_tree_prints_xml_and_the_choice_and_writes_a_page(tmp_path):
    page = tmp_path / "decision.html"
    result = run_script("inspect_tree", "--board", "3", "--seed", "2", "--steps", "50", "--iterations", "60",
                 "--preset", "vanilla", "--html", page)
    assert result.returncode == 0, result.stderr
    xml_text, _, summary = result.stdout.partition("\n\n")
    root = ET.fromstring(xml_text)
    assert root.tag == "ActionNode" and root.get("visits") == "60"
    assert "Chosen: " in summary and "60 iterations" in summary
    chosen = summary.split("Chosen: ")[1].splitlines()[0]
    html = page.read_text(encoding="utf-8")
    assert f"<title>Decision: {chosen}" in html and 'id="board"' in html and "60 visits" in html


def test_demo_runs_and_writes_decision_pages(tmp_path):
    result = run_script("demo", "--board", "1", "--iterations", "10", "--pages", tmp_path / "pages")
    assert result.returncode == 0, result.stderr
    assert "Score: home" in result.stdout and "<ActionNode" in result.stdout
    pages = sorted((tmp_path / "pages").glob("decision-*.html"))
    assert pages and f"{len(pages)} decision pages in" in result.stdout
    assert (tmp_path / "pages" / "index.html").read_text(encoding="utf-8").count('href="decision-') == len(pages)


def test_demo_on_its_default_path_keeps_stderr_clean():
    # Seconds and two processes per decision, as `scripts/run.sh demo` plays on two cores: no error
    # line, no warning, no traceback (botbowl's dependency gym prints a notice of its own on import).
    result = run_script("demo", "--board", "1", "--seconds", "0.1", "--workers", "2")
    assert result.returncode == 0, result.stderr
    ours = [line for line in result.stderr.splitlines() if line.strip() and not _gym_notice(line)]
    assert ours == [], ours
    assert "errors: 0" in result.stdout


def _gym_notice(line: str) -> bool:
    return line.startswith(("Gym has been unmaintained", "Please upgrade to Gymnasium", "See the migration guide",
                            "Users of this version of Gym"))


def test_benchmark_runs():
    result = run_script("benchmark", "--boards", "1", "--iterations", "20")
    assert result.returncode == 0, result.stderr
    assert "botbowl share" in result.stdout and "own: leaf value" in result.stdout
    row = next(line for line in result.stdout.splitlines() if line.startswith("| 1 |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert len(cells) == 12 and float(cells[10].rstrip("%")) > 0  # every iteration scores a leaf


def test_benchmark_compares_a_part_on_and_off():
    result = run_script("benchmark", "--boards", "1", "--iterations", "20", "--compare", "fast-reversible")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| 1 |")]
    assert [row.split("|")[2].strip() for row in rows] == ["on", "off"]


def test_benchmark_compares_search_workers():
    result = run_script("benchmark", "--boards", "1", "--workers", "1", "2", "--seconds", "0.1", "--repeats", "2")
    assert result.returncode == 0, result.stderr
    assert "2 decision(s) each" in result.stdout
    row = next(line for line in result.stdout.splitlines() if line.startswith("| 1 |"))
    assert row.endswith("x |") and row.count("x |") == 2 and "2 worker(s)" in result.stdout  # and the ceiling


def test_benchmark_says_when_a_worker_failed(monkeypatch, capsys):
    # A helper that dies lowers its setting's iterations; the comparison must not pass that off as speed.
    spec = importlib.util.spec_from_file_location("benchmark", SCRIPTS / "benchmark.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    monkeypatch.setattr(root_parallel, "run_search", die)  # helpers are forked with the patch
    # Half a second: time enough, on a loaded machine, to see the helper die before the decision's deadline
    # (a death seen later counts as a late answer, not a failure).
    benchmark.compare_workers([1], [1, 2], 0.5, "default", repeats=1)
    failures = capsys.readouterr().out.split("decisions with a failed search or worker: ")[1]
    one, two = failures.strip().split(", 2 worker(s), root: ")
    assert one == "1 worker(s): 0" and int(two) >= 1


def test_budget_curve_plays_each_budget_and_plots(tmp_path):
    plot = tmp_path / "curve.png"
    result = run_script("budget_curve", "--board", "1", "--seconds", "0.02", "0.04", "--games", "1",
                        "--opponent", "random", "--workers", "2", "--out", tmp_path / "out", "--plot", plot)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| 0.0")]
    assert [r.split(" | ")[1] for r in rows] == ["home", "away", "home", "away"]
    assert plot.stat().st_size > 1000
    assert len((tmp_path / "out" / "games.jsonl").read_text().splitlines()) == 4


def test_collect_and_train_value_build_a_model(tmp_path):
    data, model, plot = tmp_path / "data", tmp_path / "value.npz", tmp_path / "calibration.png"
    result = run_script("collect", "--board", "1", "--games", "12", "--workers", "2", "--out", data)
    assert result.returncode == 0, result.stderr
    assert len(list(data.glob("*.npz"))) == 12
    again = run_script("collect", "--board", "1", "--games", "12", "--workers", "1", "--out", data)
    assert "12 already in" in again.stderr and "from 0 new games" in again.stdout  # resumed: nothing to play
    result = run_script("train_value", "--board", "1", "--data", data, "--epochs", "3", "--hidden", "4",
                        "--test-share", "0.25", "--out", model, "--plot", plot)
    assert result.returncode == 0, result.stderr
    assert "| learned value |" in result.stdout and "| threat heuristic, calibrated |" in result.stdout
    assert "Learned less shipped: " in result.stdout and "95% bootstrap by game" in result.stdout
    assert "9 games to train on, 3 held out" in result.stdout
    assert model.exists() and plot.exists()
    fewer = run_script("train_value", "--board", "1", "--data", data, "--epochs", "1", "--hidden", "4",
                       "--test-share", "0.25", "--train-games", "5", "--out", model, "--plot", plot)
    assert fewer.returncode == 0, fewer.stderr
    assert "5 games to train on, 3 held out" in fewer.stdout and ValueModel.load(model).info["games"] == "5"
    first, more, most = tmp_path / "first", tmp_path / "more", tmp_path / "most"
    for i, path in enumerate(sorted(data.glob("*.npz"))):
        folder = first if i < 8 else more if i < 10 else most
        folder.mkdir(exist_ok=True)
        shutil.copy(path, folder / path.name)
    pooled = run_script("train_value", "--board", "1", "--data", first, "--more-data", more, "--more-data", most,
                        "--epochs", "1", "--hidden", "4", "--test-share", "0.25", "--out", model, "--plot", plot)
    assert pooled.returncode == 0, pooled.stderr
    # each group split on its own: 6 + 1 + 1 to train on, 2 + 1 + 1 held out (4 games in one group: 3 and 1)
    assert "12 games" in pooled.stdout and "8 games to train on, 4 held out" in pooled.stdout
    assert ValueModel.load(model).info["data"] == f"{first} {more} {most}"
    mixed = run_script("train_value", "--board", "1", "--selfplay", "--more-data", more)
    assert mixed.returncode == 2 and "--more-data is for collected games" in mixed.stderr
    too_many = run_script("train_value", "--board", "1", "--data", data, "--test-share", "0.25", "--train-games", "10")
    assert too_many.returncode == 2 and "--train-games 10: there are only 9 training games" in too_many.stderr
    tuned = run_script("train_value", "--board", "1", "--data", data, "--epochs", "2", "--fine-tune",
                       "--test-share", "0.25", "--out", model, "--plot", plot)
    assert tuned.returncode == 0, tuned.stderr
    assert ValueModel.load(model).info["target"] == "td(0.7), fine-tuned"


def readme_commands():
    """Every `scripts/run.sh NAME ARGS` of the README whose NAME is a script: (line, name, args)."""
    readme = SCRIPTS.parent / "README.md"
    found = []
    for number, line in enumerate(readme.read_text(encoding="utf-8").splitlines(), 1):
        for match in re.finditer(r"scripts/run\.sh ([a-z_]+)([^`|#\n]*)", line):
            if (SCRIPTS / f"{match.group(1)}.py").exists():
                found.append((number, match.group(1), shlex.split(match.group(2))))
    return found


def test_every_command_the_readme_gives_parses(monkeypatch):
    # A flag renamed or a preset dropped leaves the README telling users to type what fails: each
    # command is parsed by its script's own parser (and only parsed: nothing runs).
    class Parsed(Exception):
        pass

    parse = argparse.ArgumentParser.parse_args

    def parse_only(self, args=None, namespace=None):
        parse(self, args, namespace)
        raise Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_only)
    commands = readme_commands()
    assert len(commands) > 30  # the pattern still finds them
    failed = []
    for number, name, args in commands:
        monkeypatch.setattr(sys, "argv", [str(SCRIPTS / f"{name}.py"), *args])
        errors = io.StringIO()
        try:
            with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
                runpy.run_path(str(SCRIPTS / f"{name}.py"), run_name="__main__")
        except Parsed:
            continue
        except SystemExit as exit_:
            if exit_.code == 0:
                continue
        said = errors.getvalue().strip().splitlines()
        failed.append(f"README.md:{number}: scripts/run.sh {name} {' '.join(args)}: {said[-1] if said else 'exited'}")
    assert not failed, "\n".join(failed)
