"""The reference library's module paths are names for our modules, never their identity.

An alias (`checkspec.engine.core.scenario` for `checkspec.engine.scenarios.scenario`) hands the
import system our module object; the module must keep its own `__spec__`, or its
relative imports would resolve under the alias's package (`core/`), which Python 3.15
does once it stops reading `__package__`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from checkspec.engine.reference_paths import ALIASES

# A fresh interpreter: each alias imported before (and instead of) its module, every
# import warning an error, then code that runs the modules' function-level imports.
_PROGRAM = textwrap.dedent(
    """
    import importlib, warnings
    warnings.simplefilter("error")
    aliases = {aliases!r}
    for alias, real in aliases.items():
        module = importlib.import_module("checkspec.engine." + alias)
        own = "checkspec.engine." + real
        assert module.__spec__.name == own, (alias, module.__spec__.name)
        assert module.__name__ == own, (alias, module.__name__)
    from checkspec.engine.core.scenario import Scenario
    from checkspec.engine.testing import WithSpy
    result = Scenario(name="s").interact(inputs="hi", outputs=lambda inputs: inputs).run_sync()
    assert result.passed, result
    print("ok")
    """
)


def test_an_alias_leaves_the_module_its_own_spec() -> None:
    program = _PROGRAM.format(aliases=ALIASES)
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
