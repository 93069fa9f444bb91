"""`checkspec calibrate [selectors]`: how far each LLM judge agrees with the labels.

Runs only the checks labelled `expect: pass | fail`, on the recorded answers (the target
is never called), in worker processes (engine/calibrate). Exit codes (docs/outcomes.md):
0 every label judged (and every bar met), 1 a judge below `--min-agreement` /
`--min-kappa`, or a label not judged (an error, the budget) unless `--allow-not-judged`,
2 invalid input or usage, 5 nothing checked (no labelled check in the selection, or,
with `--allow-not-judged`, a judge that judged no label).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..runs.project import Project

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
EXIT_NOTHING_CHECKED = 5  # as a run's (engine/runs/outcome.py)


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}")
    return value


def _kappa(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not -1 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a kappa between -1 and 1, got {text!r}")
    return value


def _dollars(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected dollars, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 dollars, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {text!r}")
    return value


def add_parser(commands: Any) -> None:
    from ..calibrate import FORMATS
    from .selection_options import add_selection_options

    command = commands.add_parser(
        "calibrate",
        help="measure how far each LLM judge agrees with the checks labelled `expect:` "
        "(on recorded answers; the target is never called)",
    )
    command.add_argument("paths", nargs="*", default=["."], metavar="SELECTOR")
    add_selection_options(command)
    command.add_argument("--format", choices=FORMATS, default="text")
    command.add_argument("--output", "-o", metavar="FILE", help="write the calibration to FILE")
    command.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="MODEL",
        help="judge model (litellm name); twice or more compares the judges side by side",
    )
    command.add_argument(
        "--prompt",
        metavar="FILE",
        help="a second prompt for the labelled llm_judge checks (a Jinja2 file): judged "
        "side by side with their own prompt",
    )
    command.add_argument(
        "--repeat",
        type=_count,
        default=1,
        metavar="K",
        help="judge each label K times (the verdict cache bypassed for the repeats): "
        "self-consistency, and which verdicts flip",
    )
    command.add_argument(
        "--min-agreement",
        type=_share,
        metavar="X",
        help="exit 1 when a judge agrees with the labels less than this share (0..1)",
    )
    command.add_argument(
        "--min-kappa",
        type=_kappa,
        metavar="X",
        help="exit 1 when a judge's Cohen's kappa is below X",
    )
    command.add_argument(
        "--allow-not-judged",
        action="store_true",
        help="exit 0 even when some labels got no verdict (an error, the budget); a judge "
        "that judged none still fails",
    )
    command.add_argument(
        "--no-cache", action="store_true", help="neither use nor fill the verdict cache"
    )
    from ..catalog import SETTINGS_BY_NAME

    budget = SETTINGS_BY_NAME["max_cost"]  # the run's budget, as the catalog describes it
    assert budget.flag is not None
    command.add_argument(
        budget.flag, type=_dollars, metavar="USD", help=budget.description.replace("%", "%%")
    )
    command.add_argument(
        "--no-history",
        action="store_true",
        help="do not keep this calibration in .checkspec/history.db",
    )
    command.add_argument(
        "--executor",
        choices=("process", "inprocess"),
        default="process",
        help="where the judges run: worker processes, or this process (debugging)",
    )


def run(args: argparse.Namespace) -> int:
    import asyncio

    from ..calibrate.labels import labelled
    from ..calibrate.render import render
    from ..executor import WorkerStartError
    from ..executor.start import executor_for
    from ..runs.calibration import calibrate
    from ..spec.workspace import WorkspaceConflict
    from .progress import Progress
    from .project import open_project, selection_of
    from .selection import output_problem

    if args.output and (problem := output_problem(Path(args.output))):
        print(f"error: cannot write to {args.output}: {problem}", file=sys.stderr)
        return EXIT_INVALID
    try:
        project = open_project(args.paths)
    except WorkspaceConflict as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    workspace = project.workspace
    # First: a checkspec.yaml that cannot be used stops it as it stops `run`.
    settings = project.settings(cache=False if args.no_cache else None, max_cost=args.max_cost)
    documents, invalid = _documents(project, args.paths)
    if documents is None or invalid:
        print("error: fix the problems above to calibrate", file=sys.stderr)
        return EXIT_INVALID
    # The project's one evaluator of a selection; drafts too: a label is a label.
    chosen, refusals = project.select(selection_of(args, drafts_rule=False), documents)
    for refusal in refusals:
        print(f"error: {refusal}", file=sys.stderr)
    if refusals:
        return EXIT_INVALID
    todo = chosen.entries
    planned, disabled = labelled(todo, project.identity)
    if args.prompt:
        from ..calibrate.labels import with_prompt

        prompt = Path(args.prompt)
        if not prompt.is_file():
            print(f"error: --prompt {args.prompt}: no such file", file=sys.stderr)
            return EXIT_INVALID
        planned = [*planned, *with_prompt(planned, str(prompt.resolve()))]
    models: list[str | None] = list(dict.fromkeys(args.model)) or [None]
    calibration = None
    if planned:
        from ..runs.models import setting_problems

        # A judge model litellm cannot route stops the calibration before anything is sent.
        found = [
            p for m in models for p in setting_problems(settings, workspace, ["model"], model=m)
        ]
        if found:
            print("\n".join(found), file=sys.stderr)
            return EXIT_INVALID
        executor = executor_for(settings, args.executor, root=workspace.root)
        total = len(planned) * args.repeat * len(models)
        text_mode = args.format == "text" and not args.output

        async def main() -> Any:
            try:
                return await calibrate(
                    planned,
                    executor=executor,
                    settings=settings,
                    repeat=args.repeat,
                    models=models,
                    on_job=progress.advance,
                )
            finally:
                await executor.aclose()

        with Progress(total, enabled=text_mode and sys.stdout.isatty()) as progress:
            try:
                calibration = asyncio.run(main())
            except WorkerStartError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return EXIT_INVALID
    else:
        from ..calibrate.run import Calibration

        calibration = Calibration(judges=[], labels=[], repeat=args.repeat, models=models)
    calibration.disabled = disabled
    from ..llm.snapshot import redactor

    rendered = redactor().text(render(calibration, args.format))  # judges' errors echo keys
    if args.output:
        from .selection import write_output

        if problem := write_output(Path(args.output), rendered):
            print(f"error: {problem}", file=sys.stderr)
            return EXIT_INVALID
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(rendered)
    if planned and not args.no_history:
        from ..calibrate.keep import keep_calibration
        from ..history.calibrations import drop_lines

        for line in drop_lines(keep_calibration(calibration.to_json(), settings, workspace.root)):
            print(line, file=sys.stderr)
    return _verdict(calibration, args)


def _documents(project: Project, selectors: list[str]) -> tuple[list[Any] | None, bool]:
    """The documents the selectors name (the project's loading: the one selection
    language), their problems and the workspace's printed as `file:line:col: ...`; whether
    any is an error. None: a selector that names nothing (said on stderr)."""
    from ..spec.problems import Severity

    loaded = project.load(selectors)
    if loaded.refusal is not None:
        print(f"error: {loaded.refusal}", file=sys.stderr)
        return None, True
    invalid = bool(loaded.missing)
    for path in loaded.missing:
        print(f"{path}: error: no such file or folder", file=sys.stderr)
    documents = loaded.documents
    shown: list[tuple[str, Any]] = [
        (str(config), problem)
        for config, workspace in loaded.configs
        for problem in workspace.problems
    ]
    shown += [(d.path, problem) for d in documents for problem in d.all_problems]
    for path, problem in shown:
        print(problem.format(path), file=sys.stderr)
        invalid |= problem.severity is Severity.ERROR
    return documents, invalid


def _verdict(calibration: Any, args: argparse.Namespace) -> int:
    """The exit code: 1 when a judge is below a bar or a label got no verdict (unless
    `--allow-not-judged`), else 5 when nothing was judged, else 0. Why, on stdout with
    the text calibration (stderr when stdout carries JSON, markdown or HTML). The bars'
    numbers are compared to 9 decimals (a kappa of 0.4 computed as 0.39999... meets 0.4)."""
    stream = sys.stdout if args.format == "text" or args.output else sys.stderr
    if calibration.disabled:
        print(
            f"left out: {calibration.disabled} labelled check(s) disabled (enabled: false)",
            file=stream,
        )
    below: list[str] = []
    for judge in calibration.judges:
        matrix = judge.confusion
        if args.min_agreement is not None:
            agreement = matrix.agreement
            if agreement is None or round(agreement, 9) < args.min_agreement:
                shown = "-" if agreement is None else f"{agreement * 100:.1f}%"
                below.append(f"{judge.key}: agreement {shown} < {args.min_agreement * 100:.1f}%")
        if args.min_kappa is not None:
            kappa = matrix.kappa
            if kappa is None or round(kappa, 9) < args.min_kappa:
                shown = "undefined" if kappa is None else f"{kappa:.3f}"
                below.append(f"{judge.key}: kappa {shown} < {args.min_kappa:.3f}")
    for line in below:
        print(f"below the bar: {line}", file=sys.stderr)
    unjudged = [(judge, len(judge.errors)) for judge in calibration.judges if judge.errors]
    for judge, count in unjudged:
        print(
            f"not judged: {count} of {len(judge.judged)} label(s) by {judge.key}"
            + ("" if args.allow_not_judged else " (--allow-not-judged accepts that)"),
            file=stream,
        )
    if below or (unjudged and not args.allow_not_judged):
        return EXIT_FAILED
    idle = [judge.key for judge in calibration.judges if judge.confusion.n == 0]
    if not calibration.judges:
        print(
            "nothing checked: no labelled check in the selection "
            f"(`expect: pass | fail` labels one) (exit {EXIT_NOTHING_CHECKED})",
            file=stream,
        )
        return EXIT_NOTHING_CHECKED
    if idle:
        print(
            f"nothing checked: {', '.join(idle)} judged no label (exit {EXIT_NOTHING_CHECKED})",
            file=stream,
        )
        return EXIT_NOTHING_CHECKED
    return EXIT_OK


def add_label_parser(commands: Any) -> None:
    command = commands.add_parser(
        "label",
        help="write a person's label on a check (expect: pass | fail), keeping every other byte",
    )
    command.add_argument("place", metavar="FILE:LINE", help="the check's file and line (1-based)")
    command.add_argument(
        "label", choices=("pass", "fail"), help="what a person says of the verdict"
    )
    command.add_argument(
        "--from-run",
        metavar="RUN",
        help="the run whose verdict is labelled (a run id, last, last~N or a JSON report): "
        "its answers are recorded first when the scenario has none (the HTML report offers it)",
    )


def _answers_in(payload: dict[str, Any]) -> Any:
    """identity -> what the agent answered in each interaction of that run (None: the
    scenario is not in it, or it replayed recorded answers, so nothing is to be recorded)."""

    def answers(identity: str) -> list[Any] | None:
        for scenario in payload.get("scenarios") or []:
            if isinstance(scenario, dict) and scenario.get("id") == identity:
                trace = scenario.get("final_trace")
                turns = trace.get("interactions") if isinstance(trace, dict) else None
                if scenario.get("replayed"):
                    from ..curate.files import CurateError

                    raise CurateError(
                        f"{identity}: that run replayed the recorded answers: label it "
                        "without --from-run"
                    )
                if not isinstance(turns, list):
                    return None
                return [t.get("outputs") if isinstance(t, dict) else None for t in turns]
        return None

    return answers


def label(args: argparse.Namespace) -> int:
    """`checkspec label FILE:LINE pass|fail` (the HTML report offers it on a judged check):
    refused, writing nothing, when the label would be an error there (a check calling no
    model, an answer not recorded)."""
    from ..curate.commit import commit
    from ..curate.files import CurateError
    from ..curate.label import label_check
    from ..spec.document import analyze
    from ..spec.problems import Severity
    from .project import open_project

    where, _, line_text = args.place.rpartition(":")
    if not where or not line_text.isascii() or not line_text.isdigit() or int(line_text) < 1:
        print(f"error: {args.place}: expected FILE:LINE (a 1-based line)", file=sys.stderr)
        return EXIT_INVALID
    path = Path(where)
    project = open_project([path])  # the file's workspace, found once
    answers_of = None
    if args.from_run:
        from .history import resolve_runs

        runs = resolve_runs(args.from_run)
        if runs is None:
            return EXIT_INVALID
        answers_of = _answers_in(runs[0])
    try:
        root = project.root_for(path)
        change = label_check(path, int(line_text) - 1, args.label, answers_of, root)
    except CurateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    if change.new == change.old:
        print(f"{args.place}: already labelled {args.label}", file=sys.stderr)
        return EXIT_OK
    workspace = project.workspace
    before = analyze((change.old or b"").decode("utf-8"), str(path), workspace)
    after = analyze((change.new or b"").decode("utf-8"), str(path), workspace)
    known = {(p.code, p.message) for p in before.errors}
    new = [p for p in after.errors if (p.code, p.message) not in known]
    if new:
        for problem in new:
            if problem.severity is Severity.ERROR:
                print(problem.format(str(path)), file=sys.stderr)
        print("error: not labelled: the label would be an error there", file=sys.stderr)
        return EXIT_INVALID
    try:
        commit([change], project.write_root)
    except CurateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    print(f"{args.place}: labelled {args.label}", file=sys.stderr)
    return EXIT_OK
