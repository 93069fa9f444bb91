"""checkspec.engine: the check library (checks, scenarios, test cases, suites, runners).

A drop-in for giskard-checks 1.0.6's public API: every name of its `__all__` is here
with the same signatures, fields and defaults (docs/compatibility.md lists the few
deliberate differences). Importing it registers every built-in check. It never imports
litellm: LLM checks load it on their first call.
"""

from typing import Any

from . import builtin, judges
from .checks import (
    AllOf,
    AnyOf,
    Equals,
    FnCheck,
    GreaterEquals,
    GreaterThan,
    GreaterThanEquals,
    HubMetadata,
    JsonPathRule,
    JsonValid,
    LesserThan,
    LesserThanEquals,
    LessThan,
    LessThanEquals,
    Not,
    NotEquals,
    Readability,
    RegexMatching,
    RegoPolicy,
    StringMatching,
    from_fn,
)
from .core.check import Check, KindModel
from .core.exceptions import InputGenerationException, InteractionGenerationError
from .core.input_generator import InputGenerator
from .core.jsonpath import JSONPathStr, NoMatch, provided_or_resolve, resolve
from .core.result import (
    CheckResult,
    CheckStatus,
    GroupedSuiteResult,
    GroupStats,
    Metric,
    ScenarioResult,
    ScenarioStatus,
    SuiteResult,
    TestCaseError,
    TestCaseResult,
    TestCaseStatus,
)
from .core.run_sync import run_sync
from .core.sentinel import MISSING
from .core.trace import Interaction, Trace
from .core.types import Target
from .generators import BaseLLMGenerator, DatasetInputGenerator, LLMGenerator, UserSimulator
from .interactions import Interact, InteractionSpec, WithSpy
from .judges import *  # noqa: F403
from .judges import (
    AnswerRelevance,
    BaseJudge,
    BaseLLMCheck,
    Conformity,
    Contradiction,
    Groundedness,
    LLMChatJudge,
    LLMCheckResult,
    LLMJudge,
    SemanticSimilarity,
    SOMJudge,
    Toxicity,
    WithEmbeddingMixin,
    WithGeneratorMixin,
    WithJudgeMixin,
    get_default_embedding_model,
    get_default_generator,
    get_default_judge,
    set_default_embedding_model,
    set_default_generator,
    set_default_judge,
)
from .reference_paths import install as _install_reference_paths
from .scenario import Scenario, Step, run_scenarios
from .scenarios import ScenarioRunner, Suite
from .testcase import TestCase, TestCaseRunner, get_runner

_install_reference_paths()


def __getattr__(name: str) -> Any:
    # __version__ on first use: importlib.metadata is a slow import most runs never need.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("checkspec")
        except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
            return "0.0.0"
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MISSING",
    "AllOf",
    "AnswerRelevance",
    "AnyOf",
    "BaseJudge",
    "BaseLLMCheck",
    "BaseLLMGenerator",
    "Check",
    "CheckResult",
    "CheckStatus",
    "Conformity",
    "Contradiction",
    "DatasetInputGenerator",
    "Equals",
    "FnCheck",
    "GreaterEquals",
    "GreaterThan",
    "GreaterThanEquals",
    "Groundedness",
    "GroupStats",
    "GroupedSuiteResult",
    "HubMetadata",
    "InputGenerationException",
    "InputGenerator",
    "Interact",
    "Interaction",
    "InteractionGenerationError",
    "InteractionSpec",
    "JSONPathStr",
    "JsonPathRule",
    "JsonValid",
    "KindModel",
    "LLMChatJudge",
    "LLMCheckResult",
    "LLMGenerator",
    "LLMJudge",
    "LessThan",
    "LessThanEquals",
    "LesserThan",
    "LesserThanEquals",
    "Metric",
    "NoMatch",
    "Not",
    "NotEquals",
    "Readability",
    "RegexMatching",
    "RegoPolicy",
    "SOMJudge",
    "Scenario",
    "ScenarioResult",
    "ScenarioRunner",
    "ScenarioStatus",
    "SemanticSimilarity",
    "Step",
    "StringMatching",
    "Suite",
    "SuiteResult",
    "Target",
    "TestCase",
    "TestCaseError",
    "TestCaseResult",
    "TestCaseRunner",
    "TestCaseStatus",
    "Toxicity",
    "Trace",
    "UserSimulator",
    "WithEmbeddingMixin",
    "WithGeneratorMixin",
    "WithJudgeMixin",
    "WithSpy",
    "__version__",  # noqa: F405 - module __getattr__
    "builtin",
    "from_fn",
    "get_default_embedding_model",
    "get_default_generator",
    "get_default_judge",
    "get_runner",
    "judges",
    "provided_or_resolve",
    "resolve",
    "run_scenarios",
    "run_sync",
    "set_default_embedding_model",
    "set_default_generator",
    "set_default_judge",
]
