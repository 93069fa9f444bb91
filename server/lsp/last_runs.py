"""The last run of each scenario the editor ran, for results in place, the transcript
hover, lenses and `checkspec.showLastRun`.

Kept by document URI and scenario index with the scenario's text at run time
(analysis/last_run.py decides what is still current); clients are asked to refresh their
inlay hints and code lenses when results arrive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checkspec.engine.spec.lines import split_lines

if TYPE_CHECKING:
    from checkspec.engine.spec.document import Document
    from checkspec.engine.spec.scenario_analysis import ScenarioEntry

    from ..analysis.last_run import LastRun
    from .client import Client
    from .documents import OpenDocument

_MAX_DOCUMENTS = 200  # the oldest are forgotten past this


class LastRuns:
    def __init__(self) -> None:
        self._runs: dict[str, dict[int, LastRun]] = {}

    def record(
        self,
        uri: str,
        text: str,
        entry: ScenarioEntry,
        summary: dict,
        outputs: tuple[Any, ...] | None = None,
    ) -> None:
        # Deferred: the analysis loads with the first document (start-up time).
        from ..analysis.last_run import LastRun, scenario_text

        runs = self._runs.pop(uri, {})
        self._runs[uri] = runs  # most recently used last
        runs[entry.index] = LastRun(scenario_text(entry, split_lines(text)), summary, outputs)
        while len(self._runs) > _MAX_DOCUMENTS:
            del self._runs[next(iter(self._runs))]

    def of(self, uri: str) -> dict[int, LastRun]:
        return self._runs.get(uri, {})

    def current(self, doc: OpenDocument, document: Document, index: int) -> LastRun | None:
        # Deferred: the analysis loads with the first document (start-up time).
        from ..analysis.last_run import run_of

        return run_of(document, doc.text, self.of(doc.uri), index)


def refresh_views(ls: Client) -> None:
    """Ask the client to fetch inlay hints and lenses again (when it can be asked)."""
    workspace = ls.client_capabilities.workspace
    if workspace is None:
        return
    if workspace.inlay_hint is not None and workspace.inlay_hint.refresh_support:
        ls.workspace_inlay_hint_refresh(None)
    if workspace.code_lens is not None and workspace.code_lens.refresh_support:
        ls.workspace_code_lens_refresh(None)
