"""Exports of suite results: JUnit XML, and the Hub payload (SuiteResult.to_hub_format)."""

from .junit import to_junit_xml

__all__ = ["to_junit_xml"]
