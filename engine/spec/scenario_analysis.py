"""A scenario's analysis: one scenario (or dataset record) into its located entry.

A `ScenarioEntry` holds the runnable scenario (or how to rebuild it), its problems and
every check's place (`CheckEntry`), kept in read coordinates and moved with the nodes'
Shift. Entries are cached by a digest of their text; an `EntryReader` analyses one
scenario of a suite or dataset once the file's own fields are read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache, partial
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..catalog import SCHEMA_KEY
from ..core.check import Check
from ..core.construct import construct
from ..core.input_generator import InputGenerator
from ..core.sentinel import MISSING
from ..interactions import ChatInteract, Interact, InteractionSpec
from ..scenarios.scenario import Scenario, Step
from .cancel import checkpoint
from .check_analysis import Context, analyze_check, check_problems, label_removal, text_of
from .fields import (
    as_list,
    as_string,
    has_errors,
    is_mapping,
    keys_of,
    tags_of,
    target_of,
    unknown_keys,
)
from .lines import LineIndex
from .locate import problems_from_validation, start_of, warning
from .problems import Problem, Range, moved, moved_problem
from .replay_paths import replay_path_problems
from .tree import Node

if TYPE_CHECKING:
    from .schema_checks import SchemaCheck  # a dataset's (document.py makes them)

_SCENARIO_KEYS = keys_of(Scenario)
_STEP_KEYS = keys_of(Step)


@cache
def _dataset_keys() -> tuple[frozenset[str], frozenset[str]]:
    """The keys of a dataset's scenario and of its interactions: their models load with the
    first dataset (validating a scenario file loads no dataset model)."""
    from .datasets import DatasetInteraction, DatasetScenario

    return keys_of(DatasetScenario), keys_of(DatasetInteraction)


@dataclass
class CheckEntry:
    """A top-level check of a step, where it is written.

    Ranges found while analysing are kept as they were then (`read_head`, with the line
    shift of the scenario's nodes at that time in `base`) and moved with the nodes: an
    edit above the scenario moves it without analysing it again.
    """

    step: int
    index: int
    kind: str
    node: Node
    read_head: Range
    base: int = 0

    @property
    def head(self) -> Range:
        """The `kind:` / `identifier:` value: where results are shown."""
        lines = self.node._cell.lines - self.base
        return moved(self.read_head, lines) if lines else self.read_head


@dataclass
class ScenarioEntry:
    """One scenario of a file: its runnable form (None when invalid) and its checks.

    Like CheckEntry, its problems are kept as found and moved with its nodes on reading.
    """

    index: int
    name: str
    node: Node
    built: Scenario | None = None  # see `scenario`
    checks: list[CheckEntry] = field(default_factory=list)
    read_problems: list[Problem] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    base: int = 0
    # Whether the name was made from the index (`scenario 3`): moving it re-analyses it.
    named_by_index: bool = False
    # Makes the runnable form when it is first asked for (an analysis without `keep`).
    rebuild: Callable[[], Scenario | None] | None = field(default=None, repr=False, compare=False)

    @property
    def scenario(self) -> Scenario | None:
        """The runnable scenario, None when the scenario has errors."""
        if self.built is None and self.rebuild is not None:
            self.built, self.rebuild = self.rebuild(), None
        return self.built

    @scenario.setter
    def scenario(self, scenario: Scenario | None) -> None:
        self.built, self.rebuild = scenario, None

    @property
    def runnable(self) -> bool:
        """Whether it has a runnable form (`scenario` is not None), without making it."""
        return self.built is not None or self.rebuild is not None

    @property
    def problems(self) -> list[Problem]:
        if not self.read_problems:
            return self.read_problems
        lines = self.node._cell.lines - self.base
        if not lines:
            return self.read_problems
        return [moved_problem(p, lines) for p in self.read_problems]

    @problems.setter
    def problems(self, problems: list[Problem]) -> None:
        self.read_problems, self.base = problems, self.node._cell.lines

    @property
    def range(self) -> Range:
        return self.node.range

    @property
    def head(self) -> Range:
        name = self.node.get("name") if self.node.kind == "mapping" else None
        return name.range if name is not None else start_of(self.node)

    def check_at(self, step: int, index: int) -> CheckEntry | None:
        for entry in self.checks:
            if entry.step == step and entry.index == index:
                return entry
        return None


_CACHE: dict[tuple[Any, ...], ScenarioEntry] = {}
_CACHE_LIMIT = 20_000


def scenario_entry(
    node: Node, ctx: Context, index: int, *, file_level: bool = False
) -> ScenarioEntry:
    """One scenario, cached by its text (and the context it depends on).

    Not when it holds an alias: its values then come from an anchor elsewhere, which may
    have changed while its own text did not.
    """
    if node._cell.aliased:
        return _analyze_scenario(node, ctx, index, file_level)
    text = text_of(node, ctx).encode("utf-8", "surrogatepass")
    name = node.value.get("name") if node.kind == "mapping" else None
    named = isinstance(name, str) and bool(name)
    # A scenario without a name is named after its place, which is then part of the key.
    # The text is kept as a digest: the cache must not hold a second copy of every file.
    digest = hashlib.blake2b(text, digest_size=16).digest()
    # Whether the runnable form is kept is part of the key: a run's analysis never gets a
    # problems-only entry of the same text (nor the editor a run's, with its models).
    key = (digest, node._sc, ctx.fingerprint, ctx.keep, file_level, None if named else index)
    cached = _CACHE.get(key)
    if cached is not None:
        entry = _shifted(cached, node, index)
    else:
        entry = _analyze_scenario(node, ctx, index, file_level)
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
    # The newest copy is kept, so the cache never holds on to the nodes of an older text.
    _CACHE[key] = entry
    return entry


def _analyze_scenario(
    node: Node, ctx: Context, index: int, file_level: bool, keep: bool = False
) -> ScenarioEntry:
    problems: list[Problem] = []
    name_node = node.get("name") if node.kind == "mapping" else None
    fallback = f"scenario {index + 1}"
    entry = ScenarioEntry(index=index, name=fallback, node=node, named_by_index=True)
    if not is_mapping(node, "a scenario", problems):
        entry.problems = problems
        return entry
    allowed = _SCENARIO_KEYS | {SCHEMA_KEY} if file_level else _SCENARIO_KEYS
    problems.extend(unknown_keys(node, allowed, "a scenario"))
    name = as_string(name_node, "name", problems)
    if name is None and name_node is None:
        problems.append(Problem("missing-parameter", "a scenario needs a 'name'", start_of(node)))
    entry.name = name or fallback
    entry.named_by_index = not name
    target = target_of(node.get("target"), problems) or ctx.target
    entry.tags = [*ctx.tags, *tags_of(node.get("tags"), problems)]
    description = as_string(node.get("description"), "description", problems)
    annotations = node.get("annotations")
    if annotations is not None and annotations.kind != "mapping":
        problems.append(
            Problem("invalid-value", "annotations must be a mapping", annotations.range)
        )
    steps: list[Step] = []
    steps_node = node.get("steps")
    if steps_node is None:
        problems.append(
            warning("empty-scenario", "this scenario has no 'steps': it checks nothing", entry.head)
        )
    build = keep or ctx.keep
    # Selector paths of the checks read back by text (`check_problems`), by node id.
    known: dict[int, tuple[str, ...]] | None = None if ctx.dataset else {}
    recorded = True  # every interaction so far has a recorded answer (labels need one)
    for step_index, step_node in enumerate(as_list(steps_node, "steps", problems)):
        step = _step(step_node, step_index, ctx, entry, problems, build, known)
        if step is not None:
            steps.append(step)
        if step_node.kind == "mapping":
            recorded = recorded and _step_recorded(step_node)
            problems.extend(_unrecorded_labels(step_node.get("checks"), recorded, "outputs", ctx))
    problems.extend(replay_path_problems(node, target, known=known.get if known else None))
    entry.problems = problems
    if not has_errors(problems) and not build:
        ctx = ctx.without_lines()  # the rebuild must not keep this text alive
        entry.rebuild = partial(_rebuilt_scenario, node, ctx, index, file_level)
    elif not has_errors(problems):
        entry.scenario = Scenario.model_construct(
            name=entry.name,
            description=description,
            target=target,
            tags=entry.tags,
            annotations=dict(annotations.value) if annotations and annotations.value else {},
            steps=steps,
        )
    return entry


def _step_recorded(step: Node) -> bool:
    """Whether every interaction of a step has a recorded answer (`outputs:`) and a fixed
    input (not a simulated user): what a calibration replays without the target."""
    interacts = step.get("interacts")
    if interacts is None:
        return True
    items = interacts.items if interacts.kind == "sequence" else [interacts]
    for item in items:
        if item.kind != "mapping" or item.get("outputs") is None:
            return False
        inputs = item.value.get("inputs")
        if isinstance(inputs, dict) and InputGenerator.kind_class(inputs.get("kind")) is not None:
            return False
    return True


def _unrecorded_labels(
    checks: Node | None, recorded: bool, key: str, ctx: Context
) -> list[Problem]:
    """`expect:` on a check whose trace has no recorded answer: nothing to label."""
    if recorded or checks is None or checks.kind != "sequence":
        return []
    found = []
    for check in checks.items:
        label = check.key_node("expect") if check.kind == "mapping" else None
        if label is not None:
            fix = label_removal(check, ctx.lines)
            found.append(
                Problem(
                    "label-without-recording",
                    f"expect: labels the verdict on a recorded answer, but an interaction up to "
                    f"here has no recorded '{key}' (`checkspec run --record` writes them)",
                    label.range,
                    fix=fix,
                    fix_title="Remove the label" if fix else None,
                )
            )
    return found


def _step(
    node: Node,
    step_index: int,
    ctx: Context,
    entry: ScenarioEntry,
    problems: list[Problem],
    build: bool,
    known: dict[int, tuple[str, ...]] | None,
) -> Step | None:
    if not is_mapping(node, "a step", problems):
        return None
    problems.extend(unknown_keys(node, _STEP_KEYS, "a step"))
    interacts: list[InteractionSpec] = []
    for item in as_list(node.get("interacts"), "interacts", problems):
        try:
            interacts.append(InteractionSpec.model_validate(item.value))
        except ValidationError as exc:
            problems.extend(
                problems_from_validation(
                    exc, item, head=start_of(item), model=Interact, what="interaction"
                )
            )
    checks = _step_checks(node.get("checks"), step_index, ctx, entry, problems, build, known)
    if not build:
        return None  # only the problems are wanted: the scenario is rebuilt on demand
    return Step.model_construct(interacts=interacts, checks=checks)


def _step_checks(
    node: Node | None,
    step_index: int,
    ctx: Context,
    entry: ScenarioEntry,
    problems: list[Problem],
    build: bool,
    known: dict[int, tuple[str, ...]] | None = None,
) -> list[Check]:
    """The valid checks of one step; every check, valid or not, is recorded with its place.

    Without `build` only their problems are wanted, and those are reused by check text,
    with the paths of their selectors (put in `known`, if given).
    """
    checks: list[Check] = []
    for check_index, check_node in enumerate(as_list(node, "checks", problems)):
        if build:
            check, found, kind, head = analyze_check(check_node, ctx)
        else:
            check = None  # not kept: only the problems are wanted
            found, kind, head, paths = check_problems(check_node, ctx)
            if known is not None:
                known[id(check_node)] = paths
        problems.extend(found)
        entry.checks.append(
            CheckEntry(step_index, check_index, kind, check_node, head, check_node._cell.lines)
        )
        if check is not None:
            checks.append(check)
    return checks


def _rebuilt_scenario(node: Node, ctx: Context, index: int, file_level: bool) -> Scenario | None:
    return _analyze_scenario(node, ctx, index, file_level, keep=True).built


def _rebuilt_record(node: Node, ctx: Context, index: int, dataset_name: str) -> Scenario | None:
    return _record(node, ctx, index, Schemas(None, None), dataset_name, keep=True).built


def _shifted(entry: ScenarioEntry, node: Node, index: int) -> ScenarioEntry:
    """A cached entry, given the nodes of where the same text now sits."""
    delta = node.line - entry.node.line
    base = node._cell.lines
    fresh = _locate_checks(node)
    checks = [
        CheckEntry(
            c.step,
            c.index,
            c.kind,
            fresh.get((c.step, c.index), c.node),
            moved(c.head, delta),
            base,
        )
        for c in entry.checks
    ]
    problems = [moved_problem(p, delta) for p in entry.problems]
    rebuild = entry.rebuild
    if isinstance(rebuild, partial):  # from these nodes, not the cached ones
        rebuild = partial(rebuild.func, node, *rebuild.args[1:])
    return replace(
        entry,
        index=index,
        node=node,
        checks=checks,
        read_problems=problems,
        base=base,
        rebuild=rebuild,
    )


def _locate_checks(node: Node) -> dict[tuple[int, int], Node]:
    found: dict[tuple[int, int], Node] = {}
    steps = node.get("steps") if node.kind == "mapping" else None
    for s, step in enumerate(steps.items if steps is not None and steps.kind == "sequence" else []):
        checks = step.get("checks") if step.kind == "mapping" else None
        if checks is not None and checks.kind == "sequence":
            for c, check in enumerate(checks.items):
                found[(s, c)] = check
    return found


@dataclass(frozen=True)
class EntryReader:
    """How to analyse one scenario of a suite or dataset, the file's own fields read."""

    ctx: Context
    schemas: Schemas | None = None  # datasets
    dataset_name: str = ""

    def __call__(self, node: Node, index: int, lines: LineIndex) -> ScenarioEntry:
        checkpoint()  # the language server may stop a superseded analysis here (cancel.py)
        ctx = self.ctx if lines is self.ctx.index else replace(self.ctx, index=lines)
        if self.schemas is None:
            return scenario_entry(node, ctx, index)
        return _record(node, ctx, index, self.schemas, self.dataset_name)

    @property
    def stopped(self) -> bool:
        """A schema stopped checking (it timed out): later scenarios depend on earlier ones."""
        schemas = self.schemas
        return schemas is not None and any(
            s is not None and s.stopped for s in (schemas.input, schemas.output)
        )


@dataclass
class Schemas:
    """A dataset's input and output schemas, each None when not checked."""

    input: SchemaCheck | None
    output: SchemaCheck | None


def _record(
    node: Node,
    ctx: Context,
    index: int,
    schemas: Schemas,
    dataset_name: str,
    keep: bool = False,
) -> ScenarioEntry:
    problems: list[Problem] = []
    entry = ScenarioEntry(
        index=index,
        name=f"{dataset_name} #{index + 1}",
        node=node,
        named_by_index=True,
    )
    if not is_mapping(node, "a dataset scenario", problems):
        entry.problems = problems
        return entry
    record_keys, interaction_keys = _dataset_keys()
    problems.extend(unknown_keys(node, record_keys, "a dataset scenario"))
    entry.tags = [*ctx.tags, *tags_of(node.get("tags"), problems)]
    interactions = node.get("interactions")
    if interactions is None:
        problems.append(
            Problem("missing-parameter", "a dataset scenario needs 'interactions'", start_of(node))
        )
    steps: list[Step] = []
    first_input: Any = None
    turns = as_list(interactions, "interactions", problems)
    if interactions is not None and interactions.kind == "sequence" and not turns:
        problems.append(
            Problem(
                "invalid-value",
                "a dataset scenario needs at least one interaction (it would check nothing)",
                interactions.range,
            )
        )
    build = keep or ctx.keep
    known: dict[int, tuple[str, ...]] = {}  # selector paths by check node id (as in scenarios)
    recorded = True  # every turn so far has a recorded output (labels need one)
    for step_index, item in enumerate(turns):
        if not is_mapping(item, "an interaction", problems):
            continue
        problems.extend(unknown_keys(item, interaction_keys, "an interaction"))
        input_node, output_node = item.get("input"), item.get("output")
        if input_node is None:
            problems.append(
                Problem("missing-parameter", "an interaction needs an 'input'", start_of(item))
            )
            continue
        first_input = first_input if first_input is not None else input_node.value
        if schemas.input is not None:
            problems.extend(schemas.input.check(input_node))
        if output_node is not None and schemas.output is not None:
            problems.extend(schemas.output.check(output_node))
        checks = _step_checks(item.get("checks"), step_index, ctx, entry, problems, build, known)
        recorded = recorded and output_node is not None and output_node.value is not None
        problems.extend(_unrecorded_labels(item.get("checks"), recorded, "output", ctx))
        outputs = output_node.value if output_node is not None else MISSING
        # construct(): model_construct looks up each default factory's signature per call,
        # a third of the time of a 100,000-row dataset.
        interact = construct(
            ChatInteract,
            {"kind": "interact", "inputs": input_node.value, "outputs": outputs, "metadata": {}},
            unset=("kind",),
        )
        steps.append(construct(Step, {"interacts": [interact], "checks": checks}))
    from .datasets import record_name

    explicit = node.value.get("name")
    fallback = entry.name
    entry.name = explicit if isinstance(explicit, str) else record_name(first_input, fallback)
    entry.named_by_index = entry.name == fallback
    schema = schemas.output.schema if schemas.output is not None else None
    problems.extend(
        replay_path_problems(
            node,
            ctx.target,
            dataset=True,
            output_schema=schema,
            known=known.get,
        )
    )
    entry.problems = problems
    if not has_errors(problems) and not (keep or ctx.keep):
        ctx = ctx.without_lines()
        entry.rebuild = partial(_rebuilt_record, node, ctx, index, dataset_name)
    elif not has_errors(problems):
        description = node.value.get("description")
        # A row's annotations are its trace's (DatasetScenario.annotations; the Hub's rows,
        # and what `traces import` keeps of what an agent did: annotations.captured).
        given = node.value.get("annotations")
        entry.scenario = Scenario.model_construct(
            name=entry.name,
            description=description if isinstance(description, str) else None,
            target=ctx.target,
            tags=entry.tags,
            annotations=dict(given) if isinstance(given, dict) else {},
            steps=steps,
            comments=[],  # given: model_construct inspects a default factory on each call
        )
        entry.scenario.__pydantic_fields_set__.discard("comments")  # as if not given
    return entry
