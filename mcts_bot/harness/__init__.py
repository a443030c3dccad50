"""The experiment harness: setting up games, playing checked games, evaluations, script flags.

It uses the bot and is never used by it: nothing under `mcts_bot/` outside this package imports it.
"""
