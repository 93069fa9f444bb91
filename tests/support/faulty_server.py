"""`python tests/support/faulty_server.py`: the language server with a fault injected.

The analysis of any document whose text contains FAULT raises, as a bug in the analysis
would; every other document is analysed as usual. tests/server/test_server_errors.py drives it
over stdio to see that each handler logs the error and answers empty, and that the other
documents are still served.
"""

from __future__ import annotations

from typing import Any

from checkspec.engine.spec import incremental
from checkspec.server.main import main

MARKER = "FAULT"
# An open document's analysis is made by its Editing (engine/spec/incremental.py): a
# fresh one, or after an edit, a re-read of the scenarios it touched.
_analyze, _reanalyze = incremental.analyze, incremental.reanalyze


def faulty_analyze(text: str, *args: Any, **kwargs: Any) -> Any:
    if MARKER in text:
        raise RuntimeError("injected analysis fault")
    return _analyze(text, *args, **kwargs)


def faulty_reanalyze(previous: Any, text: str, *args: Any, **kwargs: Any) -> Any:
    if MARKER in text:
        raise RuntimeError("injected analysis fault")
    return _reanalyze(previous, text, *args, **kwargs)


incremental.analyze = faulty_analyze
incremental.reanalyze = faulty_reanalyze

if __name__ == "__main__":
    main()
