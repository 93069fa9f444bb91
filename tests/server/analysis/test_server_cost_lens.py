"""The Run lenses say about what a run's model calls cost, from the file alone: no
network, no litellm import, no user code (server/analysis/cost_estimate.py)."""

from __future__ import annotations

import subprocess
import sys

from checkspec.engine.spec.document import analyze
from checkspec.server.analysis.cost_estimate import Estimate, estimate, lens_note
from checkspec.server.analysis.lenses import code_lenses

SUITE = """\
name: s
scenarios:
  - name: judged
    steps:
      - interacts: [{inputs: hello, outputs: Sorry for the wait.}]
        checks:
          - {kind: conformity, rule: apologises}
          - {kind: string_matching, keyword: Sorry}
  - name: simulated
    steps:
      - interacts: [{inputs: {kind: user_simulator, persona: an angry customer, max_steps: 3}}]
        checks: [{kind: conformity, rule: stays polite}]
  - name: plain
    steps:
      - interacts: [{inputs: hi, outputs: hi}]
        checks: [{kind: equals, expected_value: hi, key: trace.last.outputs}]
"""
PRICES = {"openai/ours": (0.001, 0.002)}


def _titles(**settings: object) -> list[str]:
    return [lens.title for lens in code_lenses(analyze(SUITE, "s.suite.yaml"), SUITE, **settings)]  # type: ignore[arg-type]


def test_each_run_lens_says_its_calls_and_cost() -> None:
    titles = _titles(model="openai/ours", prices=PRICES)
    run_all, judged, simulated, plain = titles
    assert run_all.startswith("▶ Run all (3) · ≈ $") and run_all.endswith("· 5 calls")
    assert judged.startswith("▶ Run scenario · ≈ $") and judged.endswith("· 1 call")
    assert simulated.endswith("· 4 calls")  # three simulated turns and the judge
    assert plain == "▶ Run scenario"  # no model call: nothing to say


def test_the_estimate_follows_the_prices() -> None:
    found = estimate(analyze(SUITE, "s.suite.yaml").scenarios[0].scenario)
    assert found.calls == 1 and found.prompt_tokens > 100  # the conformity template
    cheap = lens_note(found, "openai/ours", {"openai/ours": (0.0, 0.0)})
    assert cheap == "≈ $0.0000 · 1 call"
    dear = lens_note(found, "openai/ours", {"openai/ours": (1.0, 1.0)})
    assert dear == f"≈ ${found.prompt_tokens + 80:.4f} · 1 call"


def test_without_a_model_or_a_price_only_the_calls_are_said() -> None:
    assert _titles()[1] == "▶ Run scenario · 1 call (no model set)"
    assert (
        _titles(model="openai/nobody")[1] == "▶ Run scenario · 1 call (no price for openai/nobody)"
    )
    assert lens_note(Estimate(), "m", {}) == ""


def test_litellm_prices_are_read_without_importing_litellm() -> None:
    program = (
        "import sys\n"
        "from checkspec.engine.spec.document import analyze\n"
        "from checkspec.server.analysis.lenses import code_lenses\n"
        f"text = {SUITE!r}\n"
        "lenses = code_lenses(analyze(text, 's.suite.yaml'), text, model='openai/gpt-4o-mini')\n"
        "assert lenses[1].title.startswith('▶ Run scenario · ≈ $'), lenses[1].title\n"
        "assert 'litellm' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
