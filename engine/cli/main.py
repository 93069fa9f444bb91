"""`checkspec`: run, validate, list checks, write schemas, start the language server.

Exit codes (docs/outcomes.md): 0 something checked and all passed / valid, 1 a scenario
failed or errored, 2 invalid input or usage, 5 nothing checked (engine/runs/outcome.py).
Problems go to stderr as `path:line:col: severity: message`.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from ..runs.outcome import LeftOut
    from ..runs.project import Loaded, Project
    from ..runs.report import RunReport
    from ..spec.document import Document
    from ..spec.problems import Range
    from ..spec.scenario_analysis import ScenarioEntry

# The engine is imported by the commands that use it, not here: `checkspec --version` and
# `--help` would otherwise load every check, model and template first (half a second).

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2
EXIT_INTERRUPTED = 130
# html: one self-contained page (engine/html), rendered from the JSON report.
REPORT_FORMATS = ("text", "json", "junit", "sarif", "html")


def _parse_shard(text: str) -> tuple[int, int]:
    from .selection import parse_shard  # json, tempfile...: loaded when --shard is given

    return parse_shard(text)


def tool_version() -> str:
    from ..version import VERSION

    return VERSION


class _Version(argparse.Action):
    """`--version`, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"checkspec {tool_version()}")
        parser.exit()


class _Intermixed(argparse.ArgumentParser):
    """A command's parser that takes its options anywhere among its positionals
    (`run FILE --query x FILE2`), as `parse_intermixed_args` does."""

    _inside = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._inside:
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        except TypeError:  # a parser of subcommands (`hub`): its subcommands intermix
            return super().parse_known_args(args, namespace)
        finally:
            self._inside = False


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `only`, just that command's options (main() knows the
    command from the first argument: building the others, and importing what their
    options come from, is a sixth of a `validate`'s start-up)."""

    def wanted(*names: str) -> bool:
        return only is None or only in names

    parser = argparse.ArgumentParser(
        prog="checkspec", description="Validate and run check specs for AI agents."
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Intermixed
    )

    if wanted("run"):
        run = commands.add_parser("run", help="run the scenarios of spec files or folders")
        # No path: the current folder, as pytest and ruff do (the workspace's suites).
        run.add_argument("paths", nargs="*", default=["."], metavar="PATH")
        run.add_argument("--format", choices=REPORT_FORMATS, default="text")
        run.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")
        from .selection_options import add_selection_options

        add_selection_options(run)
        run.add_argument(
            "--include-drafts",
            action="store_true",
            help="also run scenarios marked `status: draft` (e.g. generated, not yet reviewed)",
        )
        run.add_argument("--target", help="agent to call instead of the files' targets")
        _setting_options(run)
        run.add_argument(
            "--no-cache",
            action="store_true",
            help="neither use nor fill the verdict cache: every judge call goes to the provider",
        )
        run.add_argument(
            "--no-history",
            action="store_true",
            help="do not keep this run in .checkspec/history.db (the `history` setting)",
        )
        run.add_argument(
            "--repeat",
            type=_count(1),
            default=1,
            metavar="K",
            help="run each scenario K times (the verdict cache bypassed for the repeats); "
            "reports give pass rates, and a scenario whose verdict varies is flaky",
        )
        run.add_argument(
            "--min-pass-rate",
            type=_rate,
            default=1.0,
            metavar="R",
            help="with --repeat: the share of its runs (0..1) a scenario must pass (default 1)",
        )
        run.add_argument(
            "--dry-run",
            action="store_true",
            help="send nothing: print the model calls the run would make, their tokens and cost",
        )
        run.add_argument(
            "--no-rerun",
            action="store_true",
            help="a scenario whose worker process died is an ERROR, never run a second time "
            "(targets with side effects; the `rerun` setting)",
        )
        run.add_argument(
            "--shard",
            type=_parse_shard,
            metavar="K/N",
            help="run only shard K of N (stable: split a suite over N CI jobs, then merge)",
        )
        run.add_argument(
            "--last-failed",
            "--lf",
            action="store_true",
            help="run only the scenarios that failed or errored in the last run",
        )
        run.add_argument(
            "--executor",
            choices=("process", "inprocess", "ray"),
            default="process",
            help="where scenarios run: local worker processes, this process, or a Ray cluster",
        )
        run.add_argument(
            "--ray-address",
            metavar="ADDR",
            help="Ray cluster to join (host:port, ray://..., auto); default: a local Ray",
        )
        run.add_argument(
            "--record",
            action="store_true",
            help="write each interaction's live output into its file (outputs:, a row's output:)",
        )
        run.add_argument(
            "--fail-on-drift",
            action="store_true",
            help="exit 1 when a live output differs from the one the file recorded",
        )
        run.add_argument(
            "--watch",
            action="store_true",
            help="after the run, run changed files again (all of them when a .py module or "
            "checkspec.yaml changes) until Ctrl-C",
        )

    if wanted("merge"):
        merge = commands.add_parser(
            "merge", help="merge the JSON reports of shards into the report of the whole run"
        )
        merge.add_argument("reports", nargs="+", metavar="REPORT.json", type=Path)
        merge.add_argument("--format", choices=REPORT_FORMATS, default="text")
        merge.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE")

    if wanted("history", "compare"):
        from .history import add_parsers as add_history

        add_history(commands, wanted)

    if wanted("validate"):
        validate = commands.add_parser("validate", help="check spec files without running anything")
        validate.add_argument("paths", nargs="*", default=["."], metavar="PATH")
        from .selection_options import add_selection_options

        add_selection_options(validate)

    if wanted("list"):
        listing = commands.add_parser(
            "list", help="list check identifiers, or the scenarios or tags of spec files"
        )
        listing.add_argument("what", choices=("checks", "scenarios", "tags"))
        from .curate import add_list_options

        add_list_options(listing)

    if wanted(*EDIT_COMMANDS, "hub"):
        from .curate import add_edit_commands, add_hub_command

        add_edit_commands(commands)
        add_hub_command(commands)

    if wanted("schema"):
        schema = commands.add_parser("schema", help="write the JSON Schemas of the file kinds")
        schema.add_argument("--check", action="store_true", help="exit 1 if schemas/ is stale")
        schema.add_argument("--out", type=Path, help="folder to write to (default: schemas/)")

    if wanted("generate"):
        from .generate import add_parser as add_generate

        add_generate(commands)

    if wanted("report", "view"):
        from .view import add_parsers

        add_parsers(commands, wanted)

    if wanted("settings"):
        from .settings_cmd import add_parser as add_settings

        add_settings(commands, _setting_options)
    if wanted("init"):
        from .init_cmd import add_parser as add_init

        add_init(commands)

    if wanted("calibrate", "label"):
        from .calibrate_cmd import add_label_parser
        from .calibrate_cmd import add_parser as add_calibrate

        add_calibrate(commands)
        add_label_parser(commands)

    if wanted("traces"):
        from .traces import add_parser as add_traces

        add_traces(commands)

    if wanted("lsp"):
        lsp = commands.add_parser("lsp", help="start the language server on stdio")
        # Many LSP clients add --stdio to the command they start; stdio is the only transport.
        lsp.add_argument("--stdio", action="store_true", help="speak LSP over stdio (the default)")
    return parser


_SHORT = {"jobs": "-j"}


def _setting_options(command: argparse.ArgumentParser) -> None:
    """An option for each setting of the catalog that has a flag, with its help and
    default as the catalog gives them (the catalog module loads nothing else)."""
    from ..catalog import SETTINGS, cli_help

    for setting in SETTINGS:
        if setting.flag is None:
            continue
        names = [setting.flag, *([_SHORT[setting.name]] if setting.name in _SHORT else [])]
        if setting.type is int:
            least = int(setting.minimum or 0)
            command.add_argument(
                *names, type=_count(least), metavar="N", help=cli_help(setting.name)
            )
        elif setting.type is float:
            command.add_argument(
                *names,
                type=_positive(setting.unit),
                metavar=setting.unit.upper(),
                help=cli_help(setting.name),
            )
        elif setting.choices is not None:
            command.add_argument(*names, choices=setting.choices, help=cli_help(setting.name))
        else:
            metavar = setting.name.upper()
            command.add_argument(*names, metavar=metavar, help=cli_help(setting.name))


def _count(least: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value

    return parse


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, got {text}")
    return value


def _positive(unit: str) -> Callable[[str], float]:
    """A positive, finite number of `unit` (seconds, dollars: the catalog says which)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {unit}, got {text!r}") from None
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be a positive number of {unit}, got {text}")
        return value

    return parse


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        # `checkspec list ... | head -1`: the reader has what it wanted. End quietly with 0,
        # as git does; stdout goes to /dev/null so the interpreter's last flush is silent.
        with suppress(OSError, ValueError):  # ValueError: stdout is no file (in-process)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _main(argv: Sequence[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    args = _parser(given[0] if given and given[0] in COMMANDS else None).parse_args(argv)
    # A validate or a single run holds what it analyses until it exits: have the analysis
    # take it out of the collector's sight (gcpause.settle) rather than have the first
    # collections after it traverse it (~0.4 s of 4 for 8,000 scenarios). Not in watch
    # mode, where it would keep each round's garbage cycles alive for the session.
    hold = args.command == "validate" or (args.command == "run" and not args.watch)
    if hold:
        from ..core.gcpause import freeze_bulk

        freeze_bulk(True)
    try:
        handler = _HANDLERS[args.command]
        with _redacted_streams(args.command):
            code = handler(args)
        # Everything still alive is about to be freed by exiting: keep the interpreter's
        # final collections from traversing it (a big run leaves ~1M objects, ~2 s).
        gc.freeze()
        return code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SelectionRefused as refused:
        print(f"error: {refused}", file=sys.stderr)
        return EXIT_INVALID
    except Exception as exc:
        from ..settings import ConfigUnreadable  # here: only a refusal needs the settings
        from ..spec.workspace import WorkspaceConflict

        if isinstance(exc, WorkspaceConflict):  # a command's paths in two workspaces
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_INVALID
        if not isinstance(exc, ConfigUnreadable):
            raise
        # A checkspec.yaml that cannot be used stops every command that would use it,
        # before anything runs: never defaults in its place (docs/outcomes.md).
        for line in exc.lines(str(_relative(exc.path)) if exc.path else None):
            print(line, file=sys.stderr)
        return EXIT_INVALID
    finally:
        if hold:
            freeze_bulk(False)  # main() called in-process (tests) leaves the default


def _redacted_streams(command: str) -> AbstractContextManager[object]:
    """What a command prints, with every secret the process holds masked (its errors,
    warnings and reports); `lsp` talks its protocol on stdout and masks its own log."""
    if command == "lsp":
        return nullcontext()
    from ..core.redact import redacted_streams
    from ..llm.env_secrets import redactor  # not the whole snapshot: validate needs no run's

    redactor()  # the secrets' source registered (env_secrets.py) before the first write
    return redacted_streams()


# ---------------------------------------------------------------------------------


def _history(args: argparse.Namespace) -> int:
    from .history import history

    return history(args)


def _compare(args: argparse.Namespace) -> int:
    from .history import compare

    return compare(args)


def _generate(args: argparse.Namespace) -> int:
    from .generate import run

    return run(args)


def _load(
    project: Project, paths: Sequence[str], *, keep: bool = True
) -> tuple[list[Document], bool]:
    """Documents for the given paths; prints located problems; True when input is invalid.

    Without `keep` (validate, --dry-run) the runnable scenarios are made when asked for."""
    loaded = project.load(paths, keep=keep)
    if loaded.refusal is not None:  # one selection language: unknown -> exit 2
        raise SelectionRefused(loaded.refusal)
    invalid = _input_problems(loaded)
    for document in loaded.documents:
        invalid |= _print_problems(document.path, document.all_problems)
    return loaded.documents, invalid


def _input_problems(loaded: Loaded) -> bool:
    """Prints what is wrong outside the documents (missing paths, no spec file, the
    checkspec.yaml files'); True when any is an error."""
    invalid = False
    for path in loaded.missing:
        print(f"{path}: error: no such file or folder", file=sys.stderr)
        invalid = True
    if loaded.no_files:
        print(
            "error: no spec files found (*.scenario.yaml, *.suite.yaml, *.dataset.*)",
            file=sys.stderr,
        )
        invalid = True
    for config, workspace in loaded.configs:
        invalid |= _print_problems(str(_relative(config)), workspace.problems)
    return invalid


class SelectionRefused(Exception):
    """A selector names a file, name or index that does not exist (exit 2)."""


def _relative(path: Path) -> Path:
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def _print_problems(path: str, problems: Sequence[object], stream: TextIO | None = None) -> bool:
    from ..spec.problems import Severity

    stream = stream or sys.stderr
    has_error = False
    for problem in problems:
        print(problem.format(path), file=stream)  # type: ignore[attr-defined]
        has_error |= problem.severity is Severity.ERROR  # type: ignore[attr-defined]
    return has_error


@contextmanager
def _without_pydantic_plugins() -> Iterator[None]:
    """Validation builds a few models, and pydantic's first build looks for plugins in the
    entry points of every installed distribution: a quarter of `validate`'s start-up. No
    user code runs while validating, so no plugin (logfire...) has anything to observe;
    pydantic's own switch (PYDANTIC_DISABLE_PLUGINS) is set for the while, unless the user
    set it, and pydantic caches nothing when it is on."""
    if "PYDANTIC_DISABLE_PLUGINS" in os.environ:
        yield
        return
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
    stand_in = _plugin_loader_stand_in()
    try:
        yield
    finally:
        del os.environ["PYDANTIC_DISABLE_PLUGINS"]
        if stand_in is not None and sys.modules.get(_PLUGIN_LOADER) is stand_in:
            del sys.modules[_PLUGIN_LOADER]  # a later build imports the real loader


_PLUGIN_LOADER = "pydantic.plugin._loader"


def _plugin_loader_stand_in() -> ModuleType | None:
    """With the switch on, pydantic's plugin loader answers "no plugins" without looking;
    but importing it imports importlib.metadata (and email, socket...: an eighth of a
    `validate`'s start-up). While the switch is on, a stand-in that answers the same takes
    its place, unless the real one is loaded already."""
    if _PLUGIN_LOADER in sys.modules:
        return None
    stand_in = ModuleType(_PLUGIN_LOADER)
    vars(stand_in)["get_plugins"] = lambda: ()
    sys.modules[_PLUGIN_LOADER] = stand_in
    return stand_in


def _validate(args: argparse.Namespace) -> int:
    from ..core.gcpause import gc_paused

    with gc_paused():  # loading modules makes no garbage: collections would free nothing
        from ..spec.files import load_file  # noqa: F401 (with what the analysis needs)
        from .project import open_project

        project = open_project(args.paths)
    with _without_pydantic_plugins():  # nothing is run: only problems are wanted
        if args.tag or args.query or args.status:
            return _validate_chosen(project, args)
        documents, invalid = _load(project, args.paths, keep=False)
    count = sum(len(d.scenarios) for d in documents)
    if not invalid:
        print(f"{len(documents)} file(s), {count} scenario(s): valid", file=sys.stderr)
    return EXIT_INVALID if invalid else EXIT_OK


def _validate_chosen(project: Project, args: argparse.Namespace) -> int:
    """`validate --tag/--query/--status`: the scenarios the selection chooses (the one
    evaluator, as `run` chooses them, drafts and invalid ones included), with the
    problems in them and those outside every scenario (a file's own); a selection that
    chooses nothing is refused as `run` refuses it."""
    from dataclasses import replace

    from ..spec.problems import shown_problems
    from .project import selection_of

    loaded = project.load(args.paths, keep=False)
    if loaded.refusal is not None:
        raise SelectionRefused(loaded.refusal)
    selection = replace(selection_of(args, drafts_rule=False), runnable_only=False)
    chosen, refusals = project.select(selection, loaded.documents)
    if refusals:
        raise SelectionRefused(refusals[0])
    files = {id(d) for d, _ in chosen.entries}
    kept = {id(e) for _, e in chosen.entries}
    invalid = _input_problems(loaded)
    for document in loaded.documents:  # a file's own problems, chosen from or not
        others = sorted(e.node.range for e in document.scenarios if id(e) not in kept)
        # Chosen from every problem, then bounded (the bound's summary would otherwise
        # hide the chosen scenarios' problems behind those of others left out).
        mine = [p for p in document.every_problem() if not _within(p.range, others)]
        invalid |= _print_problems(document.path, shown_problems(mine))
    if not invalid:
        count = len(chosen.entries)
        print(f"{len(files)} file(s), {count} chosen scenario(s): valid", file=sys.stderr)
    return EXIT_INVALID if invalid else EXIT_OK


def _within(inner: Range, outers: Sequence[Range]) -> bool:
    """Whether `inner` lies in one of `outers` (scenarios: sorted, never overlapping, so
    only the last one starting at or before it can hold it)."""
    from bisect import bisect_right

    at = bisect_right(outers, inner.start, key=lambda outer: outer.start) - 1
    return at >= 0 and inner.end <= outers[at].end


def _run_or_watch(args: argparse.Namespace) -> int:
    if not args.watch:
        return _run(args)
    from .watch import watch

    return watch(args, _run)


def _run(args: argparse.Namespace) -> int:
    import asyncio

    from ..executor import WorkerPool, WorkerStartError
    from ..executor.ray_executor import RayExecutor, RayUnavailable
    from ..executor.start import executor_for
    from ..runs.models import model_problems
    from ..runs.session import RunSession
    from ..targets import describe_target_problem
    from .execute import run_session
    from .progress import Progress
    from .project import open_project
    from .selection import output_problem

    if args.target and (problem := describe_target_problem(args.target)):
        print(f"error: --target: {problem}", file=sys.stderr)
        return EXIT_INVALID
    if args.output and (problem := output_problem(Path(args.output))):
        print(f"error: cannot write the report to {args.output}: {problem}", file=sys.stderr)
        return EXIT_INVALID
    project = open_project(args.paths)
    workspace = project.workspace
    settings = project.settings(
        model=args.model,
        embedding_model=args.embedding_model,
        concurrency=args.concurrency,
        jobs=args.jobs,
        scenario_timeout=args.scenario_timeout,
        python=args.python,
        cache_dir=args.cache_dir,
        cache=False if args.no_cache else None,
        max_cost=args.max_cost,
        rerun=False if args.no_rerun else None,
        history=False if args.no_history else None,
        capture=args.capture,
    )
    from ..capture import capture_problem

    if problem := capture_problem(settings.capture, settings.python):
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_INVALID
    if args.dry_run:
        from .dry_run import print_plan

        # Each scenario made when planned, then let go (dry_run.planned).
        documents, invalid = _load(project, args.paths, keep=False)
        if invalid and not documents:
            return EXIT_INVALID
        chosen = _select(args, project, documents)
        if isinstance(chosen, int):
            return chosen
        code = print_plan(chosen[0], settings, args.format, args.output, args.repeat, project)
        if code == EXIT_OK and not chosen[0]:
            # A plan of nothing: the run it plans would check nothing (exit 5 too).
            from ..runs.outcome import EXIT_NOTHING_CHECKED

            stream = sys.stdout if args.format == "text" and not args.output else sys.stderr
            for line in chosen[2].lines():
                print(line, file=stream)
            print(
                f"nothing checked: no scenario to run (exit {EXIT_NOTHING_CHECKED})",
                file=stream,
            )
            return EXIT_NOTHING_CHECKED
        return code
    if settings.cache and settings.cache_dir:
        from ..llm.verdict_cache import repair

        # Here, where its warning is seen (a worker's stderr is kept for crash reports).
        if warning := repair(settings.cache_dir):
            print(warning, file=sys.stderr)
    with asyncio.Runner() as runner:
        executor = executor_for(
            settings, args.executor, ray_address=args.ray_address, root=workspace.root
        )
        try:
            if isinstance(executor, WorkerPool):
                # Python starts in a worker while this process parses the files; the run
                # starts the others it has scenarios for (a one-scenario run, one worker).
                runner.run(executor.warm(1))
            elif isinstance(executor, RayExecutor):
                executor.connect()
            documents, invalid = _load(project, args.paths)
            if invalid and not documents:
                # Nothing found (the errors say why): no "0 passed", no empty run kept.
                return EXIT_INVALID
            chosen = _select(args, project, documents)
            if isinstance(chosen, int):
                return chosen
            todo, selected, left_out = chosen
            # A model litellm cannot route stops the run before anything is sent.
            flags = {"model": args.model, "embedding_model": args.embedding_model}
            if problems := model_problems(todo, settings, workspace, **flags):
                print("\n".join(problems), file=sys.stderr)
                return EXIT_INVALID
            text_mode = args.format == "text" and not args.output
            with Progress(
                len(todo) * args.repeat, enabled=text_mode and sys.stdout.isatty()
            ) as progress:
                session = RunSession(
                    todo,
                    target=args.target,
                    settings=settings,
                    executor=executor,
                    repeat=args.repeat,
                    min_pass_rate=args.min_pass_rate,
                    include_drafts=args.include_drafts or args.status == "draft",
                    root=workspace.root,
                    project=project,
                )
                report = run_session(session, on_done=lambda run: progress.advance(), runner=runner)
        except (WorkerStartError, RayUnavailable) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_INVALID
        finally:
            runner.run(executor.aclose())
    report.shard = args.shard
    report.selected = selected
    code = _write(report, args.format, args.output, invalid)
    session.keep(report)  # the last-failed record and the history, as every front end
    for warning in session.warnings:
        print(warning, file=sys.stderr)
    drifted = _record(args, report, project)
    code = _checked(report, left_out, code, args)
    if drifted and args.fail_on_drift and code == EXIT_OK:
        return EXIT_FAILED
    return code


def _checked(report: RunReport, left_out: LeftOut, code: int, args: argparse.Namespace) -> int:
    """Say what the run left out or did not check; a run that would pass having checked
    nothing exits 5 instead (runs/outcome.py, docs/outcomes.md). The lines go to stdout
    unless stdout carries a report for a program (json, junit, sarif, html)."""
    from ..runs.outcome import (
        EXIT_NOTHING_CHECKED,
        nothing_checked,
        nothing_checked_line,
        verdict_lines,
    )

    stream = sys.stdout if args.format == "text" or args.output else sys.stderr
    for line in verdict_lines(report, left_out):
        print(line, file=stream)
    if code != EXIT_OK or not nothing_checked(report):
        return code
    if args.shard and not report.runs and report.selected:
        # One job of a matrix: a small suite leaves some shards empty. The whole run is
        # judged where the shards come together (`checkspec merge` exits 5 on nothing).
        index, count = args.shard
        print(
            f"shard {index}/{count} holds none of the {report.selected} selected "
            "scenario(s): `checkspec merge` of the shards' reports judges the whole run",
            file=stream,
        )
        return code
    print(nothing_checked_line(report), file=stream)
    return EXIT_NOTHING_CHECKED


def _record(args: argparse.Namespace, report: RunReport, project: Project) -> bool:
    """--record writes the live outputs; drift from recorded ones is told. Drifted?"""
    from ..curate.record import Ran, drift_text, record

    runs = [
        Ran(
            Path(r.path),
            r.identity,
            [i.outputs for i in r.result.final_trace.interactions],
            not r.result.replayed,
        )
        for r in report.runs
        if r.ending != "cancelled"
    ]
    if not any(ran.live for ran in runs):
        return False
    done = record(runs, write=args.record)
    if args.record:  # why a scenario was not recorded: news only to one who asked to record
        for why in done.skipped:
            print(f"record: {why}", file=sys.stderr)
    if done.drifts:
        print(drift_text(done.drifts), file=sys.stderr)
        print(f"{len(done.drifts)} output(s) drifted from the recorded ones", file=sys.stderr)
    if args.record:
        from ..curate.commit import commit
        from ..curate.files import CurateError

        try:
            commit(done.changes, project.write_root)
        except CurateError as exc:
            print(f"error: --record: {exc}", file=sys.stderr)
        else:
            files = len(done.changes)
            print(
                f"recorded {done.recorded} scenario(s)' outputs in {files} file(s)", file=sys.stderr
            )
    return bool(done.drifts)


def _select(
    args: argparse.Namespace, project: Project, documents: list[Document]
) -> tuple[list[tuple[Document, ScenarioEntry]], int, LeftOut] | int:
    """The scenarios a run takes (the project's one evaluator of a selection), how many
    were selected before --last-failed and --shard, and which were left out and why
    (runs/outcome.py); or the exit code of a selection that cannot be."""
    from .project import selection_of

    chosen, refusals = project.select(selection_of(args), documents)
    for refusal in refusals:
        print(f"error: {refusal}", file=sys.stderr)
    if refusals:
        return EXIT_INVALID
    for note in chosen.notes:
        print(note, file=sys.stderr)
    assert chosen.left_out is not None
    return chosen.entries, chosen.selected, chosen.left_out


def _merge(args: argparse.Namespace) -> int:
    from .merge import MergeError, merge_reports
    from .selection import output_problem

    if args.output and (problem := output_problem(Path(args.output))):
        print(f"error: cannot write the report to {args.output}: {problem}", file=sys.stderr)
        return EXIT_INVALID
    try:
        report = merge_reports(args.reports)
    except MergeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    code = _write(report, args.format, args.output, invalid=False)
    from ..runs.outcome import EXIT_NOTHING_CHECKED, nothing_checked, nothing_checked_line

    if code == EXIT_OK and nothing_checked(report):  # the shards together checked nothing
        stream = sys.stdout if args.format == "text" or args.output else sys.stderr
        print(nothing_checked_line(report), file=stream)
        return EXIT_NOTHING_CHECKED
    return code


def _write(report: RunReport, fmt: str, output: str | None, invalid: bool) -> int:
    """Render and write the report; the exit code it means."""
    from ..llm.snapshot import redactor
    from ..runs.text_report import summary_line

    redact = redactor().text
    rendered = redact(_render(report, fmt))  # every format, stdout or -o (core/redact.py)
    if output:
        from .selection import write_output

        if problem := write_output(Path(output), rendered):  # checked before the run too
            sys.stdout.write(rendered)
            print(f"error: {problem}", file=sys.stderr)
            return EXIT_INVALID
        print(summary_line(report), file=sys.stderr)
    else:
        sys.stdout.write(rendered)
    if report.interrupted:  # 130 (Ctrl-C), 143 (SIGTERM), 129 (SIGHUP)
        return 128 + report.signal if report.signal else EXIT_INTERRUPTED
    if invalid:
        return EXIT_INVALID
    failed = any(r.result.failed or r.result.errored for r in report.runs)
    return EXIT_FAILED if failed else EXIT_OK


def _render(report: RunReport, fmt: str) -> str:
    from ..runs.text_report import summary_line, text_lines
    from .reports import to_json, to_junit, to_sarif

    if fmt == "text":
        from ..core.safe_text import terminal  # names, messages, outputs: no escapes

        lines = text_lines(report)  # a long message (a provider's error) in full once
        return terminal("\n".join([*lines, summary_line(report)])) + "\n"
    if fmt == "json":
        return to_json(report) + "\n"
    if fmt == "junit":
        return to_junit(report)
    if fmt == "html":
        from ..history.payload import build_payload
        from ..html import render_report

        return render_report(build_payload(report))
    return to_sarif(report, tool_version()) + "\n"


EDIT_COMMANDS = ("tag", "checks", "status", "move", "delete", "comment")


def _curate(args: argparse.Namespace) -> int:
    from .curate import edit

    return edit(args)


def _hub(args: argparse.Namespace) -> int:
    from .curate import hub

    return hub(args)


def _list(args: argparse.Namespace) -> int:
    from .curate import dispatch_list

    listed = dispatch_list(args, ())
    if listed is not None:
        return listed
    from ..core.check import Check
    from .project import open_project

    registry = Check.registry()
    width = max(len(kind) for kind in registry)
    for kind, cls in registry.items():
        doc = (cls.__doc__ or "").strip().splitlines()
        print(f"{kind:<{width}}  {doc[0] if doc else ''}")
    workspace = open_project().workspace
    for identifier, custom in workspace.custom_checks.items():
        about = custom.description or custom.name or f"custom {custom.base_kind}"
        print(f"{identifier:<{width}}  {about} (custom, {custom.base_kind})")
    return EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from ..schema_gen import stale, write_all

    folder = args.out or _default_schema_folder()
    if args.check:
        outdated = stale(folder)
        for name in outdated:
            print(f"{folder / name}: out of date; run `checkspec schema`", file=sys.stderr)
        return EXIT_FAILED if outdated else EXIT_OK
    for path in write_all(folder):
        print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK


def _default_schema_folder() -> Path:
    """The repository's schemas/ when run from a checkout, else ./schemas."""
    here = Path(__file__).resolve().parents[2] / "schemas"
    return here if (here.parent / "pyproject.toml").is_file() else Path("schemas")


# Commands other parts of checkspec provide (the language server), found by their entry
# point: the engine never imports the server (tests/engine/test_layers.py).
COMMANDS_GROUP = "checkspec.commands"


def _lsp(args: argparse.Namespace) -> int:
    from importlib.metadata import entry_points

    found = list(entry_points(group=COMMANDS_GROUP, name="lsp"))
    if not found:
        print("error: the language server is not installed with this checkspec", file=sys.stderr)
        return EXIT_INVALID
    serve = found[0].load()
    serve()
    return EXIT_OK


def _report(args: argparse.Namespace) -> int:
    from .view import report

    return report(args)


def _init(args: argparse.Namespace) -> int:
    from .init_cmd import run

    return run(args)


def _view(args: argparse.Namespace) -> int:
    from .view import view

    return view(args)


def _settings(args: argparse.Namespace) -> int:
    from .settings_cmd import run

    return run(args)


def _calibrate(args: argparse.Namespace) -> int:
    from .calibrate_cmd import run

    return run(args)


def _label(args: argparse.Namespace) -> int:
    from .calibrate_cmd import label

    return label(args)


def _traces(args: argparse.Namespace) -> int:
    from .traces import run

    return run(args)


# Each command and the function that carries it out.
_HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "run": _run_or_watch,
    "merge": _merge,
    "validate": _validate,
    "list": _list,
    **dict.fromkeys(EDIT_COMMANDS, _curate),
    "hub": _hub,
    "schema": _schema,
    "lsp": _lsp,
    "generate": _generate,
    "history": _history,
    "compare": _compare,
    "report": _report,
    "view": _view,
    "settings": _settings,
    "init": _init,
    "calibrate": _calibrate,
    "label": _label,
    "traces": _traces,
}
COMMANDS = frozenset(_HANDLERS)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
