"""semantic_similarity: cosine similarity of the answer's and the reference's embeddings."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from pydantic import AliasChoices, Field

from ..core.check import DATASET_TEXT_KEY, Check
from ..core.jsonpath import JSONPathStr, NoMatch, provided_or_resolve, resolve
from ..core.result import CheckResult, Metric
from ..core.sentinel import MISSING
from ..core.trace import Trace
from .config import EmbeddingModel, get_default_embedding_model
from .llm import ProviderError, embed
from .templates import as_text

NO_EMBEDDING_MODEL_MESSAGE = (
    "No embedding model configured: set CHECKSPEC_EMBEDDING_MODEL "
    "(e.g. openai/text-embedding-3-small), `embedding_model:` in checkspec.yaml, "
    "or the check's embedding_model"
)


@Check.register("semantic_similarity")
class SemanticSimilarity(Check):
    """Passes when the answer's meaning is close enough to the reference text."""

    # Dataset files hold chat-format inputs and outputs.
    dataset_overrides: ClassVar[dict[str, Any]] = {"actual_answer_key": DATASET_TEXT_KEY}

    reference_text: str | MISSING = Field(  # type: ignore[valid-type]
        default=MISSING,
        description=(
            "The expected answer, given literally; takes priority over reference_text_key."
        ),
    )
    reference_text_key: JSONPathStr = Field(
        default="trace.last.metadata.reference_text",
        description="JSONPath to the reference text (used when reference_text is not given).",
    )
    actual_answer_key: JSONPathStr = Field(
        # The hub names the selector of the value under test target_key: accept both.
        validation_alias=AliasChoices("actual_answer_key", "target_key"),
        default="trace.last.outputs",
        description="JSONPath to the answer under test.",
    )
    threshold: float = Field(
        default=0.95,
        ge=0.0,
        le=1.0,
        description="Lowest cosine similarity (0.0 to 1.0) that passes.",
    )
    embedding_model: str | None = Field(
        default=None,
        description=(
            "Embedding model (litellm name, e.g. openai/text-embedding-3-small); default: "
            "CHECKSPEC_EMBEDDING_MODEL or `embedding_model:` in checkspec.yaml."
        ),
    )

    def resolved_embedding_model(self) -> EmbeddingModel:
        default = get_default_embedding_model()
        if self.embedding_model is None:
            return default
        return default.model_copy(update={"model": self.embedding_model})

    async def run(self, trace: Trace) -> CheckResult:
        model = self.resolved_embedding_model()
        if not model.model:
            return CheckResult.error(NO_EMBEDDING_MODEL_MESSAGE)
        reference = provided_or_resolve(
            trace, key=self.reference_text_key, value=self.reference_text
        )
        actual = resolve(trace, self.actual_answer_key)
        details: dict[str, Any] = {
            "model": model.model,
            "reference_text": reference,
            "actual_answer": actual,
            "threshold": self.threshold,
        }
        if isinstance(reference, NoMatch):
            return CheckResult.error(
                f"No value found for reference_text_key '{self.reference_text_key}'.", details
            )
        if isinstance(actual, NoMatch):
            return CheckResult.error(
                f"No value found for actual_answer_key '{self.actual_answer_key}'.", details
            )
        try:
            reference_vector, actual_vector = await embed(
                model, [as_text(reference), as_text(actual)]
            )
        except ProviderError as exc:
            return CheckResult.error(str(exc), details)
        similarity = cosine_similarity(reference_vector, actual_vector)
        if similarity is None:
            return CheckResult.error(
                "The embedding model returned vectors that cannot be compared "
                "(different lengths or all zeros).",
                details,
            )
        details["similarity"] = similarity
        metrics = [Metric(name="similarity", value=similarity)]
        if similarity >= self.threshold:
            return CheckResult.success(
                f"Similarity {similarity:.3f} meets the threshold {self.threshold}.",
                details,
                metrics,
            )
        return CheckResult.failure(
            f"Similarity {similarity:.3f} is below the threshold {self.threshold}.",
            details,
            metrics,
        )


def cosine_similarity(a: list[float], b: list[float]) -> float | None:
    """Cosine of the angle between two vectors; None when it is undefined."""
    if len(a) != len(b) or not a:
        return None
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    if norm == 0:
        return None
    return math.fsum(x * y for x, y in zip(a, b, strict=True)) / norm
