"""What user code sets through the reference API (`set_default_generator`...) is folded
into the settings snapshot when it is made (engine/llm/snapshot.py: CodeDefaults), and the
readers read the snapshot alone: a run's settings go over it, without a run it goes over
the environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from checkspec.engine.llm import endpoints, prompt_limits, snapshot, usage, verdict_cache
from checkspec.engine.llm.client import set_llm_client
from checkspec.engine.settings import Settings, use_settings


@pytest.fixture(autouse=True)
def _nothing_set(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for var in ("CHECKSPEC_MODEL", "CHECKSPEC_API_BASE", "CHECKSPEC_MAX_PROMPT_SIZE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(snapshot, "_code", snapshot.CodeDefaults())
    yield


def test_the_setters_show_in_the_snapshot_of_library_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHECKSPEC_MAX_PROMPT_SIZE", "7000")
    assert snapshot.effective().max_prompt_size == 7000  # the environment's
    endpoints.set_default_generator("openai/from-code")
    endpoints.set_default_embedding_model("openai/emb")
    prompt_limits.set_max_prompt_size(5000)
    verdict_cache.configure(tmp_path, max_mb=3.0)
    usage.set_prices({"openai/from-code": (0.5, 1.5)})
    set_llm_client("litellm")
    made = snapshot.effective()
    assert not made.in_run
    assert made.default_generator.model == "openai/from-code"
    assert made.default_embedding_model.model == "openai/emb"
    assert made.max_prompt_size == 5000  # over the environment's
    assert (made.cache_dir, made.cache_max_mb) == (str(tmp_path), 3.0)
    assert made.prices == (("openai/from-code", (0.5, 1.5)),)
    assert made.llm_client == "litellm"
    # The readers read it from there.
    assert endpoints.get_default_generator().model == "openai/from-code"
    assert prompt_limits.max_prompt_size() == 5000
    assert usage.price_of("openai/from-code", None) == (0.5, 1.5)


def test_a_runs_snapshot_holds_the_code_defaults_under_its_own_settings() -> None:
    endpoints.set_default_generator(endpoints.Generator(model="openai/code", temperature=0.5))
    prompt_limits.set_max_prompt_size(5000)
    with use_settings(Settings(model="openai/run", max_prompt_size=9000)):
        run = snapshot.current()
        assert run is not None and run.in_run
        assert run.default_generator.model == "openai/code"  # folded in when made
        assert run.max_prompt_size == 9000  # the run's own, not the code's
        judge = endpoints.get_default_generator()
        assert (judge.model, judge.temperature) == ("openai/run", 0.5)  # gaps from the code's
        # Set after the run's snapshot was made: that snapshot does not change.
        endpoints.set_default_generator("openai/later")
        assert snapshot.current() is run
        assert endpoints.get_default_generator().model == "openai/run"
    with use_settings(Settings()):  # no model of the run's: the code's
        assert endpoints.get_default_generator().model == "openai/later"
