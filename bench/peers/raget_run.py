"""RAGET (giskard) generating a test set, run in its own venv by bench/generate.py --peers.

python raget_run.py BASE_URL DOCS_FOLDER COUNT
"""

import json
import sys
from pathlib import Path

import giskard
import pandas as pd
from giskard.rag import KnowledgeBase, generate_testset

base, docs, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
giskard.llm.set_llm_model("openai/stub-model", api_base=base, api_key="sk-bench")
giskard.llm.set_embedding_model("openai/stub-embedding", api_base=base, api_key="sk-bench")
# RAGET takes rows of text: each file's paragraphs (its own chunker cuts longer ones).
rows = [
    part.strip()
    for path in sorted(docs.rglob("*.md"))
    for part in path.read_text(encoding="utf-8").split("\n\n")
    if len(part.strip()) > 40
]
kb = KnowledgeBase.from_pandas(pd.DataFrame({"text": rows}), columns=["text"], seed=0)
testset = generate_testset(kb, num_questions=count, agent_description="A documentation assistant")
print(json.dumps({"questions": len(testset.to_pandas())}))
