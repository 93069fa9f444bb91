"""Benchmarks of `checkspec generate` (issue 24's two budgets).

1. Chunking and topic detection of a 5 MB knowledge base (Markdown files without
   subfolders, so the topics are found by TF-IDF clustering; no model): our own CPU time,
   budget 10 s on the 2-core machine.
2. 100 scenarios from a knowledge base against the OpenAI-compatible stub answering each
   request in 300 ms: the wall time of the real CLI (`checkspec generate` in a
   subprocess, a fresh verdict cache), budget 15 s. A second run of the same command is
   timed too: it is answered from the verdict cache (0 requests).

    .venv/bin/python bench/generate.py              # both, 5 MB and 100 scenarios
    .venv/bin/python bench/generate.py --mb 1 --count 20 --json out.json

3. `--peers` (issue 38): checkspec side by side with RAGET (giskard), DeepEval's
   Synthesizer and Ragas, each in a venv of its own (made once under --venvs, from PyPI),
   on the same knowledge base (25 Markdown files, about 200 KB) and the same stand-in
   model answering in 300 ms (bench/peer_standin.py: valid answers to any peer's
   prompts), one tool at a time: wall and CPU time, requests, most in flight, questions
   made. A peer that cannot be installed, or fails, is reported with the reason.
   Goals: checkspec's wall time at most 1/5 of the fastest peer's, its CPU time at most
   half of the least peer's.

    .venv/bin/python bench/generate.py --peers --count 50
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VOCABULARIES = {
    "shipping": "parcel courier delivery tracking customs carrier warehouse dispatch postage "
    "freight label pickup doorstep express",
    "billing": "invoice payment refund charge card receipt subscription renewal discount "
    "voucher balance statement tax",
    "accounts": "password login profile email username verification security session device "
    "settings privacy recovery",
    "warranty": "defect repair replacement guarantee claim appliance manufacturer "
    "inspection technician spare coverage",
    "stores": "opening hours branch location parking staff appointment fitting "
    "counter queue holiday",
    "products": "blender kettle toaster oven fridge dishwasher vacuum heater fan "
    "microwave grinder mixer",
    "recycling": "battery packaging cardboard plastic disposal collection deposit "
    "electronic waste container sorting",
    "careers": "vacancy interview salary contract internship recruiter application "
    "training shift benefits",
}


SYLLABLES = [
    "ka",
    "zu",
    "mor",
    "vel",
    "tin",
    "dra",
    "pli",
    "so",
    "rek",
    "um",
    "fa",
    "gor",
    "lin",
    "bes",
    "tu",
    "qua",
]


def make_knowledge_base(folder: Path, megabytes: float, seed: int = 0) -> int:
    """Markdown files of sections whose words come from one topic's vocabulary each."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    target = int(megabytes * 1_000_000)
    written = 0
    number = 0
    filler = [
        "the",
        "a",
        "of",
        "to",
        "and",
        "for",
        "with",
        "on",
        "our",
        "your",
        "is",
        "are",
        "can",
        "be",
    ]
    while written < target:
        topic = rng.choice(sorted(VOCABULARIES))
        words = VOCABULARIES[topic].split()
        lines = [f"# {topic.title()} guide {number}", ""]
        for section in range(6):
            lines += [f"## {rng.choice(words).title()} {section}", ""]
            for _ in range(3):
                sentence = " ".join(
                    rng.choice(words) if rng.random() < 0.6 else rng.choice(filler)
                    for _ in range(rng.randint(12, 22))
                )
                unique = "".join(rng.choice(SYLLABLES) for _ in range(3))
                lines.append(f"{sentence.capitalize()} {unique}.")
            lines.append("")
        text = "\n".join(lines)
        (folder / f"doc{number:05d}.md").write_text(text, encoding="utf-8")
        written += len(text.encode())
        number += 1
    return written


def bench_topics(megabytes: float) -> dict[str, float]:
    import asyncio

    from checkspec.engine.generate.knowledge import load_knowledge_base
    from checkspec.engine.generate.pipeline import find_topics

    with tempfile.TemporaryDirectory() as tmp:
        size = make_knowledge_base(Path(tmp) / "kb", megabytes)
        cpu, wall = time.process_time(), time.perf_counter()
        kb = load_knowledge_base([Path(tmp) / "kb"])
        chunked_cpu = time.process_time() - cpu
        asyncio.run(find_topics(kb, None, None, seed=0))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {
        "bytes": size,
        "chunks": len(kb.chunks),
        "topics": len(kb.topics()),
        "chunking_cpu_s": round(chunked_cpu, 2),
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
    }


def bench_generation(count: int, latency: float, concurrency: int | None) -> dict[str, float]:
    from tests.support.openai_stub import GenerationAnswers, running_stub

    with tempfile.TemporaryDirectory() as tmp, running_stub() as stub:
        stub.chat = GenerationAnswers(latency=latency)
        kb = Path(tmp) / "kb"
        make_knowledge_base(kb, 0.3, seed=1)
        env = {
            **os.environ,
            "CHECKSPEC_MODEL": "openai/stub-model",
            "CHECKSPEC_API_BASE": stub.base_url,
            "CHECKSPEC_API_KEY": "sk-bench",
            "CHECKSPEC_CACHE_DIR": str(Path(tmp) / "cache"),
        }
        out = Path(tmp) / "out.dataset.yaml"
        command = [
            sys.executable,
            "-m",
            "checkspec.engine.cli.main",
            "generate",
            "--from-docs",
            str(kb),
            "-n",
            str(count),
            "-o",
            str(out),
            "--progress",
            "none",
        ]
        if concurrency:
            command += ["--concurrency", str(concurrency)]
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"generate failed ({done.returncode}): {done.stderr}")
        requests = len(stub.chat_requests)
        import yaml

        written = len(yaml.safe_load(out.read_text())["scenarios"])
        started = time.perf_counter()
        subprocess.run([*command, "--force"], env=env, capture_output=True, check=True)
        again = time.perf_counter() - started
        return {
            "scenarios": written,
            "requests": requests,
            "wall_s": round(wall, 2),
            "repeat_wall_s": round(again, 2),
            "repeat_requests": len(stub.chat_requests) - requests,
        }


# -- peers (issue 38) ------------------------------------------------------------------

PEERS: dict[str, tuple[str, tuple[str, ...], str]] = {
    # name: (venv, pip requirements, driver in bench/peers/). The pins beside each peer
    # are what its own requirements leave to a resolver that picks wrong on Python 3.11
    # with this machine's constraints (numpy 1.x, langchain 1.x removing what they import).
    "RAGET": ("raget", ("giskard[llm]==2.19.2", "datasets<4", "pyarrow<21"), "raget_run.py"),
    "DeepEval": (
        "deepeval",
        (
            "deepeval==4.3.1",
            "chromadb",
            "tiktoken",
            "langchain<1",
            "langchain-community<0.4",
            "langchain-text-splitters<1",
            "langchain-core<1",
            "click<8.4",
        ),
        "deepeval_run.py",
    ),
    "Ragas": (
        "ragas",
        (
            "ragas==0.4.3",
            "langchain<1",
            "langchain-community<0.4",
            "langchain-core<1",
            "langchain-openai<1",
            "rapidfuzz",
        ),
        "ragas_run.py",
    ),
}
PEER_FILES = 25


def peer_docs(folder: Path) -> Path:
    """25 Markdown files of about 8 KB (the bench's topic vocabularies), as a project's
    docs/ folder would hold."""
    with tempfile.TemporaryDirectory() as tmp:
        make_knowledge_base(Path(tmp), 0.2, seed=3)
        parts = sorted(Path(tmp).glob("*.md"))
        folder.mkdir(parents=True, exist_ok=True)
        for number in range(PEER_FILES):
            group = parts[number::PEER_FILES]
            text = "\n\n".join(p.read_text(encoding="utf-8") for p in group)
            (folder / f"page{number:02d}.md").write_text(text, encoding="utf-8")
    return folder


def ensure_venv(root: Path, name: str, requirements: tuple[str, ...]) -> tuple[Path | None, str]:
    """The venv's python, installed once (a stamp names what it holds); else why not."""
    venv = root / name
    python = venv / "bin" / "python"
    stamp = venv / "bench-requirements.txt"
    wanted = "\n".join(requirements)
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python, ""
    made = subprocess.run(
        [sys.executable, "-m", "venv", "--clear", str(venv)], capture_output=True, text=True
    )
    if made.returncode != 0:
        return None, f"venv: {made.stderr.strip()[-300:]}"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *requirements],
        capture_output=True,
        text=True,
    )
    if installed.returncode != 0:
        lines = [ln for ln in installed.stderr.splitlines() if "WARNING" not in ln]
        return None, "pip install failed: " + " / ".join(lines[-3:])
    stamp.write_text(wanted)
    return python, ""


def run_with_standin(command: list[str], latency: float, answerer: Any = None) -> dict[str, Any]:
    """Run `command` (a subprocess given the stand-in's URL as its 1st argument's {base})
    against the stand-in; its wall and CPU time, requests and the most in flight."""
    import http.server
    import resource

    from bench.peer_standin import PeerStandIn
    from tests.support.openai_stub import running_stub

    # Peers open tens of connections at once: a listen backlog to match.
    http.server.ThreadingHTTPServer.request_queue_size = 256
    standin = PeerStandIn(latency, answerer)
    with running_stub() as stub:
        stub.chat = standin.chat
        stub.embeddings = standin.embed
        env = {
            **os.environ,
            "OPENAI_API_KEY": "sk-bench",
            "CHECKSPEC_API_KEY": "sk-bench",
            "CHECKSPEC_MODEL": "openai/stub-model",
            "CHECKSPEC_API_BASE": stub.base_url,
            "GSK_DISABLE_ANALYTICS": "True",
            "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
            "RAGAS_DO_NOT_TRACK": "true",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "TOKENIZERS_PARALLELISM": "false",
        }
        argv = [part.replace("{base}", stub.base_url) for part in command]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        questions = None
        for line in reversed(done.stdout.splitlines()):
            if line.startswith("{"):
                questions = json.loads(line).get("questions")
                break
        return {
            "exit": done.returncode,
            "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1),
            "requests": standin.requests,
            "embedding_requests": len(stub.embedding_requests),
            "max_in_flight": standin.max_in_flight,
            "questions": questions,
            "error": "" if done.returncode == 0 else done.stderr.strip().splitlines()[-1:],
        }


def bench_peers(count: int, latency: float, venvs: Path) -> dict[str, Any]:
    from tests.support.openai_stub import GenerationAnswers

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        docs = peer_docs(Path(tmp) / "docs")
        out = Path(tmp) / "out.dataset.yaml"
        answers = GenerationAnswers()

        def ours(body: dict[str, Any]) -> str:
            return json.dumps(answers._answer(body["messages"][-1]["content"])[1])  # noqa: SLF001

        command = [sys.executable, "-m", "checkspec.engine.cli.main", "generate", "--from-docs"]
        command += [str(docs), "-n", str(count), "-o", str(out), "--progress", "none"]
        os.environ["CHECKSPEC_CACHE_DIR"] = str(Path(tmp) / "cache")
        result = run_with_standin(command, latency, ours)
        if result["exit"] == 0:
            import yaml

            result["questions"] = len(yaml.safe_load(out.read_text())["scenarios"])
        results["checkspec"] = result
        for name, (venv, requirements, driver) in PEERS.items():
            python, why = ensure_venv(venvs, venv, requirements)
            if python is None:
                results[name] = {"installed": False, "error": why}
                continue
            script = str(ROOT / "bench" / "peers" / driver)
            results[name] = run_with_standin(
                [str(python), script, "{base}", str(docs), str(count)], latency
            )
    return results


def print_peers(results: dict[str, Any]) -> bool:
    print("| tool | wall s | CPU s | requests | max in flight | questions |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, r in results.items():
        if r.get("installed") is False:
            print(f"| {name} | could not be installed: {r['error']} | | | | |")
        elif r["exit"] != 0:
            print(f"| {name} | failed (exit {r['exit']}): {' '.join(r['error'])} | | | | |")
        else:
            requests = r["requests"] + r["embedding_requests"]
            print(
                f"| {name} | {r['wall_s']} | {r['cpu_s']} | {requests} "
                f"({r['embedding_requests']} embedding) | {r['max_in_flight']} | {r['questions']} |"
            )
    ours = results["checkspec"]
    peers = [
        r
        for n, r in results.items()
        if n != "checkspec" and r.get("exit") == 0 and (r.get("questions") or 0) > 0
    ]
    if ours.get("exit") != 0 or not peers:
        return ours.get("exit") == 0
    fastest = min(r["wall_s"] for r in peers)
    least_cpu = min(r["cpu_s"] for r in peers)
    wall_ok = ours["wall_s"] <= fastest / 5
    cpu_ok = ours["cpu_s"] <= least_cpu / 2
    print(
        f"checkspec wall {ours['wall_s']} s vs fastest peer {fastest} s "
        f"({fastest / max(ours['wall_s'], 0.01):.1f}x; goal 5x: {'met' if wall_ok else 'missed'}); "
        f"CPU {ours['cpu_s']} s vs least peer {least_cpu} s "
        f"(goal half: {'met' if cpu_ok else 'missed'})"
    )
    return wall_ok and cpu_ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=5.0, help="knowledge base size (MB)")
    parser.add_argument("--count", type=int, default=100, help="scenarios to generate")
    parser.add_argument("--latency", type=float, default=0.3, help="stub seconds per answer")
    parser.add_argument("--concurrency", type=int, help="requests in flight (default: 8)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument(
        "--peers", action="store_true", help="checkspec beside RAGET, DeepEval and Ragas"
    )
    parser.add_argument(
        "--venvs",
        type=Path,
        default=Path.home() / ".cache" / "checkspec-bench" / "peers",
        help="where the peers' venvs are made (once)",
    )
    args = parser.parse_args()
    if args.peers:
        results = bench_peers(args.count, args.latency, args.venvs)
        ok = print_peers(results)
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
        return 0 if ok else 1
    topics = bench_topics(args.mb)
    print(
        f"chunking + topics of {topics['bytes'] / 1e6:.1f} MB: {topics['chunks']} chunks, "
        f"{topics['topics']} topics, {topics['cpu_s']} s CPU (chunking {topics['chunking_cpu_s']} s),"
        f" {topics['wall_s']} s wall  [budget 10 s CPU]"
    )
    generation = bench_generation(args.count, args.latency, args.concurrency)
    print(
        f"{generation['scenarios']} scenarios, {generation['requests']} requests at "
        f"{args.latency * 1000:.0f} ms: {generation['wall_s']} s wall  [budget 15 s]; "
        f"repeat: {generation['repeat_wall_s']} s, {generation['repeat_requests']} requests"
    )
    if args.json:
        args.json.write_text(json.dumps({"topics": topics, "generation": generation}, indent=2))
    ok = topics["cpu_s"] <= 10 and generation["wall_s"] <= 15
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
