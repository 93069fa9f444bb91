"""Secrets kept out of everything checkspec shows or writes: one redaction, every sink.

Three kinds of secret are masked, in any text (`Redactor.text`) or in every string of a
JSON-like value (`Redactor.tree`):

- the values the process holds as secrets (the keys of the environment, see
  `is_secret_name`; engine/llm/env_secrets.py's `held_secrets` reads them): each occurrence
  anywhere in the text, also JSON-, XML- or HTML-escaped. Values shorter than
  `MIN_SECRET_LENGTH` are not secrets worth the name, and masking them would garble text
  (a key "E" in "OpenAIException");
- the password of a URL's user-info (`user:PASSWORD` before the host), and a user-info
  that is a single long token (`https://TOKEN@host`);
- the value of a URL query parameter named like a secret (`?api-key=`, `&token=`,
  `&sig=`, see `_QUERY`).

Each is shown as `mask` shows a secret: `****` and, for a long one, its last four
characters (what `checkspec settings` shows of a key).

The secrets come from the engine's one reading of the environment (llm/env_secrets.py,
which llm/snapshot.py re-exports), which registers itself as the source (`use_source`);
this module reads nothing itself. The sinks (reports of every format, the history,
`checkspec settings`, errors, the language server's hover, transcript and log) call
`current()` (or env_secrets.py's `redactor()`), so the secret set is the process's at the
time of writing.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import unquote

if TYPE_CHECKING:
    import logging

MIN_SECRET_LENGTH = 8
_SHOWN_TAIL_FROM = 12  # a secret at least this long keeps its last four characters shown
_MASK = "****"

# Words that make a variable's name a secret's (split on "_"): every key variable litellm
# reads (OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, HF_TOKEN, WATSONX_APIKEY, AZURE_AD_TOKEN...:
# tests/security/test_secrets_in_outputs.py checks litellm's own list against this rule),
# and the usual spellings of passwords. Not CREDENTIALS (a file path, by convention).
_SECRET_WORDS = frozenset({"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "PAT"})
_SECRET_ENDINGS = ("APIKEY", "TOKEN", "SECRET", "PASSWORD")


@lru_cache(maxsize=1024)  # the environment's names, asked again at each write
def is_secret_name(name: str) -> bool:
    """A variable whose value is a secret: a word of its name is KEY, TOKEN, SECRET,
    PASSWORD... (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `WATSONX_APIKEY`, `DB_PASSWORD`)."""
    words = name.upper().split("_")
    return any(w in _SECRET_WORDS or w.endswith(_SECRET_ENDINGS) for w in words if w)


def mask(secret: str) -> str:
    """A secret as shown: `****`, with its last four characters when it is long enough
    that they give nothing away (and they are plain characters, safe in every format)."""
    tail = secret[-4:]
    if len(secret) >= _SHOWN_TAIL_FROM and re.fullmatch(r"[A-Za-z0-9_\-.]{4}", tail):
        return _MASK + tail
    return _MASK


# What may be part of a URL's user-info or a query value, as they appear in text, JSON,
# XML or HTML: no space, quote, angle bracket or backslash (which end the URL there).
_PASSWORD_CHAR = r"[^\s/?#@\"'<>\\`]"
_USER_CHAR = r"[^\s/?#@\"'<>\\`:]"
# From the "://" on (the scheme is kept as it is): a pattern that starts with a literal is
# searched for at the speed of a string search, 12 MB of report in milliseconds.
_USERINFO = (
    rf"(?P<head>://)"
    rf"(?:(?P<user>{_USER_CHAR}*):(?P<password>{_PASSWORD_CHAR}+)|(?P<token>{_USER_CHAR}{{16,}}))@"
)
# A query parameter named like a secret: its name has one of these words (api-key,
# x-api-key, access_token, X-Amz-Signature, client_secret, password...), or is sig or pwd.
# After `?`, `&` or `;` (also the `;` of an escaped `&amp;` in XML and HTML): a set of
# three characters the search skips to.
_QUERY = (
    r"(?P<head>[?&;](?P<name>[A-Za-z0-9_.\-]*(?:key|token|secret|signature|password|passwd"
    r"|credential)[A-Za-z0-9_.\-]*|sig|pwd|pass)=)(?P<value>[^&#\s\"'<>\\`;]+)"
)


# Compiled for the first text that holds a "://" or a "=" (each needs its literal): the
# second, case-blind, costs 4 M instructions to compile, which a command that prints
# neither (`checkspec validate` of a valid file) need not pay at its start.
@cache
def _userinfo() -> re.Pattern[str]:
    return re.compile(_USERINFO)


@cache
def _query() -> re.Pattern[str]:
    return re.compile(_QUERY, re.IGNORECASE)


def url_secrets(url: str) -> list[str]:
    """The secrets a URL holds: its user-info password (also percent-decoded, and as the
    Basic credential an HTTP client makes of the user-info, which an endpoint may echo in
    its Authorization header), its secret query values."""
    found: list[str] = []
    if "://" not in url and "=" not in url:  # neither pattern can match (see above)
        return found
    for match in _userinfo().finditer(url):
        if match.group("token") is not None:
            found += [match.group("token"), unquote(match.group("token"))]
            continue
        user, password = match.group("user"), match.group("password")
        found += [password, unquote(password)]
        for pair in (f"{user}:{password}", f"{unquote(user)}:{unquote(password)}"):
            found.append(base64.b64encode(pair.encode("utf-8")).decode("ascii"))
    found += [m.group("value") for m in _query().finditer(url)]
    found += [unquote(m.group("value")) for m in _query().finditer(url)]
    return found


def _masked(secret: str) -> str:
    """`mask`, leaving what is masked already as it is (redacting twice changes nothing)."""
    return secret if secret.startswith(_MASK) else mask(secret)


def _spellings(secret: str) -> set[str]:
    """A secret as it may appear in a text, a JSON string, XML or HTML."""
    import html  # here: its entity table is a start-up cost every command would pay

    return {secret, json.dumps(secret, ensure_ascii=False)[1:-1], html.escape(secret)}


class Redactor:
    """Masks the held secrets and the secrets of URLs in text (see the module)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        held = {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}
        self._mask_of = {spelling: mask(s) for s in held for spelling in _spellings(s)}
        # Longest first: a secret that contains another is masked whole.
        literal = "|".join(re.escape(s) for s in sorted(self._mask_of, key=len, reverse=True))
        self._literal = re.compile(literal) if literal else None

    def _replace(self, match: re.Match[str]) -> str:
        found = match.groupdict()
        if found.get("password") is not None:
            return f"{found['head']}{found['user']}:{_masked(found['password'])}@"
        if found.get("token") is not None:
            return f"{found['head']}{_masked(found['token'])}@"
        return f"{found['head']}{_masked(found['value'])}"

    def _holds_literal(self, text: str) -> bool:
        # A string search per spelling: faster than the alternation's scan of each place.
        return any(spelling in text for spelling in self._mask_of)

    def text(self, text: str) -> str:
        """`text` with every secret masked."""
        if self._literal is not None and self._holds_literal(text):
            text = self._literal.sub(lambda m: self._mask_of[m.group()], text)
        if "://" in text:
            text = _userinfo().sub(self._replace, text)
        if "=" in text:
            text = _query().sub(self._replace, text)
        return text

    def finds(self, text: str) -> bool:
        """Whether `text` holds anything to mask (scans, no copy)."""
        return (
            self._holds_literal(text)
            or ("://" in text and _userinfo().search(text) is not None)
            or ("=" in text and _query().search(text) is not None)
        )

    def tree(self, value: Any) -> Any:
        """A JSON-like value (dicts, lists, strings...) with every string redacted; the
        value itself when it holds no secret (a report without one is not copied)."""
        try:
            dumped = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            return self._walk(value)
        return self._walk(value) if self.finds(dumped) else value

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self._walk(k): self._walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._walk(v) for v in value)
        return value


_source: Callable[[], Iterable[str]] | None = None


def use_source(source: Callable[[], Iterable[str]]) -> None:
    """Where `current()` takes the held secrets from (engine/llm/snapshot.py sets it)."""
    global _source
    _source = source


@lru_cache(maxsize=8)
def redactor_for(secrets: frozenset[str]) -> Redactor:
    """The redactor of this set of secrets (compiled once per set)."""
    return Redactor(secrets)


def current() -> Redactor:
    """The redactor of the secrets the process holds now."""
    return redactor_for(frozenset(_source() if _source is not None else ()))


def redact(text: str) -> str:
    """`text` with every secret the process holds, and every URL's, masked."""
    return current().text(text)


class RedactingFilter:
    """A log handler's filter that masks secrets in each record's message and traceback
    (put on the handler: a logger's own filter does not see its children's records). Any
    object with `filter(record)` is one (logging's own `Filter` class is not needed): so
    the CLI, which redacts every command's streams, does not import logging to start."""

    def filter(self, record: logging.LogRecord) -> bool:
        redactor = current()
        try:
            message = record.getMessage()
        except Exception:  # a bad format: the handler reports it, as without the filter
            return True
        if record.exc_info and not record.exc_text:
            import logging

            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg, record.args = redactor.text(message), ()
        if record.exc_text:
            record.exc_text = redactor.text(record.exc_text)
        if record.stack_info:
            record.stack_info = redactor.text(record.stack_info)
        return True


__all__ = [
    "MIN_SECRET_LENGTH",
    "RedactingFilter",
    "Redactor",
    "current",
    "is_secret_name",
    "mask",
    "redact",
    "redacted_streams",
    "url_secrets",
    "use_source",
]


_REFRESH_S = 0.05  # how long a stream keeps the held secrets before asking again


class _RedactingStream:
    """A text stream whose writes are masked; the rest of the stream (fileno, isatty,
    buffer, encoding...) is the stream's own. The held secrets are asked for again after
    _REFRESH_S: `list` prints a line per scenario, and reading the environment at each of
    20,000 lines cost more than the printing."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._redactor = current()
        self._asked = time.monotonic()

    def write(self, text: str) -> int:
        if len(text) >= MIN_SECRET_LENGTH:  # a shorter one (print's "\n") holds none
            now = time.monotonic()
            if now - self._asked > _REFRESH_S:
                self._redactor, self._asked = current(), now
            text_shown = self._redactor.text(text)
        else:
            text_shown = text
        self._stream.write(text_shown)
        return len(text)  # what was given was written, as far as the caller knows

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def unmasked(stream: TextIO) -> TextIO:
    """The stream under a masked one (`redacted_streams`), for the one text a command
    prints for its own user to use as is: `checkspec view`'s URL carries the token the
    user's browser needs (`?token=` reads as a secret, and is one, for anyone else)."""
    return stream._stream if isinstance(stream, _RedactingStream) else stream  # noqa: SLF001


@contextmanager
def redacted_streams() -> Iterator[None]:
    """sys.stdout and sys.stderr masked for the block (a command's every message)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _RedactingStream(out), _RedactingStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
