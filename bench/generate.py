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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=5.0, help="knowledge base size (MB)")
    parser.add_argument("--count", type=int, default=100, help="scenarios to generate")
    parser.add_argument("--latency", type=float, default=0.3, help="stub seconds per answer")
    parser.add_argument("--concurrency", type=int, help="requests in flight (default: 8)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
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
