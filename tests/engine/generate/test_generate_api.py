"""The Python API: the same generation, as the engine's Scenario objects."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.engine import Scenario
from checkspec.engine.generate import (
    agenerate_from_documents,
    agenerate_from_persona,
    alist_topics,
)
from checkspec.engine.generate.service import RequestError
from tests.support.generate_helpers import knowledge_base, model_fixture  # noqa: F401 (the fixture)
from tests.support.openai_stub import GenerationAnswers, OpenAIStub

Model = tuple[OpenAIStub, GenerationAnswers]


async def test_documents_give_draft_scenarios_with_their_checks(
    tmp_path: Path, model: Model
) -> None:
    kb = knowledge_base(tmp_path)
    scenarios = await agenerate_from_documents([kb], count=2, topics=["returns", "warranty"])
    assert len(scenarios) == 2
    for scenario in scenarios:
        assert isinstance(scenario, Scenario)
        assert scenario.status == "draft"
        (step,) = scenario.steps
        assert [c.kind for c in step.checks] == ["hub_correctness", "hub_groundedness"]
        assert scenario.annotations["generated"]["topic"] in ("returns", "warranty")
        assert any(t.startswith("topic:") for t in scenario.tags)


async def test_a_persona_gives_conformity_scenarios(tmp_path: Path, model: Model) -> None:
    scenarios = await agenerate_from_persona(preset="frustrated_customer", count=3, turns=2)
    assert len(scenarios) == 3
    assert all(len(s.steps) == 2 for s in scenarios)
    assert scenarios[0].steps[-1].checks[0].kind == "hub_conformity"


async def test_topics_and_bad_input(tmp_path: Path, model: Model) -> None:
    kb = knowledge_base(tmp_path)
    assert set(await alist_topics([kb])) == {"shipping", "returns", "warranty"}
    with pytest.raises(RequestError, match="unknown preset 'nobody'"):
        await agenerate_from_persona(preset="nobody")
    with pytest.raises(RequestError, match="--count must be between 1 and 500"):
        await agenerate_from_documents([kb], count=0)


async def test_simulate_gives_scenarios_whose_last_step_is_a_simulated_user(
    tmp_path: Path, model: Model
) -> None:
    """As `generate --turns 3 --simulate` writes them: the first user turn written, the
    rest played by a user_simulator when the scenario runs."""
    kb = knowledge_base(tmp_path)
    scenarios = await agenerate_from_documents([kb], count=2, turns=3, simulate=True)
    assert scenarios
    for scenario in scenarios:
        first, last = scenario.steps
        assert isinstance(first.interacts[0].inputs, str)
        assert type(last.interacts[0].inputs).__name__ == "UserSimulator"
        assert scenario.annotations["generated"]["simulated"] is True
    persona = await agenerate_from_persona(
        preset="frustrated_customer", count=1, turns=2, simulate=True
    )
    assert type(persona[0].steps[-1].interacts[0].inputs).__name__ == "UserSimulator"
    with pytest.raises(RequestError, match="--simulate needs --turns K"):
        await agenerate_from_persona(preset="frustrated_customer", simulate=True)
