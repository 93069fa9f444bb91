"""reStructuredText as Sphinx projects write it (issue 49 item 1): roles give their text,
Sphinx's directives keep their signature and body, code is code at its own line, what a
page does not show is left out, and what is not understood is kept and said once."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkspec.engine.generate.knowledge import load_knowledge_base
from checkspec.engine.generate.markup import Notes, rst_blocks


def _texts(source: str, **kwargs: object) -> list[str]:
    return [b.text for b in rst_blocks(source, **kwargs)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("role", "shown"),
    [
        (":class:`Client`", "Client"),
        (":doc:`the guide <guide/index>`", "the guide"),
        (":meth:`~a.b.c`", "c"),
        (":meth:`!not.linked`", "not.linked"),
        (":func:`requests.get`", "requests.get"),
        (":py:class:`flask.Flask`", "flask.Flask"),
        (":ref:`Deploying <deploying>`", "Deploying"),
        (":doc:`/logging`", "logging"),
        (":menuselection:`Start --> Programs`", "Start > Programs"),
        (":guilabel:`&Cancel`", "Cancel"),
        (":myproject:`a custom role`", "a custom role"),
        (":pep:`8`", "PEP 8"),
    ],
)
def test_every_role_gives_its_text(role: str, shown: str) -> None:
    (text,) = _texts(f"Before {role} after.\n")
    assert text == f"Before {shown} after."


DOMAIN = """\
Settings
========

.. py:data:: SECRET_KEY

   A secret key that signs the session cookie.

   Default: ``None``

   .. versionadded:: 0.6

.. confval:: html_theme
   :type: str
   :default: ``'alabaster'``

   The theme for HTML output.

.. py:function:: send_file(path, mimetype=None)

   Send a file to the client.

   :param path: the file to send
   :param mimetype: its type

.. versionchanged:: 2.3
   Not set by default.

.. deprecated:: 3.0
   Use :func:`other` instead.
"""


def test_domain_directives_keep_signature_options_and_body() -> None:
    texts = _texts(DOMAIN)
    assert texts == [
        "Settings",
        "SECRET_KEY",
        "A secret key that signs the session cookie.",
        "Default: None",
        "Added in version 0.6.",
        "html_theme",
        "Type: str",
        "Default: 'alabaster'",
        "The theme for HTML output.",
        "send_file(path, mimetype=None)",
        "Send a file to the client.",
        "param path: the file to send",
        "param mimetype: its type",
        # Text right after the version is the note's, as Sphinx reads it.
        "Changed in version 2.3: Not set by default.",
        "Deprecated since version 3.0: Use other instead.",
    ]


def test_directive_text_is_at_its_own_line() -> None:
    lines = {b.text: b.line for b in rst_blocks(DOMAIN)}
    assert lines["SECRET_KEY"] == 4
    assert lines["A secret key that signs the session cookie."] == 6
    assert lines["Added in version 0.6."] == 10
    assert lines["The theme for HTML output."] == 16
    assert lines["Deprecated since version 3.0: Use other instead."] == 28


TABS = """\
Install
=======

.. tabs::

   .. group-tab:: macOS/Linux

      .. code-block:: sh
         :caption: in a shell
         :emphasize-lines: 1

         $ python3 -m venv .venv

   .. group-tab:: Windows

      .. code-block:: bat

         > py -3 -m venv .venv

.. tab-set::

   .. tab-item:: pip

      Run pip.

.. note:: Mind the version.

.. seealso:: The :doc:`changelog <changes>`.

.. toctree::
   :maxdepth: 2

   hidden/page
   other/page

.. index:: single: install

Version |release| of |project|.

.. |project| replace:: Flask
"""


def test_tabs_code_blocks_admonitions_and_what_a_page_hides() -> None:
    blocks = rst_blocks(TABS)
    texts = [b.text for b in blocks]
    assert texts == [
        "Install",
        "macOS/Linux",
        "in a shell",
        "$ python3 -m venv .venv",
        "Windows",
        "> py -3 -m venv .venv",
        "pip",
        "Run pip.",
        "Mind the version.",
        "The changelog.",
        "Version release of Flask.",
    ]
    code = {b.text: b for b in blocks if b.code}
    # A code block's line is its first line of code, whatever options came before.
    assert code["$ python3 -m venv .venv"].line == 12
    assert code["> py -3 -m venv .venv"].line == 18


def test_literalinclude_reads_a_file_of_the_knowledge_base(tmp_path: Path) -> None:
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "app.py").write_text(
        "import flask\n# start\napp = flask.Flask(__name__)\n# end\nprint(app)\n",
        encoding="utf-8",
    )
    page = tmp_path / "page.rst"
    page.write_text(
        "Page\n====\n\nThe app:\n\n.. literalinclude:: examples/app.py\n"
        "   :start-after: # start\n   :end-before: # end\n\n"
        ".. literalinclude:: /examples/app.py\n   :lines: 1, 5\n",
        encoding="utf-8",
    )
    kb = load_knowledge_base([tmp_path])
    text = kb.chunks[0].text
    assert "```\napp = flask.Flask(__name__)\n```" in text
    assert "```\nimport flask\nprint(app)\n```" in text
    assert kb.warnings == []


def test_unknown_directives_are_kept_and_said_once_per_run(tmp_path: Path) -> None:
    (tmp_path / "a.rst").write_text(
        "A\n=\n\n.. fancybox:: Box title\n   :color: red\n\n   Inside the box.\n\n"
        ".. fancybox::\n\n   Second box.\n",
        encoding="utf-8",
    )
    (tmp_path / "b.rst").write_text(
        "B\n=\n\n.. mermaidish::\n\n   graph text\n\n.. include:: ../outside.rst\n",
        encoding="utf-8",
    )
    kb = load_knowledge_base([tmp_path])
    text = "\n".join(c.text for c in kb.chunks)
    assert "Box title" in text and "Inside the box." in text and "Second box." in text
    assert "graph text" in text
    unknown = [w for w in kb.warnings if "unknown" in w]
    assert unknown == [
        "3 unknown reStructuredText directive(s) kept as text (fancybox x2, mermaidish); "
        "1 include(s) not read (../outside.rst): only files inside the knowledge base are"
    ]


def test_notes_gather_over_documents() -> None:
    notes = Notes()
    rst_blocks(".. what::\n\n   text\n", notes=notes)
    rst_blocks(".. what::\n\n   more\n", notes=notes)
    assert notes.unknown == {"what": 2}
    # Registering directives for one parse leaves docutils as it was.
    from docutils.parsers.rst import directives

    assert "what" not in directives._directives  # noqa: SLF001
    assert "py:data" not in directives._directives  # noqa: SLF001
