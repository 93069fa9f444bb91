"""Exports of suite results: JUnit XML, and the Hub payload (SuiteResult.to_hub_format)."""

from .hub import to_hub_format
from .junit import to_junit_xml

__all__ = ["to_hub_format", "to_junit_xml"]
