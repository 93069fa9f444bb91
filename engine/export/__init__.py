"""The reference library's `export` module: the exports of a suite result.

They live with the results (core/junit_xml.py, core/hub_payload.py), whose
`SuiteResult.to_junit_xml` and `to_hub_format` call them; `export.junit` and
`export.hub` are names for those modules (reference_paths.py).
"""

from ..core.hub_payload import to_hub_format
from ..core.junit_xml import to_junit_xml

__all__ = ["to_hub_format", "to_junit_xml"]
