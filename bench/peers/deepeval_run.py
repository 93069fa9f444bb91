"""DeepEval's Synthesizer generating goldens from documents, run in its own venv by
bench/generate.py --peers.

    python deepeval_run.py BASE_URL DOCS_FOLDER COUNT
"""

import json
import math
import sys
from pathlib import Path

import offline_tiktoken  # noqa: F401 (before anything counts tokens)
from deepeval.models import OpenAIEmbeddingModel, OpenAIModel
from deepeval.synthesizer import Synthesizer
from deepeval.synthesizer.config import ContextConstructionConfig

base, docs, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
files = [str(p) for p in sorted(docs.rglob("*.md"))]
model = OpenAIModel(model="gpt-4.1-mini", base_url=base, api_key="sk-bench")
embedder = OpenAIEmbeddingModel(model="text-embedding-3-small", base_url=base, api_key="sk-bench")
per_context = 2
contexts = max(1, math.ceil(count / (per_context * len(files))))
config = ContextConstructionConfig(
    embedder=embedder,
    critic_model=model,
    max_contexts_per_document=contexts,
    min_contexts_per_document=1,
)
synthesizer = Synthesizer(model=model, max_concurrent=50)
goldens = synthesizer.generate_goldens_from_docs(
    document_paths=files,
    max_goldens_per_context=per_context,
    context_construction_config=config,
    _send_data=False,
)
print(json.dumps({"questions": len(goldens)}))
