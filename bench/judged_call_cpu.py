"""CPU per judged call (issue 30, item 4): `checkspec run` against a bare litellm loop and
a bare openai SDK loop, each calling the same OpenAI-compatible stub, which runs in its
own process so that its CPU is nobody's.

    .venv/bin/python bench/judged_call_cpu.py [--sizes 200 1000] [--concurrency 32]

For each client, the CPU (user + system) of its whole process tree at each size; the
per-call figure is the slope between the sizes (start-up, litellm's import included,
falls out), the intercept is the start-up. `checkspec run` runs `judged_suite(N)` (one
recorded answer and one `conformity` judge a scenario) with `--jobs 1 --no-cache`, so
every scenario makes one chat request (`llm_client` auto, the openai SDK's direct path,
and again with `llm_client: litellm`); the bare loops send the same prompt N times at
the same concurrency with `response_format` JSON mode, as the judge does.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.support.openai_stub import judged_suite  # noqa: E402

STUB = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {repo!r})
    from tests.support.openai_stub import OpenAIStub, SlowVerdicts
    stub = OpenAIStub()
    stub.chat = SlowVerdicts(0.0)
    stub.start()
    print(stub.base_url, flush=True)
    sys.stdin.read()  # until the bench closes it
    """
)

LOOP = textwrap.dedent(
    """
    import asyncio, os, sys
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    n, concurrency, base, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    prompt = "Rule: apologises. Answer: Sorry, case 1. Say whether the answer follows it."
    messages = [{{"role": "user", "content": prompt}}]
    if kind == "litellm":
        import litellm
        litellm.telemetry = False
        async def call():
            r = await litellm.acompletion(model="openai/judge", messages=messages,
                api_base=base, api_key="sk-bench", response_format={{"type": "json_object"}})
            return r.choices[0].message.content
    else:
        import openai
        client = openai.AsyncOpenAI(base_url=base, api_key="sk-bench")
        async def call():
            r = await client.chat.completions.create(model="judge", messages=messages,
                response_format={{"type": "json_object"}})
            return r.choices[0].message.content
    async def main():
        gate = asyncio.Semaphore(concurrency)
        async def one():
            async with gate:
                return await call()
        answers = await asyncio.gather(*(one() for _ in range(n)))
        assert all('"passed": true' in a for a in answers), answers[:1]
    asyncio.run(main())
    """
)


def tree_cpu(command: list[str], **kwargs: object) -> float:
    """CPU seconds of `command` and every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}): {done.stderr[-800:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def checkspec_run(n: int, base: str, concurrency: int, client: str = "auto") -> float:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "j.suite.yaml").write_text(judged_suite(n))
        env = {
            **os.environ,
            "CHECKSPEC_API_BASE": base,
            "CHECKSPEC_API_KEY": "sk-bench",
            "CHECKSPEC_MODEL": "openai/judge",
            "CHECKSPEC_LLM_CLIENT": client,
        }
        env.pop("CHECKSPEC_CACHE_DIR", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        command = [sys.executable, "-m", "checkspec.engine.cli.main", "run", "."]
        command += ["--jobs", "1", "--concurrency", str(concurrency), "--no-cache"]
        command += ["--no-history"] if _has_history_flag() else []
        return tree_cpu(command, cwd=folder, env=env)


def _has_history_flag() -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "checkspec.engine.cli.main", "run", "--help"],
        capture_output=True,
        text=True,
    )
    return "--no-history" in done.stdout


def bare_loop(kind: str, n: int, base: str, concurrency: int) -> float:
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    script = LOOP.format()
    return tree_cpu([sys.executable, "-c", script, str(n), str(concurrency), base, kind], env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=[200, 1000])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=1, help="best of R at each size")
    parser.add_argument(
        "--only", choices=("checkspec", "checkspec-litellm", "litellm", "openai"), nargs="*"
    )
    args = parser.parse_args()
    stub = subprocess.Popen(
        [sys.executable, "-c", STUB.format(repo=str(REPO))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert stub.stdout is not None
        base = stub.stdout.readline().strip()
        print(f"stub {base} (own process); sizes {args.sizes}, concurrency {args.concurrency}")
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        clients = {
            "checkspec run": lambda n: checkspec_run(n, base, args.concurrency),
            "checkspec run (litellm)": lambda n: checkspec_run(
                n, base, args.concurrency, "litellm"
            ),
            "bare litellm.acompletion": lambda n: bare_loop("litellm", n, base, args.concurrency),
            "bare openai SDK": lambda n: bare_loop("openai", n, base, args.concurrency),
        }
        keys = {"checkspec": "checkspec run", "litellm": "bare litellm.acompletion"}
        keys["checkspec-litellm"] = "checkspec run (litellm)"
        keys["openai"] = "bare openai SDK"
        wanted = {keys[k] for k in args.only} if args.only else set(clients)
        small, big = args.sizes
        for name, run in clients.items():
            if name not in wanted:
                continue
            low = min(run(small) for _ in range(args.rounds))
            high = min(run(big) for _ in range(args.rounds))
            per_call = (high - low) / (big - small)
            start = low - per_call * small
            print(
                f"{name:<26} {low:6.2f} s at {small}, {high:6.2f} s at {big}: "
                f"{per_call * 1000:5.2f} ms a call, start-up {start:5.2f} s"
            )
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        if stub.stdin:
            stub.stdin.close()
        stub.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
