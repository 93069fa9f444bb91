"""A dataset's input/output schema, checked against each recorded value: offline, bounded.

A `$ref` outside the schema is a located problem at that `$ref` (nothing is fetched); a
value whose check runs past the time limit (a pattern that backtracks catastrophically)
gives one problem at the schema's pattern, and the schema is not used for later values.
"""

from __future__ import annotations

from typing import Any

from ..core.json_schema import (
    SchemaTimeout,
    bounded_errors,
    offline_validator,
    quick_check,
    remote_refs,
    schema_problem,
)
from .problems import Problem, Range
from .tree import Node

# Longest the analysis may spend checking one value against a schema: it runs as you type.
SECONDS = 0.25


class SchemaCheck:
    """One schema of a dataset (`input_schema` or `output_schema`)."""

    def __init__(self, key: str, schema: Any, node: Node | None, doc_problems: list[Problem]):
        self.key = key
        self.what = key.removesuffix("_schema")
        self.schema = schema
        self.node = node  # None for the default chat schemas
        self._doc_problems = doc_problems
        self._validator: Any = None
        # Says yes, in plain Python, to most values the schema accepts (None: cannot tell).
        self._quick = quick_check(schema)
        self.stopped = False

    @classmethod
    def of(cls, root: Node, key: str, default: Any, problems: list[Problem]) -> SchemaCheck | None:
        """The dataset's schema under `key` (the default without one), None when unusable."""
        node = root.get(key)
        if node is None or node.value is None:
            return cls(key, default, None, problems)
        refs = remote_refs(node.value) if isinstance(node.value, dict) else []
        for path, ref in refs:
            at = node.find(path) or node
            message = (
                f"{key}: $ref {ref!r} points outside this schema: checkspec never fetches "
                "schemas (no network, no files); copy it under $defs and refer to it as "
                "'#/$defs/...'"
            )
            problems.append(Problem("remote-ref", message, at.range))
        if refs:
            return None
        why = schema_problem(node.value)
        if why:
            problems.append(Problem("invalid-schema", f"{key}: {why}", node.range))
            return None
        return cls(key, node.value, node, problems)

    def check(self, value: Node) -> list[Problem]:
        """Where `value` does not match the schema (nothing once the schema was stopped)."""
        if self.stopped:
            return []
        if self._quick is not None and self._quick(value.value):
            return []  # surely valid: the validator would find nothing
        if self._validator is None:
            self._validator = offline_validator(self.schema)
        try:
            errors = bounded_errors(self._validator, value.value, SECONDS)
        except SchemaTimeout as exc:
            self._stop(exc)
            return []
        problems = []
        for error in errors:
            target = value.find(list(error.absolute_path)) or value
            message = f"{self.what} does not match the dataset's {self.key}: {error.message}"
            problems.append(Problem("schema-mismatch", message, target.range))
        return problems

    def _stop(self, exc: SchemaTimeout) -> None:
        self.stopped = True
        at = self.node
        if exc.pattern is not None and self.node is not None:
            at = _pattern_node(self.node, exc.pattern) or self.node
        what = f"the pattern {exc.pattern!r}" if exc.pattern is not None else "this schema"
        message = (
            f"{self.key}: checking a recorded {self.what} against {what} took more than "
            f"{exc.seconds:g} s (a pattern that backtracks catastrophically?); the other "
            f"{self.what}s are not checked against it"
        )
        rng = at.range if at is not None else Range.point(0, 0)
        self._doc_problems.append(Problem("schema-timeout", message, rng))


def _pattern_node(schema: Node, pattern: str) -> Node | None:
    """Where `pattern` is written in the schema: a `pattern` value or a patternProperties key."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if node.kind == "mapping":
            written = node.get("pattern")
            if written is not None and written.value == pattern:
                return written
            properties = node.get("patternProperties")
            if properties is not None and properties.kind == "mapping":
                key = properties.key_node(pattern)
                if key is not None:
                    return key
            stack.extend(value for _, value in node.entries)
        elif node.kind == "sequence":
            stack.extend(node.items)
    return None
