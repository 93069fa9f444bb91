"""Fixtures every test gets (helpers live in tests/support)."""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import pytest

from tests.support.lanes import guarded, in_fast_lane, mark_lanes, trim_examples
from tests.support.unmeasured import unmeasured


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test marked by what it starts (tests/support/lanes.py); in the fast lane
    (`make check`), property tests draw fewer examples."""
    mark_lanes(items)
    for item in items:
        if in_fast_lane(item):
            trim_examples(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """In the fast lane a test (its fixtures too) that starts a process or a server fails."""
    if not in_fast_lane(item):
        return (yield)
    with guarded():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A test marked `unmeasured` runs untraced by coverage (tests/support/unmeasured.py)."""
    if item.get_closest_marker("unmeasured") is None:
        return (yield)
    with unmeasured():
        return (yield)


def _keep_checkspec_modules() -> None:
    """pytester's in-process runs (the pytest plugin's tests) drop the modules a run
    imported when it ends; the engine's modules must stay. Dropped, the next import makes
    new classes while the modules kept still hold the old ones: a check's class is then not
    the one its module names (unpicklable for a worker), a pydantic model is left not fully
    defined. Which modules a run imports first depended on the tests before it: the order
    dependence of tests/engine/test_pytest_plugin.py and test_settings_everywhere.py."""
    from _pytest.pytester import SysModulesSnapshot

    restore = SysModulesSnapshot.restore

    def restore_keeping_checkspec(self: SysModulesSnapshot) -> None:
        kept = {name: m for name, m in sys.modules.items() if name.startswith("checkspec.")}
        restore(self)
        sys.modules.update(kept)

    SysModulesSnapshot.restore = restore_keeping_checkspec  # type: ignore[method-assign]


_keep_checkspec_modules()


if os.environ.get("MUTANT_UNDER_TEST") is not None:
    # Under `make mutate`, mutmut records which tests reach each function. The engine's
    # caches (analyses by scenario text, compiled paths, regexes, policies...) would let
    # only the first test reach the code behind them, so every test starts without them.
    import pytest

    @pytest.fixture(autouse=True)
    def _no_shared_caches() -> None:
        for name, module in list(sys.modules.items()):
            if not name.startswith("checkspec.") or module is None:
                continue
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
                elif isinstance(value, dict) and value is getattr(module, "_CACHE", None):
                    value.clear()


@pytest.fixture(scope="session")
def _verdict_caches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("verdicts")


_NEXT = itertools.count()


@pytest.fixture(autouse=True)
def _own_verdict_cache(_verdict_caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets an empty verdict cache (runs keep judge answers between runs in
    .checkspec/cache; a test must never be answered by an earlier one's). The cache makes
    its folder when it first writes: a name is enough (no folder made for every test)."""
    monkeypatch.setenv("CHECKSPEC_CACHE_DIR", str(_verdict_caches / str(next(_NEXT))))
