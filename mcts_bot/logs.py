"""The package's one logger, and failures logged once: a bot that logs a traceback every decision
buries its own log."""
from __future__ import annotations

import logging

logger = logging.getLogger("mcts_bot")
_logged_failures: set = set()


def log_failure_once(exc: BaseException, what: str) -> None:
    """Log a failure with its traceback the first time it happens in this process; repeats go to debug."""
    signature = (what, type(exc).__name__, str(exc))
    if signature in _logged_failures:
        logger.debug("%s (again): %s: %s", what, type(exc).__name__, exc)
        return
    _logged_failures.add(signature)
    logger.error("%s: %s: %s", what, type(exc).__name__, exc, exc_info=exc)
