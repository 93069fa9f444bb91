"""Ragas generating a test set from documents, run in its own venv by
bench/generate.py --peers.

    python ragas_run.py BASE_URL DOCS_FOLDER COUNT
"""

import json
import sys
from pathlib import Path

import offline_tiktoken  # noqa: F401 (before anything counts tokens)
from langchain_core.documents import Document
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from ragas.testset import TestsetGenerator

base, docs, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
documents = [
    Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": str(p)})
    for p in sorted(docs.rglob("*.md"))
]
llm = ChatOpenAI(model="gpt-4o-mini", base_url=base, api_key="sk-bench")
embeddings = OpenAIEmbeddings(
    model="text-embedding-3-small",
    base_url=base,
    api_key="sk-bench",
    check_embedding_ctx_length=False,
)
generator = TestsetGenerator.from_langchain(llm, embeddings)
testset = generator.generate_with_langchain_docs(documents, testset_size=count)
print(json.dumps({"questions": len(testset.to_list())}))
