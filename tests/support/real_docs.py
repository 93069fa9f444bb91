"""A flat folder of documentation as projects write it (issue 38): Markdown with front
matter, links, inline HTML and styled HTML blocks, fenced code, a reStructuredText page,
an HTML page, and release notes full of pull-request links. Built by each test that
needs it (`real_docs(root)`)."""

from __future__ import annotations

from pathlib import Path

# Words that only markup, URLs or code hold: none may reach chunk text or topic words.
MARKUP_WORDS = ("href", "https", "blank", "div", "style", "rem", "noopener", "span")
PARTS = 9  # sections a subject: 27 chunks, clustered into three topics
CODE_WORDS = ("zqxhandler", "zqxrouter", "zqxsocket")

SUBJECTS = {
    "authentication": (
        "users",
        "Users sign in with a password or a token; the authentication backend checks the "
        "credentials, loads the user and its permissions, and rejects unknown users. "
        "Permissions are scopes given to each authenticated user by the backend.",
    ),
    "routing": (
        "routes",
        "Routes map each request path to an endpoint; a mount groups routes under a prefix "
        "and path parameters are converted before the endpoint is called. Reverse lookups "
        "build a path from the route name and its parameters.",
    ),
    "websockets": (
        "websocket",
        "A websocket session accepts the connection, then sends and receives text or bytes "
        "messages until the client disconnects; the websocket endpoint closes the session "
        "with a close code when the conversation ends.",
    ),
}


_CODENAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india")


def _section(subject: str, number: int, sentence: str) -> str:
    name = _CODENAMES[(number - 1) % len(_CODENAMES)]
    return f"{subject.title()} part {name} explains this. {sentence} " + (
        f"Each {subject} detail in part {name} matters for {subject} in production."
    )


def real_docs(root: Path) -> Path:
    """`root/docs`: three subjects in Markdown, HTML and reStructuredText, and release
    notes; 30-odd chunks, so topics are found by clustering."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    auth_word, auth_text = SUBJECTS["authentication"]
    lines = [
        "---",
        "title: Authentication",
        "layout: docs",
        "---",
        "# Authentication",
        "",
    ]
    for n in range(1, PARTS + 1):
        lines += [
            f"## Authentication part {n}",
            "",
            _section("authentication", n, auth_text),
            f"Read [the {auth_word} guide](https://example.com/auth/{n}) and "
            f'<span style="color: red">the {auth_word} notes</span>.',
            "",
            "```python",
            f"def zqxhandler{n}(request):",
            "    return zqxhandler(request)",
            "```",
            "",
        ]
    lines += [
        '<div style="display: flex; margin: 1rem 0;">',
        '<a href="https://github.com/sponsors/x" target="_blank" rel="noopener">',
        "Sponsors of authentication keep users safe",
        "</a>",
        "</div>",
        "",
    ]
    (docs / "authentication.md").write_text("\n".join(lines), encoding="utf-8")

    _, routing_text = SUBJECTS["routing"]
    rst = ["Routing", "=======", "", ":Author: the maintainers", ""]
    for n in range(1, PARTS + 1):
        title = f"Routing part {n}"
        rst += [title, "-" * len(title), "", _section("routing", n, routing_text), ""]
        rst += [
            f"See `the routes reference <https://example.com/routes/{n}>`_ for more.",
            "",
            ".. code-block:: python",
            "",
            f"   zqxrouter{n} = zqxrouter(routes)",
            "",
        ]
    (docs / "routing.rst").write_text("\n".join(rst), encoding="utf-8")

    _, socket_text = SUBJECTS["websockets"]
    html = [
        "<html><head><title>WebSockets</title><style>p { margin: 1rem; }</style></head>",
        "<body>",
        "<h1>WebSockets</h1>",
    ]
    for n in range(1, PARTS + 1):
        html += [
            f"<h2>Websockets part {n}</h2>",
            f'<p class="lead" style="color: blue">{_section("websockets", n, socket_text)}',
            f'<a href="https://example.com/ws/{n}" target="_blank">the websocket API</a></p>',
            f"<pre><code>zqxsocket{n} = zqxsocket(scope)</code></pre>",
        ]
    html += ["</body></html>", ""]
    (docs / "websockets.html").write_text("\n".join(html), encoding="utf-8")

    notes = ["# Release Notes", ""]
    for minor in range(12, 0, -1):
        notes += [
            f"## 0.{minor}.0",
            "",
            f"* Fix a crash in the router ([#{minor}00](https://github.com/x/y/pull/{minor}00)).",
            f"* Add support for a new option ([#{minor}01](https://github.com/x/y/pull/{minor}01)).",
            f"* Thanks to @contributor{minor} for the work on release {minor}, and to everyone "
            "who reviewed it, tested the pre-release builds and reported problems.",
            "",
        ]
    (docs / "release-notes.md").write_text("\n".join(notes), encoding="utf-8")
    return docs
