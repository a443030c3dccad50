"""Parallel search: the helper processes and their protocol (`workers`), root parallelism (`root`)
and tree parallelism (`tree`). They wrap the single search (`core.search.Search`); they do not fork it."""
