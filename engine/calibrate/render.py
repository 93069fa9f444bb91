"""A calibration as text (the terminal), markdown (a pull-request comment), JSON, and the
self-contained HTML page (engine/html/page.py's, with its Content-Security-Policy; the
page's script, assets/calibration.js, puts every text in through textContent).

Every text from a file or a model goes through core/safe_text.py where it is shown.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.safe_text import markdown_cell, terminal
from ..core.usage import format_cost
from .metrics import Confusion
from .run import Calibration, Judge, Judged

REASON_SHOWN = 160  # characters of a judge's reason in text and markdown


def render(calibration: Calibration, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(calibration.to_json(), indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return markdown(calibration)
    if fmt == "html":
        return html(calibration)
    return text(calibration)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _short(value: str, limit: int = REASON_SHOWN) -> str:
    value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _columns(repeat: int) -> list[str]:
    head = ["judge", "n", "agreement", "kappa", "precision(fail)", "recall(fail)"]
    if repeat > 1:
        head.append(f"consistent({repeat})")
    return [*head, "errors", "cost"]


def _row(judge: Judge, repeat: int) -> list[str]:
    matrix = judge.confusion
    row = [
        judge.key,
        str(matrix.n),
        _pct(matrix.agreement),
        _num(matrix.kappa),
        _pct(matrix.precision),
        _pct(matrix.recall),
    ]
    if repeat > 1:
        row.append(_pct(judge.consistency.share))
    return [*row, str(len(judge.errors)), format_cost(judge.usage.known_cost)]


def _matrix_lines(matrix: Confusion) -> list[str]:
    return [
        "                 judge fail  judge pass",
        f"    label fail  {matrix.tp:>10}  {matrix.fn:>10}",
        f"    label pass  {matrix.fp:>10}  {matrix.tn:>10}",
    ]


def _said(judged: Judged) -> str:
    return f"labelled {judged.label.expect}, judge said {judged.verdict}"


def text(calibration: Calibration) -> str:
    lines: list[str] = []
    runs = f", {calibration.repeat} runs each" if calibration.repeat > 1 else ""
    lines.append(
        f"calibration {calibration.id}: {len(calibration.labels)} labelled check(s){runs}, "
        f"{len(calibration.judges)} judge(s)"
    )
    if not calibration.labels:
        lines.append("no labelled checks (a check's `expect: pass | fail` labels it)")
    rows = [_columns(calibration.repeat)] + [
        [terminal(c, one_line=True) for c in _row(j, calibration.repeat)]
        for j in calibration.judges
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    if calibration.judges:
        lines.append("")
        for row in rows:
            lines.append(
                "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            )
    for judge in calibration.judges:
        lines.append("")
        lines.append(terminal(judge.key, one_line=True) + "  (fail is the positive class)")
        lines.extend(_matrix_lines(judge.confusion))
        if judge.disagreements:
            lines.append(f"  disagreements ({len(judge.disagreements)}):")
            for j in judge.disagreements:
                lines.append(
                    f"    {terminal(j.label.where, one_line=True)}  {_said(j)}: "
                    f"{terminal(_short(j.reason), one_line=True)}"
                )
        if judge.errors:
            lines.append(f"  not judged ({len(judge.errors)}):")
            for j in judge.errors:
                lines.append(
                    f"    {terminal(j.label.where, one_line=True)}  {j.verdict}: "
                    f"{terminal(_short(j.reason), one_line=True)}"
                )
        if calibration.repeat > 1 and judge.consistency.flipped:
            lines.append(f"  verdicts that flip over {calibration.repeat} runs:")
            for i in judge.consistency.flipped:
                j = judge.judged[i]
                lines.append(
                    f"    {terminal(j.label.where, one_line=True)}  {' '.join(j.verdicts)}"
                )
    for group in calibration.side_by_side():
        lines.append("")
        names = " vs ".join(judge["judge"] for judge in group["judges"])
        lines.append(
            terminal(f"side by side on {group['labels']} shared label(s): {names}", one_line=True)
        )
        for judge in group["judges"]:
            lines.append(
                terminal(
                    f"  {judge['judge']}: agreement {_pct(judge['agreement'])}, "
                    f"kappa {_num(judge['kappa'])}, precision {_pct(judge['precision'])}, "
                    f"recall {_pct(judge['recall'])}",
                    one_line=True,
                )
            )
        for differ in group["differ"]:
            lines.append(
                terminal(
                    f"    {differ['where']}  labelled {differ['expect']}: "
                    + " / ".join(differ["verdicts"]),
                    one_line=True,
                )
            )
    lines.append("")
    lines.append(f"usage: {_spent(calibration)}")
    if calibration.interrupted:
        lines.append("interrupted: the calibration is of the labels judged so far")
    return "\n".join(lines) + "\n"


def markdown(calibration: Calibration) -> str:
    out: list[str] = [f"### Judge calibration `{calibration.id}`", ""]
    out.append(f"{len(calibration.labels)} labelled check(s); `fail` is the positive class.")
    out.append("")
    head = _columns(calibration.repeat)
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for judge in calibration.judges:
        out.append(
            "| " + " | ".join(markdown_cell(c) for c in _row(judge, calibration.repeat)) + " |"
        )
    for judge in calibration.judges:
        matrix = judge.confusion
        out += [
            "",
            f"**{markdown_cell(judge.key)}**",
            "",
            "| | judge fail | judge pass |",
            "|---|---|---|",
            f"| label fail | {matrix.tp} | {matrix.fn} |",
            f"| label pass | {matrix.fp} | {matrix.tn} |",
        ]
        if judge.disagreements:
            out += ["", "| where | label | judge | reason |", "|---|---|---|---|"]
            for j in judge.disagreements:
                out.append(
                    f"| {markdown_cell(j.label.where)} | {j.label.expect} | {j.verdict} | "
                    f"{markdown_cell(_short(j.reason))} |"
                )
    out += ["", f"Usage: {_spent(calibration)}"]
    return "\n".join(out) + "\n"


def html(calibration: Calibration) -> str:
    from ..html.page import page

    data: dict[str, Any] = calibration.to_json()
    data["calibration"]["cost"] = format_cost(calibration.usage.known_cost)
    data["calibration"]["spent"] = _spent(calibration)
    return page(
        "calibration",
        data,
        f"checkspec calibration {calibration.id}",
        ("calibration.js", "report.js"),
    )


def _spent(calibration: Calibration) -> str:
    """What the calibration's judges sent, as a run's summary says it (core/usage.py):
    `12 LLM requests (1 failed, 3 cached), 4,512 tokens, $0.0123`."""
    return calibration.usage.describe()
