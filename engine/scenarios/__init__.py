"""Running many scenarios: Suite and ScenarioRunner."""

from .runner import ScenarioRunner, get_runner
from .suite import Suite

__all__ = ["ScenarioRunner", "Suite", "get_runner"]
