"""checkspec.engine: the check library (checks, scenarios, test cases, runners).

Importing it registers every built-in check. It never imports litellm: LLM checks
load it on their first call.
"""

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
from .core.jsonpath import JSONPathStr, NoMatch, provided_or_resolve, resolve
from .core.result import (
    CheckResult,
    CheckStatus,
    Metric,
    ScenarioResult,
    ScenarioStatus,
    TestCaseError,
    TestCaseResult,
    TestCaseStatus,
)
from .core.sentinel import MISSING
from .core.trace import Interaction, Trace
from .interactions import Interact, InteractionSpec, WithSpy
from .judges import *  # noqa: F403
from .scenario import Scenario, Step, run_scenarios
from .testcase import TestCase, TestCaseRunner, get_runner

__all__ = [
    "MISSING",
    "AllOf",
    "AnyOf",
    "Check",
    "CheckResult",
    "CheckStatus",
    "Equals",
    "FnCheck",
    "GreaterEquals",
    "GreaterThan",
    "GreaterThanEquals",
    "HubMetadata",
    "Interact",
    "Interaction",
    "InteractionSpec",
    "JSONPathStr",
    "JsonPathRule",
    "JsonValid",
    "KindModel",
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
    "Scenario",
    "ScenarioResult",
    "ScenarioStatus",
    "Step",
    "StringMatching",
    "TestCase",
    "TestCaseError",
    "TestCaseResult",
    "TestCaseRunner",
    "TestCaseStatus",
    "Trace",
    "WithSpy",
    "from_fn",
    "get_runner",
    "provided_or_resolve",
    "resolve",
    "run_scenarios",
]
