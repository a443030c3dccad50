"""Evaluation: table and interval arithmetic, resume, worker-count independence, fast failures, end to end."""
import json
import os
from dataclasses import asdict

import botbowl
import pytest

from conftest import run_script
from mcts_bot.harness import evaluation
from mcts_bot.harness.bots import check_bot, make_bot
from mcts_bot.harness.matches import GameSpec, make_opponent, play_game


def record(board, side, rollouts, result, mine, theirs, iterations=100.0, overruled=None):
    spec = GameSpec(board=board, side=side, rollouts=rollouts, seed=0, iterations=10)
    game = {"key": f"{board}{side}{rollouts}{result}{mine}{theirs}", "spec": spec.__dict__, "result": result,
            "score": [mine, theirs], "searches": 10, "mean_iterations": iterations, "crash": None}
    if overruled is not None:  # records written before the count existed have no such field
        game["overruled"] = overruled
    return game


def test_wilson_interval_known_values():
    assert evaluation.wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert evaluation.wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert evaluation.wilson_interval(0, 20) == pytest.approx((0.0, 0.1611), abs=1e-4)
    assert evaluation.wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_contains_the_rate_exactly():
    # Rounding once put the upper end of 10/10 a hair below 1.0, and the plot's error bars failed.
    for n in range(1, 101):
        for wins in range(n + 1):
            low, high = evaluation.wilson_interval(wins, n)
            assert 0.0 <= low <= wins / n <= high <= 1.0, (wins, n)


def test_table_on_made_up_results():
    records = [
        record(3, "home", True, "win", 2, 0, 100), record(3, "home", True, "draw", 1, 1, 200),
        record(3, "away", True, "win", 3, 1, 300), record(3, "away", True, "loss", 0, 2, 400),
        record(1, "home", False, "win", 4, 0, 50), record(1, "away", False, "win", 5, 0, 70),
    ]
    rows = evaluation.summarise(records)
    assert [(r.rollouts, r.board) for r in rows] == [(True, 3), (False, 1)]
    cells = dict(zip(evaluation.COLUMNS, rows[0].cells()))
    assert cells == {"Rollouts": "Yes", "Env": "3", "Home Wins": "1/2", "Home TDs": "3", "Away Wins": "1/2",
                     "Away TDs": "3", "Total Wins": "2/4", "Total TDs": "6", "AVG Wins": "0.50",
                     "AVG TDs": "1.50", "Iterations": "250", "Draws": "1", "Losses": "1",
                     "Win rate 95% CI": "15-85%"}
    markdown = evaluation.markdown_table(rows).splitlines()
    assert markdown[0].startswith("| Rollouts | Env | Home Wins") and len(markdown) == 4
    assert markdown[3] == "| No | 1 | 1/1 | 4 | 1/1 | 5 | 2/2 | 9 | 1.00 | 4.50 | 60 | 0 | 0 | 34-100% |"
    assert evaluation.csv_table(rows).splitlines()[2].startswith("No,1,1/1,4,1/1,5,2/2,9,1.00,4.50,60,0,0,")


def test_score_counts_a_draw_as_half_per_side():
    records = [record(3, "home", True, "win", 2, 0, overruled=1), record(3, "home", True, "draw", 1, 1, overruled=2),
               record(3, "home", True, "loss", 0, 1, overruled=0), record(3, "home", True, "draw", 0, 0, overruled=3),
               record(3, "away", True, "loss", 0, 3, iterations=300.0)]
    row = evaluation.summarise(records)[0]
    assert row.score("home")[0] == pytest.approx(0.5) and row.score("away")[0] == 0.0
    assert row.score()[0] == pytest.approx(2 / 5)
    low, high = evaluation.wilson_interval(2, 4)
    assert row.score("home")[1:] == (low, high)
    lines = evaluation.score_table([row]).splitlines()
    # 6 of the 40 searches at home chose another child than the priors' first; away games are old records.
    assert lines[2] == f"| Yes | 3 | home | 1-2-1 | 50% | {100 * low:.0f}-{100 * high:.0f}% | 3-2 | 100 | 15% |"
    assert lines[3].startswith("| Yes | 3 | away | 0-0-1 | 0% | 0-") and lines[3].endswith("| 0-3 | 300 | - |")


def test_crashed_games_are_left_out_of_the_table(capsys):
    crashed = record(1, "home", False, None, 0, 0)
    rows = evaluation.summarise([crashed, record(1, "away", False, "win", 1, 0)])
    assert rows[0].cells()[6] == "1/1"
    assert "1 game(s) crashed" in capsys.readouterr().err


def test_game_seeds_do_not_depend_on_the_rest_of_the_run():
    small = evaluation.Settings(boards=(1,), games_per_side=2, rollouts=(False,), iterations=5).specs()
    large = evaluation.Settings(boards=(1, 3), games_per_side=3, rollouts=(True, False), iterations=5).specs()
    assert {s.key for s in small} <= {s.key for s in large}
    assert len({s.seed for s in large}) == len(large)


TINY = dict(boards=(1,), games_per_side=2, rollouts=(False,), iterations=8)


def comparable(records):
    drop = {"seconds"}
    return sorted(json.dumps({k: v for k, v in r.items() if k not in drop}, sort_keys=True) for r in records)


def test_resume_plays_only_the_missing_games(tmp_path):
    settings = evaluation.Settings(**TINY)
    played = []
    first = evaluation.run(settings, tmp_path, progress=False, on_result=played.append)
    assert len(first) == len(played) == 4
    # Interrupt: lose the last record, and leave a half-written line behind.
    lines = (tmp_path / evaluation.RESULTS_FILE).read_text().splitlines()
    (tmp_path / evaluation.RESULTS_FILE).write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40])
    replayed = []
    second = evaluation.run(settings, tmp_path, progress=False, on_result=replayed.append)
    assert [r["key"] for r in replayed] == [json.loads(lines[-1])["key"]]
    assert comparable(second) == comparable(first)
    again = []
    evaluation.run(settings, tmp_path, progress=False, on_result=again.append)
    assert again == []


def test_one_and_two_workers_give_the_same_games(tmp_path):
    settings = evaluation.Settings(**TINY)
    one = evaluation.run(settings, tmp_path / "one", workers=1, progress=False)
    two = evaluation.run(settings, tmp_path / "two", workers=2, progress=False)
    assert comparable(one) == comparable(two)
    assert all(r["result"] in ("win", "draw", "loss") and r["illegal_actions"] == 0 for r in one)


@pytest.mark.parametrize("args,message", [
    (["--boards", "1", "4"], "unknown board size '4'"),
    (["--opponent", "nobody"], "unknown bot 'nobody': choose one of mcts, mcts-default-"),
    (["--team", "orc", "--boards", "3"], "unknown team 'orc' for the 3-player board: choose one of human"),
    (["--iterations", "0"], "0 must be at least 1"),
    (["--seconds", "0"], "0 must be greater than 0"),
    (["--preset", "turbo"], "unknown preset 'turbo'"),
    (["--games", "0"], "0 must be at least 1"),
    (["--opponent", "scripted", "--opponent-seconds", "2"], "an opponent budget is for MCTS opponents"),
    (["--opponent", "mcts", "--opponent-seconds", "0"], "0 must be greater than 0"),
])
def test_bad_arguments_fail_before_any_game(tmp_path, args, message):
    out = tmp_path / "out"
    result = run_script("evaluate", *args, "--out", out)
    assert result.returncode == 2 and message in result.stderr
    assert not out.exists()


def test_tiny_evaluation_end_to_end(tmp_path):
    out, plot = tmp_path / "eval", tmp_path / "plot.png"
    result = run_script("evaluate", "--boards", "1", "--games", "1", "--rollouts", "both", "--iterations", "10",
                        "--workers", "2", "--out", out, "--plot", plot)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in (out / evaluation.RESULTS_FILE).read_text().splitlines()]
    assert len(records) == 4
    for r in records:
        assert r["result"] in ("win", "draw", "loss") and r["decisions"] > 0 and r["seconds"] > 0
        assert {"score", "casualties_inflicted", "casualties_suffered", "mean_iterations"} <= set(r)
        assert r["opponent_mean_iterations"] is None  # random does not search
        assert r["spec"]["side"] in ("home", "away") and isinstance(r["spec"]["seed"], int)
    table = (out / "table.md").read_text()
    assert "| Yes | 1 |" in table and "| No | 1 |" in table and "Win rate 95% CI" in table
    assert (out / "table.csv").read_text().startswith("Rollouts,Env,Home Wins")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "4 games; illegal actions: 0" in result.stdout
    # Another seed into the same folder; --report tables all six games and plays none.
    more = run_script("evaluate", "--boards", "1", "--games", "1", "--rollouts", "on", "--iterations", "10",
                      "--seed", "1", "--out", out, "--plot", plot)
    assert more.returncode == 0 and "2 games; illegal actions: 0" in more.stdout, more.stderr
    report = run_script("evaluate", "--report", "--out", out, "--plot", plot)
    assert report.returncode == 0, report.stderr
    assert "6 games; illegal actions: 0" in report.stdout
    assert len((out / evaluation.RESULTS_FILE).read_text().splitlines()) == 6
    home = {cells[0]: sum(map(int, cells[3].split("-"))) for cells in
            (line.split(" | ") for line in (out / "table.md").read_text().splitlines() if "| 1 | home |" in line)}
    assert home == {"| Yes": 2, "| No": 1}  # games of both runs, by row


def test_ray_backend_gives_the_same_games(tmp_path):
    if not os.environ.get("MCTS_BOT_REQUIRE_RAY"):  # CI sets it: there, a missing Ray fails the test
        pytest.importorskip("ray", reason="Ray is not installed: the ray backend needs pip install 'mcts_bot[ray]' "
                                          "(scripts/run.sh test installs it)")
    settings = evaluation.Settings(**TINY)
    local = evaluation.run(settings, tmp_path / "local", workers=1, progress=False)
    on_ray = evaluation.run(settings, tmp_path / "ray", workers=2, backend="ray", progress=False)
    assert comparable(local) == comparable(on_ray)


def test_a_report_titles_one_setting_and_refuses_a_mix():
    records = [record(3, "home", True, "win", 2, 0), record(5, "away", True, "loss", 0, 1)]
    title = evaluation.describe_records(records)
    assert "boards 3, 5" in title and "2 games" in title and "10 iterations" in title
    other = record(3, "away", True, "draw", 1, 1)
    other["spec"] = dict(other["spec"], opponent="scripted")
    with pytest.raises(ValueError, match="mixes 2 settings.*own --out folder"):
        evaluation.describe_records(records + [other])
    with pytest.raises(ValueError, match="no finished games"):
        evaluation.describe_records([])


def test_an_mcts_opponent_can_have_its_own_seconds():
    spec = GameSpec(board=3, side="home", rollouts=False, seed=0, opponent="mcts", seconds=0.5, opponent_seconds=1.0)
    assert make_opponent(spec).budget.seconds == 1.0
    same = GameSpec(board=3, side="home", rollouts=False, seed=0, opponent="mcts", seconds=0.5)
    assert make_opponent(same).budget.seconds == 0.5
    assert spec.key != same.key and same.key == "3/home/no-rollouts/0/default/mcts/0.5/None/human/False"
    # A report tells the two apart, and names the opponent's budget in its title.
    records = [{"spec": asdict(s), "result": "win", "score": [1, 0]} for s in (spec, same)]
    with pytest.raises(ValueError, match="mixes 2 settings"):
        evaluation.describe_records(records)
    assert "vs mcts at 1 s" in evaluation.describe_records(records[:1])


def test_a_record_counts_an_mcts_opponents_iterations():
    record = play_game(GameSpec(board=1, side="away", rollouts=False, seed=3, opponent="mcts", iterations=4))
    assert record["crash"] is None and record["mean_iterations"] > 0
    assert 0 < record["opponent_mean_iterations"] <= 4


USER_BOT = '''
from __future__ import annotations

from dataclasses import dataclass

import botbowl
from botbowl.ai.bots.random_bot import RandomBot


@dataclass
class Plan:  # a dataclass in the file: its module must be known while the file runs
    score: float


class SeededBot(RandomBot):
    """Takes a seed, as botbowl's random bot does."""


class NamedBot(RandomBot):
    def __init__(self, name):
        super().__init__(name, seed=5)


class NotAnAgent:
    pass
'''


def test_any_agent_in_a_file_can_be_the_opponent(tmp_path):
    path = tmp_path / "user_bot.py"
    path.write_text(USER_BOT, encoding="utf-8")
    seeded = check_bot(f"{path}:SeededBot")
    assert isinstance(make_bot(seeded, seed=3), botbowl.Agent) and make_bot(f"{path}:NamedBot", seed=3).name == "NamedBot"
    spec = GameSpec(board=1, side="away", rollouts=False, seed=4, iterations=5, opponent=seeded)
    record = play_game(spec)
    assert record["crash"] is None and record["result"] in ("win", "draw", "loss")
    assert record["illegal_actions"] == record["opponent_illegal_actions"] == 0


@pytest.mark.parametrize("name,message", [
    ("{dir}/missing.py:Bot", "no bot file"),
    ("{dir}/user_bot.py:Nope", "defines no 'Nope': its botbowl Agent classes are NamedBot, RandomBot, SeededBot"),
    ("{dir}/user_bot.py:NotAnAgent", "'NotAnAgent' in .* is not a botbowl Agent subclass"),
    ("{dir}/broken.py:Bot", "importing the bot file .* failed: ZeroDivisionError"),
    ("alphago", "unknown bot 'alphago': choose one of mcts, .* or a bot of your own as path/to/file.py:ClassName"),
])
def test_a_bad_bot_name_says_what_is_wrong(tmp_path, name, message):
    (tmp_path / "user_bot.py").write_text(USER_BOT, encoding="utf-8")
    (tmp_path / "broken.py").write_text("1 / 0\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        check_bot(name.format(dir=tmp_path))


def test_the_scripts_take_a_file_bot_and_refuse_a_bad_one(tmp_path):
    result = run_script("evaluate", "--boards", "1", "--games", "1", "--iterations", "5", "--opponent",
                        f"{tmp_path}/nothing.py:Bot", "--out", tmp_path / "out")
    assert result.returncode == 2 and "no bot file" in result.stderr
