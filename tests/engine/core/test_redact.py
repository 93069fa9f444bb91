"""engine/core/redact.py: what is masked, how it is shown, and what is left alone; the
secrets' source (engine/llm/env_secrets.py's `held_secrets`, which snapshot.py
re-exports). The commands' outputs as a whole: tests/security/test_secrets_in_outputs.py."""

from __future__ import annotations

import base64
import json
import logging
import sys
from io import StringIO

import pytest

from checkspec.engine.core.redact import (
    RedactingFilter,
    Redactor,
    mask,
    redact,
    redacted_streams,
)
from checkspec.engine.llm import snapshot

KEY = "sk-live-abcdefghij1234"


def test_a_secret_shows_its_last_four_characters_only_when_long_and_plain() -> None:
    assert mask(KEY) == "****1234"
    assert mask("short-key9") == "****"  # under 12: its tail would be too much of it
    assert mask('abcdefgh"\\<>') == "****"  # a tail that would need escaping somewhere


def test_a_held_secret_is_masked_wherever_and_however_it_appears() -> None:
    quoted = 'p"ss\\word-123456'
    redactor = Redactor([KEY, quoted, "E", "tiny"])
    assert redactor.text(f"Incorrect API key provided: {KEY}.") == (
        "Incorrect API key provided: ****1234."
    )
    assert redactor.text(f"x{KEY}y") == "x****1234y"  # inside a word too: it is long
    # As JSON and HTML write it, in reports of those formats.
    assert quoted not in redactor.text(json.dumps({"m": quoted}))
    assert "ss\\\\word" not in redactor.text(json.dumps({"m": quoted}))
    assert redactor.text("p&quot;ss\\word-123456") == "****3456"
    # Values under 8 characters are not secrets worth garbling text for.
    assert redactor.text("OpenAIException: tiny E") == "OpenAIException: tiny E"


def test_a_secret_that_holds_another_is_masked_whole() -> None:
    redactor = Redactor(["abcdefgh", "abcdefgh-and-more-1234"])
    assert redactor.text("abcdefgh-and-more-1234 abcdefgh") == "****1234 ****"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://alice:hunter2@proxy:8080/v1", "http://alice:****@proxy:8080/v1"),
        (
            "https://x-access-token:ghp_abcdefghijklmnop@github.com/o/r",
            "https://x-access-token:****mnop@github.com/o/r",
        ),
        ("https://ghp_abcdefghijklmnop1234@github.com", "https://****1234@github.com"),
        ("ssh://git@github.com/o/r and mailto:a@b.c", "ssh://git@github.com/o/r and mailto:a@b.c"),
        ("http://h/v1?api-key=k&x=1", "http://h/v1?api-key=****&x=1"),
        ("http://h/v1?x=1&API_KEY=abcdefghijkl9876#top", "http://h/v1?x=1&API_KEY=****9876#top"),
        (
            "https://b.s3/o?X-Amz-Signature=abc123&X-Amz-Date=1",
            "https://b.s3/o?X-Amz-Signature=****&X-Amz-Date=1",
        ),
        (
            "<a href='http://h/?a=1&amp;access_token=zz'>",
            "<a href='http://h/?a=1&amp;access_token=****'>",
        ),
        ("http://h/?sig=s1&pwd=p2&page=3", "http://h/?sig=****&pwd=****&page=3"),
        ("http://h/v1?model=gpt&design=x", "http://h/v1?model=gpt&design=x"),
    ],
)
def test_the_secrets_of_urls_are_masked(text: str, shown: str) -> None:
    assert Redactor().text(text) == shown


def test_masking_twice_changes_nothing() -> None:
    redactor = Redactor([KEY])
    once = redactor.text(f"{KEY} http://u:longpassword99@h/?token=abcdefghijklmn")
    assert redactor.text(once) == once


def test_a_tree_is_copied_only_when_it_holds_a_secret() -> None:
    redactor = Redactor([KEY])
    clean = {"scenarios": [{"output": "hello", "n": 1, "ok": True, "none": None}]}
    assert redactor.tree(clean) is clean
    dirty = {"run": {"settings": {"api_base": "http://u:pw@h"}}, KEY: [KEY, 3, (KEY,)]}
    assert redactor.tree(dirty) == {
        "run": {"settings": {"api_base": "http://u:****@h"}},
        "****1234": ["****1234", 3, ("****1234",)],
    }
    assert dirty["run"]["settings"]["api_base"] == "http://u:pw@h"  # the original kept


def test_the_process_secrets_are_the_environment_keys_and_the_endpoints_urls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("SOME_DIRECTORY", "/home/someone")
    monkeypatch.setenv("CHECKSPEC_API_BASE", "http://bob:pa%40ss-word@h/v1")
    held = snapshot.held_secrets()
    assert KEY in held and "/home/someone" not in held
    assert {"pa%40ss-word", "pa@ss-word"} <= held  # as written and as the client sends it
    assert base64.b64encode(b"bob:pa@ss-word").decode() in held  # the Basic credential
    run = snapshot.LLMSettings(
        api_base="http://carol:run-password-1@h/v1", api_key="kk-run-key-5678"
    )
    with snapshot.using(run):
        assert {"run-password-1", "kk-run-key-5678"} <= snapshot.held_secrets()
        # Echoed alone (a proxy's "bad password ..."), not only inside its URL.
        assert redact("bad password run-password-1") == "bad password ****rd-1"
    assert "run-password-1" in snapshot.held_secrets()  # held still: its report comes after
    assert redact(f"echo {KEY}") == "echo ****1234"


def test_the_log_and_the_streams_mask_what_they_are_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    stream = StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    log = logging.getLogger("checkspec.test.redact")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("sending %s to %s", {"key": KEY}, "http://u:secretpass@h")
        try:
            raise RuntimeError(f"the provider said {KEY}")
        except RuntimeError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
    written = stream.getvalue()
    assert KEY not in written and "secretpass" not in written
    assert "sending {'key': '****1234'} to http://u:****@h" in written
    assert "RuntimeError: the provider said ****1234" in written

    out = StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    with redacted_streams():
        print(f"key {KEY}")
        sys.stdout.writelines([f"again {KEY}\n"])
    print("after")
    assert out.getvalue() == "key ****1234\nagain ****1234\nafter\n"


def test_a_password_in_checkspec_yaml_is_held_once_the_settings_are_resolved() -> None:
    """The CLI's process resolves the settings and hands the runs to workers: what it
    writes afterwards masks the password of checkspec.yaml's `api_base` even where it
    appears alone (a proxy's "bad password ..."), not only inside its URL."""
    from pathlib import Path

    from checkspec.engine.settings import resolve
    from checkspec.engine.spec.workspace import workspace_from_text

    text = "api_base: http://dave:yaml-password-42@proxy/v1\n"
    assert "yaml-password-42" not in snapshot.held_secrets()
    resolve(workspace_from_text(text, Path("/w/checkspec.yaml")), environ={})
    assert "yaml-password-42" in snapshot.held_secrets()
    assert redact("rejected: yaml-password-42") == "rejected: ****d-42"
