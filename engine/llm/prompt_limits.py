"""The largest prompt a template may render, enforced before anything is sent.

The rendered text is counted while it streams out, but a single filter or method call can
build tens of megabytes at once (`'x'|center(50000000)`, `'%50000000s'|format('x')`,
`lipsum(n=20000)`, a string doubled in a loop), so every way a template multiplies text
is checked against the limit before it runs: the `*`, `+`, `%` and `~` operators, the
filters and globals that grow text, and `str` methods such as `center` or `format`.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any

from jinja2 import pass_environment, pass_eval_context
from jinja2.filters import (
    do_center,
    do_format,
    do_indent,
    do_join,
    do_replace,
    do_wordwrap,
)
from jinja2.sandbox import SecurityError
from jinja2.utils import generate_lorem_ipsum

from ..catalog import SETTINGS_BY_NAME
from . import snapshot

MAX_PROMPT_SIZE_ENV = str(SETTINGS_BY_NAME["max_prompt_size"].env)
DEFAULT_MAX_PROMPT_SIZE: int = SETTINGS_BY_NAME["max_prompt_size"].default  # UTF-8 bytes

# The limit of the render in progress, for the filters and operators that consult it.
_current: ContextVar[int] = ContextVar("checkspec_prompt_limit", default=DEFAULT_MAX_PROMPT_SIZE)


class PromptTooLarge(SecurityError):
    """The template would build a text over the limit."""


def set_max_prompt_size(size: int | None) -> None:
    """The largest rendered prompt, in bytes, for every later render outside a run (a
    run's is its settings'); None: the environment's. Recorded in the snapshot's
    CodeDefaults (snapshot.py)."""
    snapshot.set_code_defaults(max_prompt_size=size)


def max_prompt_size() -> int:
    """The snapshot's: a run's limit (its settings), else the one set with
    set_max_prompt_size, else CHECKSPEC_MAX_PROMPT_SIZE, else 200 KB (snapshot.py folds
    them when it makes the snapshot)."""
    return snapshot.effective().max_prompt_size


def describe(limit: int) -> str:
    """The limit as a reader wants it, with where it is set."""
    shown = f"{limit / 1000:g} KB" if limit >= 1000 else f"{limit} bytes"
    return f"{shown} limit (max_prompt_size in checkspec.yaml, or {MAX_PROMPT_SIZE_ENV})"


def _refuse(size: int) -> None:
    if size > _current.get():
        raise PromptTooLarge(f"the template builds a text of about {size:,} characters")


def bounded_render(parts: Iterable[str], limit: int) -> str:
    """Join the streamed output of a render, stopping as soon as it is over `limit`."""
    token = _current.set(limit)
    try:
        chunks: list[str] = []
        size = 0
        for chunk in parts:
            size += len(chunk)  # characters: never more than the UTF-8 bytes
            _refuse(size)
            chunks.append(chunk)
        text = "".join(chunks)
        _refuse(len(text.encode("utf-8", "surrogatepass")))
        return text
    finally:
        _current.reset(token)


def within_limit(render: Callable[[], Any], limit: int) -> Any:
    """Run `render` (which may call the checks below) with `limit` in force."""
    token = _current.set(limit)
    try:
        return render()
    finally:
        _current.reset(token)


# -- operators ---------------------------------------------------------------------------

_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


def check_binop(operator: str, left: Any, right: Any) -> None:
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, str | list | tuple) and isinstance(times, int):
                _refuse(_size(seq) * times)
    elif operator == "+" and isinstance(left, str | list | tuple) and type(left) is type(right):
        _refuse(_size(left) + _size(right))
    elif operator == "%" and isinstance(left, str):
        check_percent_format(left, right)


def _size(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list | tuple):  # a list's text is at least as long as its items'
        return sum(len(v) if isinstance(v, str) else 1 for v in value)
    return 0


def check_percent_format(template: str, args: Any) -> None:
    """`'%50000000s' % x`: widths and precisions, written or given with `*`."""
    numbers = [n for match in _PERCENT_SPEC.finditer(template) for n in match.groups() if n]
    given = iter(args if isinstance(args, tuple) else (args,))
    total = len(template)
    for number in numbers:
        value = next(given, 0) if number == "*" else int(number)
        if isinstance(value, int):
            total += abs(value)
    _refuse(total + sum(_size(a) for a in (args if isinstance(args, tuple) else (args,))))


def check_brace_format(template: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """`'{:>50000000}'.format(x)`: the widths in each replacement field's spec."""
    total = len(template)
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return  # str.format will say what is wrong
    for _text, _name, spec, _conversion in fields:
        total += sum(int(n) for n in re.findall(r"\d+", spec or ""))
    for value in (*args, *kwargs.values()):
        total += (
            _size(value)
            if isinstance(value, str)
            else (value if isinstance(value, int) and value > 0 else 0)
        )
    _refuse(total)


def concat(parts: tuple[Any, ...]) -> str:
    """The `~` operator: join, unless the result would be over the limit."""
    texts = [str(p) for p in parts]
    _refuse(sum(len(t) for t in texts))
    return "".join(texts)


# -- str methods called from templates ------------------------------------------------------

_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})


def check_call(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    target = getattr(obj, "__wrapped__", obj)
    owner = getattr(target, "__self__", None)
    name = getattr(target, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in _WIDTH_METHODS and args and isinstance(args[0], int):
        _refuse(max(len(owner), args[0]))
    elif name == "expandtabs":
        size = args[0] if args and isinstance(args[0], int) else kwargs.get("tabsize", 8)
        _refuse(len(owner) + owner.count("\t") * (size if isinstance(size, int) else 8))
    elif name == "replace" and len(args) >= 2:
        _refuse(_replaced_size(owner, args[0], args[1]))
    elif name == "join" and args:
        items = args[0]
        if isinstance(items, list | tuple):
            _refuse(sum(len(str(i)) for i in items) + len(owner) * max(len(items) - 1, 0))
    elif name in ("format", "format_map"):
        values = args[0] if name == "format_map" and args else kwargs
        check_brace_format(
            owner,
            args if name == "format" else (),
            dict(values) if isinstance(values, dict) else {},
        )


def _replaced_size(text: str, old: Any, new: Any) -> int:
    if not isinstance(old, str) or not isinstance(new, str):
        return len(text)
    count = len(text) + 1 if old == "" else text.count(old)
    return len(text) + count * max(len(new) - len(old), 0)


# -- filters and globals that grow text ----------------------------------------------------


def _center(value: Any, width: int = 80) -> str:
    _refuse(max(len(str(value)), width if isinstance(width, int) else 0))
    return do_center(value, width)


def _indent(s: Any, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    text = str(s)
    pad = width if isinstance(width, int) else len(str(width))
    _refuse(len(text) + (text.count("\n") + 1) * max(pad, 0))
    return do_indent(s, width, first, blank)


@pass_environment
def _wordwrap(environment: Any, s: str, width: int = 79, *args: Any, **kwargs: Any) -> str:
    wrap = kwargs.get("wrapstring", args[1] if len(args) > 1 else None)
    extra = len(wrap) if isinstance(wrap, str) else 1
    _refuse(len(str(s)) * (1 + extra))
    return do_wordwrap(environment, s, width, *args, **kwargs)


def _format(value: Any, *args: Any, **kwargs: Any) -> str:
    check_percent_format(str(value), kwargs or args)
    return do_format(value, *args, **kwargs)


@pass_eval_context
def _replace(eval_ctx: Any, s: Any, old: Any, new: Any, count: int | None = None) -> Any:
    _refuse(_replaced_size(str(s), str(old), str(new)))
    return do_replace(eval_ctx, s, old, new, count)


@pass_eval_context
def _join(eval_ctx: Any, value: Any, d: str = "", attribute: Any = None) -> str:
    items = list(value)
    if attribute is None:
        _refuse(sum(len(str(i)) for i in items) + len(d) * max(len(items) - 1, 0))
    result = do_join(eval_ctx, items, d, attribute)
    _refuse(len(result))
    return result


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    _refuse(n * max * 12)  # words of up to ~11 letters and a space
    return generate_lorem_ipsum(n, html, min, max)


FILTERS = {
    "center": _center,
    "indent": _indent,
    "wordwrap": _wordwrap,
    "format": _format,
    "replace": _replace,
    "join": _join,
}
GLOBALS = {"lipsum": _lipsum}
