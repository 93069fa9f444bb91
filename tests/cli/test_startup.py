"""What a command imports: `--version` and `--help` nothing of the engine, `validate` no
LLM client, JSON Schema or Rego library; the built-in checks load on the registry's
first read. Each case runs in a fresh interpreter (this one has imported everything)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.unmeasured import UNMEASURED_ENV

HEAVY = ("pydantic", "checkspec.engine.checks", "checkspec.engine.judges", "jinja2")


def modules_after(code: str) -> set[str]:
    """The modules loaded once `code` has run (it may exit), in a fresh interpreter."""
    script = textwrap.dedent(
        """
        import atexit, json, sys
        atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
        """
    ) + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=UNMEASURED,
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


# The interpreter as a user starts it: under `make test`'s coverage (patch = subprocess)
# a child is measured, and coverage loads modules of its own (socket, html...) as it
# meets the child's files.
UNMEASURED = UNMEASURED_ENV  # (tests/support/unmeasured.py)


def test_version_and_help_load_nothing_of_the_engine() -> None:
    for args in (["--version"], ["--help"], ["run", "--help"]):
        loaded = modules_after(f"from checkspec.engine.cli.main import main\nmain({args!r})")
        assert not loaded & set(HEAVY), (args, loaded & set(HEAVY))
    for args in (["--help"], ["--version"]):  # the version is a constant (engine/version.py)
        assert "importlib.metadata" not in modules_after(
            f"from checkspec.engine.cli.main import main\nmain({args!r})"
        )


def test_the_version_is_the_installed_package_s() -> None:
    from importlib.metadata import version

    from checkspec.engine.version import VERSION

    assert version("checkspec") == VERSION  # setup.py reads engine/version.py
    done = subprocess.run(
        [sys.executable, "-m", "checkspec.engine.cli.main", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == f"checkspec {VERSION}\n"


def test_validate_loads_no_llm_client_json_schema_or_rego(tmp_path: Path) -> None:
    spec = tmp_path / "a.scenario.yaml"
    spec.write_text(
        "name: a\nsteps:\n  - interacts: [{inputs: hi, outputs: hello}]\n"
        "    checks: [{kind: string_matching, keyword: hello}]\n",
        encoding="utf-8",
    )
    loaded = modules_after(
        f"from checkspec.engine.cli.main import main\nmain(['validate', {str(spec)!r}])"
    )
    bare = modules_after("pass")  # what any interpreter here loads is not validate's
    assert "checkspec.engine.checks" in loaded  # it did validate
    for heavy in ("litellm", "jsonschema", "regorus", "openai", "urllib.request"):
        assert heavy not in loaded, heavy
    # the file has deterministic checks only: no judge, generator or template engine
    for module in ("checkspec.engine.judges", "checkspec.engine.generators", "jinja2"):
        assert module not in loaded, module
    # Start-up (issue 30): only the kinds the file uses, no event loop, regex engine or
    # JSONPath parser (nothing is run, no selector is given), no suite machinery, and
    # no other command's options (their modules).
    assert "checkspec.engine.checks.text_matching" in loaded
    for module in (
        "checkspec.engine.checks.rego_policy",
        "checkspec.engine.checks.readability",
        "checkspec.engine.checks.comparison",
        "checkspec.engine.scenarios.suite",
        "checkspec.engine.scenarios.runner",
        "asyncio",
        "regex",
        "jsonpath_ng",
        "checkspec.engine.cli.curate",
        "checkspec.engine.cli.generate",
    ):
        assert module not in loaded, module
    # Issue 50: what the project value, the settings snapshot and the selection language
    # brought back to validate's start-up (from 2.46x to 2.70x `import pydantic, yaml` in
    # instructions, bench/README.md). pydantic's plugin loader imports importlib.metadata
    # (and email, socket) though plugins are off; the run's settings snapshot, curation's
    # file reader, the dataset and suite models and their JSON Schema checks, and the
    # entity table of `html` are for other files and commands.
    for module in (
        "pydantic.plugin._loader",
        "importlib.metadata",
        "email",
        "socket",
        "checkspec.engine.llm.snapshot",
        "checkspec.engine.curate.files",
        "checkspec.engine.curate.select",  # its filters: selectors.py resolves the paths
        "checkspec.engine.spec.layouts",
        "checkspec.engine.spec.datasets",
        "checkspec.engine.spec.suite_file",
        "checkspec.engine.spec.schema_checks",
        "checkspec.engine.core.json_schema",
        "checkspec.engine.runs.selection",  # its frozen dataclass: for a run's selection
        "html",
        "difflib",
        "signal",
        "traceback",
    ):
        assert module not in loaded - bare, (module, sorted(loaded - bare))
    assert "checkspec.engine.llm.env_secrets" in loaded  # its messages are masked all the same


def test_validate_of_an_ascii_file_compiles_no_class_of_all_of_unicode(tmp_path: Path) -> None:
    """The readers' classes of the characters left to libyaml (block_reader.py) and read
    otherwise by YAML (json_rows.py) hold characters past U+00FF: each compiles to a
    table of all of Unicode (~4 M instructions, three of them a tenth of what validate
    adds to `import pydantic, yaml`). An ASCII file is searched with their ASCII part.
    Nor does a valid file's message ("://" or "=" in none) compile redaction's URL
    patterns (the case-blind one, 4 M)."""
    spec = tmp_path / "a.scenario.yaml"
    spec.write_text("name: a\nsteps:\n  - interacts: [{inputs: hi, outputs: hello}]\n")
    script = f"""
        from checkspec.engine.cli.main import main
        from checkspec.engine.spec import block_reader, json_rows
        assert main(['validate', {str(spec)!r}]) == 0
        from checkspec.engine.core import redact
        made = [f.cache_info().currsize for f in (
            block_reader.foreign, block_reader._unread_any, json_rows.risky,
            redact._userinfo, redact._query)]
        assert made == [0, 0, 0, 0, 0], made
        print("ok")
        """
    assert_prints_ok(script)


def test_validate_looks_for_no_pydantic_plugins_and_leaves_the_switch_as_it_was(
    tmp_path: Path,
) -> None:
    """pydantic's plugin search reads every installed distribution's entry points; a
    validate runs no user code, so it switches plugins off for the while (and never over
    the user's own setting)."""
    spec = tmp_path / "a.scenario.yaml"
    spec.write_text("name: a\nsteps:\n  - interacts: [{inputs: hi, outputs: hello}]\n")
    script = f"""
        import os
        from importlib import metadata
        from checkspec.engine.cli.main import main
        scanned = []
        real = metadata.entry_points
        def spy(**kw):
            scanned.append(kw)
            return real(**kw)
        metadata.entry_points = spy
        import pydantic.plugin._loader as loader
        loader.entry_points = spy
        assert main(['validate', {str(spec)!r}]) == 0
        assert scanned == [], scanned
        assert "PYDANTIC_DISABLE_PLUGINS" not in os.environ
        os.environ["PYDANTIC_DISABLE_PLUGINS"] = "mine"
        main(['validate', {str(spec)!r}])
        assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == "mine"
        print("ok")
        """
    assert_prints_ok(script)


def test_a_command_s_own_parser_is_the_full_parser_s_for_it() -> None:
    """main() builds only the options of the command it is given; they must be those the
    full command line has (help text included)."""
    from checkspec.engine.cli.main import COMMANDS, _parser

    def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001 (argparse has no public way)
        return dict(action.choices)

    full = subparsers(_parser())
    assert set(full) == COMMANDS
    for command in COMMANDS:
        own = subparsers(_parser(command))
        assert command in own, command
        assert own[command].format_help() == full[command].format_help(), command


def test_the_lazy_package_names_are_the_modules_names() -> None:
    from checkspec.engine import checks, scenarios
    from checkspec.engine.checks.comparison import Equals
    from checkspec.engine.checks.fn import from_fn
    from checkspec.engine.scenarios.suite import Suite

    assert checks.Equals is Equals and checks.from_fn is from_fn and scenarios.Suite is Suite
    assert set(checks.__all__) <= set(dir(checks)) | set(checks._WHERE)  # noqa: SLF001
    for name in checks.__all__:
        assert getattr(checks, name) is not None, name
    try:
        checks.NoSuchCheck  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchCheck" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_the_registry_loads_the_built_in_checks_on_its_first_read() -> None:
    loaded = modules_after("import checkspec.engine.core.check")
    assert "checkspec.engine.checks" not in loaded
    loaded = modules_after(
        """
        from checkspec.engine.core.check import Check
        assert "equals" in Check._registry and "llm_judge" in Check._registry
        Check.model_validate({"kind": "regex_matching", "pattern": "a"})
        """
    )
    assert "checkspec.engine.checks" in loaded and "checkspec.engine.judges" in loaded


def test_the_package_names_load_on_first_use() -> None:
    loaded = modules_after(
        """
        import checkspec.engine as engine
        assert "Scenario" in dir(engine)
        from checkspec.engine import *
        assert Scenario and StringMatching and LLMJudge
        """
    )
    assert "checkspec.engine.scenarios.scenario" in loaded


def test_one_kind_read_imports_its_package_and_a_listing_all_of_them() -> None:
    loaded = modules_after(
        """
        from checkspec.engine.core.check import Check
        assert Check._registry.get("equals") is not None and "no_such_kind" not in Check._registry
        """
    )
    assert "checkspec.engine.checks" in loaded and "checkspec.engine.judges" not in loaded
    loaded = modules_after(
        """
        from checkspec.engine.core.check import Check
        Check.model_validate({"kind": "llm_judge", "prompt": "x"})
        """
    )
    assert "checkspec.engine.judges" in loaded
    loaded = modules_after(
        """
        from checkspec.engine.core.input_generator import InputGenerator
        assert "user_simulator" in InputGenerator._registry
        """
    )
    assert "checkspec.engine.generators" in loaded


def test_the_built_in_kind_map_is_what_a_full_import_registers() -> None:
    """BUILT_IN_CHECKS (kind -> package, in order) must follow the code: a fresh process
    imports everything, then the registry's order and each class's module are compared,
    after a lookup of one judge first (a listing puts built-ins back in the map's order)."""
    script = textwrap.dedent(
        """
        import json
        from checkspec.engine.core.check import BUILT_IN_CHECKS, Check
        from checkspec.engine.core.input_generator import InputGenerator
        assert Check._registry.get("toxicity") is not None  # judges registered first
        print(json.dumps({
            "map": list(BUILT_IN_CHECKS.items()),
            "checks": [[k, c.__module__] for k, c in Check._registry.items()],
            "generators": [[k, c.__module__] for k, c in InputGenerator._registry.items()],
            "generator_map": list(InputGenerator._registry._where.items()),
        }))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    seen = json.loads(done.stdout)
    assert [k for k, _ in seen["checks"]] == [k for k, _ in seen["map"]]
    for (kind, module), (_, package) in zip(seen["checks"], seen["map"], strict=True):
        assert module == package or module.startswith(package + "."), (kind, module, package)
    assert sorted(k for k, _ in seen["generators"]) == sorted(k for k, _ in seen["generator_map"])
    for kind, module in seen["generators"]:
        assert module.startswith(dict(seen["generator_map"])[kind] + "."), (kind, module)


def test_the_language_server_answers_initialize_before_loading_the_analysis() -> None:
    """Everything the server registers before `initialize` is light: the analysis, the
    engine's models (pydantic), the YAML reader and the settings load with the first
    document. A real server over stdio, in its own process."""
    script = textwrap.dedent(
        """
        import asyncio, json, sys
        from checkspec.server.lsp.server import create_server
        from lsprotocol import types

        server = create_server()
        params = types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            initialization_options={"checkspec": {"model": "x"}},
        )
        result = server.protocol.lsp_initialize(params)
        while True:  # pygls' initialize is a generator: run it to the end by hand
            try:
                handler, args, _ = next(result)
                handler(*args)
            except StopIteration as done:
                answer = done.value
                break
        assert answer.capabilities.completion_provider is not None
        print(json.dumps(sorted(sys.modules)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "checkspec.server.lsp.completion" in loaded  # the features are registered
    for heavy in (
        "pydantic",
        "yaml",
        "checkspec.engine.spec.document",
        "checkspec.engine.settings",
        "checkspec.engine.executor",
        "checkspec.server.analysis.completion",
    ):
        assert heavy not in loaded, heavy


def test_the_server_loads_the_analysis_once_initialized_before_any_document() -> None:
    # The editor may start the server long before it opens a spec file: the first open
    # should not also pay for importing the reader, the analysis and the checks.
    launch = textwrap.dedent(
        """
        import atexit, json, sys
        atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
        import runpy
        runpy.run_module("checkspec.server", run_name="__main__")
        """
    )

    def frame(message: dict[str, object]) -> bytes:
        body = json.dumps(message).encode()
        return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    done = subprocess.run(
        [sys.executable, "-c", launch],
        input=b"".join(frame(m) for m in messages),
        capture_output=True,
        timeout=120,
        check=False,
    )
    loaded = set(json.loads(done.stderr.decode().strip().splitlines()[-1]))
    for module in ("checkspec.engine.spec.incremental", "checkspec.engine.checks"):
        assert module in loaded, module


def assert_prints_ok(script: str) -> None:
    """Runs the script in a fresh interpreter (nothing of this process's imports): it
    must print "ok"."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=UNMEASURED,
    )
    assert done.stdout.strip() == "ok", done.stderr
