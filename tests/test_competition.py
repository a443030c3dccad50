"""Competition readiness: time planning from the game's clocks, botbowl's harness, the socket server, soak."""
import json
import socket
import subprocess
import sys

import pytest
from botbowl.ai.bots.random_bot import RandomBot
from botbowl.ai.competition.python_socket import PythonSocketClient

import mcts_bot
from conftest import SCRIPTS, run_script, turn_position
from mcts_bot.adapter import timing
from mcts_bot.harness import evaluation
from mcts_bot.harness.games import make_game
from mcts_bot.harness.matches import CheckedAgent


def test_no_clock_no_limit():
    game = turn_position(3, seed=0)
    assert not game.config.competition_mode
    assert timing.time_for_decision(game, game.active_team) is None


def test_turn_clock_is_shared_over_the_turns_decisions():
    game = turn_position(11, seed=0)
    game.config.competition_mode = True
    team = game.active_team
    game.add_primary_clock(team)  # a fresh clock of config.time_limits.turn seconds
    limit = game.config.time_limits.turn
    expected = timing.expected_decisions_left(game, team)
    assert expected == timing.DECISIONS_PER_PLAYER * len(game.get_players_on_pitch(team, used=False)) + 2
    seconds = timing.time_for_decision(game, team)
    reserve = timing.RESERVE_SHARE * limit + timing.RESERVE_SECONDS
    assert seconds == pytest.approx((limit - reserve) / expected, abs=0.01)
    # Every decision takes its whole share (the clock is moved on by it): however many decisions the
    # turn takes, even three times the estimate, the clock keeps the reserve for botbowl (less the
    # little real time this loop takes).
    clock = game.get_clock(team)
    for _ in range(3 * expected):
        share = timing.time_for_decision(game, team)
        assert share > 0
        clock.started_at -= share
        assert clock.get_seconds_left() > reserve - 0.5
    # A secondary clock (a decision in the opponent's turn) gives a share of its own few seconds.
    game.add_secondary_clock(team)
    assert 0 < timing.time_for_decision(game, team) < game.config.time_limits.secondary


def test_a_tight_turn_clock_is_never_overrun():
    # 3 s per turn and a 2 s budget per decision: without planning, a turn of several decisions
    # would run out of time; planned, every answer comes back with time left on the clock.
    mcts = CheckedAgent(mcts_bot.MCTSBot(seconds=2.0, seed=0))
    game = make_game(1, mcts, RandomBot("random", seed=0), seed=0, competition=True)
    game.config.time_limits.turn = 3
    game.init()
    assert game.state.game_over
    assert mcts.timeouts == 0 and mcts.illegal == 0
    assert mcts.min_seconds_left > 0


def test_botbowls_competition_harness():
    result = run_script("competition", "--board", "1", "--games", "2", "--iterations", "10")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("time-outs 0, illegal actions 0") == 2
    assert "MCTS home" in result.stdout and "MCTS away" in result.stdout


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def test_served_over_botbowls_socket_interface():
    port = free_port()
    command = [sys.executable, "-u", str(SCRIPTS / "serve.py"), "--port", port, "--iterations", "10", "--seed", "0"]
    command = [str(part) for part in command]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert "serving mcts" in server.stdout.readline()
        assert "Agent listening" in server.stdout.readline()  # botbowl prints it once bound
        remote = PythonSocketClient("remote-mcts", socket.gethostname(), port, "32", connection_timeout=10)
        client = CheckedAgent(remote)
        game = make_game(1, client, RandomBot("random", seed=1), seed=1, competition=True)
        game.init()
        assert game.state.game_over and client.decisions > 10 and client.illegal == 0 and client.timeouts == 0
    finally:
        server.kill()
        server.wait()


def test_soak_smoke(tmp_path):
    args = ("--boards", "1", "--seeds", "1", "--iterations", "5", "--workers", "2", "--out", tmp_path)
    result = run_script("soak", *args)
    assert result.returncode == 0, result.stderr
    lines = dict(line.rsplit(None, 1) for line in result.stdout.splitlines())
    assert int(lines["games"]) == int(lines["finished"]) == 8
    assert lines["crashed games"] == lines["illegal actions"] == lines["exceptions raised by the bot"] == "0"
    # A rerun reads the games back: one time-out, or one search stopped by an error, fails the soak.
    results = tmp_path / "random" / evaluation.RESULTS_FILE
    played = [json.loads(line) for line in results.read_text().splitlines()]
    for field in ("timeouts", "search_errors"):
        results.write_text("".join(json.dumps(dict(r, **{field: int(i == 0)})) + "\n" for i, r in enumerate(played)))
        rerun = run_script("soak", *args)
        assert rerun.returncode == 1, (field, rerun.stdout)
        assert int(dict(line.rsplit(None, 1) for line in rerun.stdout.splitlines())["games"]) == 8


def test_bad_arguments_are_rejected():
    result = run_script("competition", "--games", "3")
    assert result.returncode == 2 and "needs an even number" in result.stderr
    result = run_script("serve", "--port", "70000")
    assert result.returncode == 2 and "not a port number" in result.stderr
    result = run_script("soak", "--opponents", "nobody")
    assert result.returncode == 2 and "unknown bot 'nobody'" in result.stderr


@pytest.mark.parametrize("spend", [True, False])
def test_spend_clock_takes_the_clocks_share_past_seconds(monkeypatch, spend):
    # The clock grants 0.6 s; `seconds` says 0.1. Spending the clock searches (about) the 0.6 s,
    # capping it stops at the 0.1 s.
    monkeypatch.setattr(timing, "time_for_decision", lambda game, team: 0.6)
    game = turn_position(3, seed=2)
    bot = mcts_bot.MCTSBot(seconds=0.1, seed=0, spend_clock=spend)
    bot.new_game(game, game.active_team)
    bot.act(game)
    assert (bot.last_stats.seconds > 0.4) if spend else (bot.last_stats.seconds < 0.4)
