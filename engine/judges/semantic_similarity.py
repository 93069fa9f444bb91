"""semantic_similarity: cosine similarity of the answer's and the reference's embeddings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pydantic import AliasChoices, Field

from ..core.check import NO_MODEL_CALLS, Check, ModelCalls
from ..core.jsonpath import JSONPathStr, NoMatch, provided_or_resolve, resolve
from ..core.result import CheckResult, Metric
from ..core.sentinel import MISSING
from ..core.trace import TraceType
from ..core.typevars import InputType, OutputType
from ..llm.client import embed
from ..llm.endpoints import EmbeddingModel, is_external_embedding_model
from ..llm.errors import ProviderError
from ..llm.external import embed_texts
from ..llm.usage import metered
from .mixins import WithEmbeddingMixin

NO_EMBEDDING_MODEL_MESSAGE = (
    "No embedding model configured: set CHECKSPEC_EMBEDDING_MODEL "
    "(e.g. openai/text-embedding-3-small), `embedding_model:` in checkspec.yaml, "
    "or the check's embedding_model"
)


@Check.register("semantic_similarity")
class SemanticSimilarity(Check[InputType, OutputType, TraceType], WithEmbeddingMixin):
    """Passes when the answer's meaning is close enough to the reference text."""

    threshold: float = Field(
        default=0.95,
        ge=0.0,
        le=1.0,
        description="Lowest cosine similarity (0.0 to 1.0) that passes.",
    )
    reference_text: str | MISSING = Field(
        default=MISSING,
        description=(
            "The expected answer, given literally; takes priority over reference_text_key."
        ),
    )
    reference_text_key: JSONPathStr = Field(
        default="trace.last.metadata.reference_text",
        description="JSONPath to the reference text (used when reference_text is not given).",
    )
    target_key: JSONPathStr = Field(
        # checks-reference names this selector actual_answer_key: accepted too.
        validation_alias=AliasChoices("target_key", "actual_answer_key"),
        default="trace.last.outputs",
        description="JSONPath to the answer under test.",
    )

    async def get_embeddings(self, texts: list[str]) -> list[Any]:
        """One embedding vector per text (ProviderError when the call fails)."""
        model = self._embedding_model
        if is_external_embedding_model(model):
            return await embed_texts(model, texts)
        return await embed(model, texts)

    def model_calls(self) -> ModelCalls:
        """One embedding request (the answer and the reference together), when the
        embedding model is reached through our client."""
        model = self._embedding_model
        if isinstance(model, EmbeddingModel) and model.model:
            return ModelCalls(model.model, 1)
        return NO_MODEL_CALLS

    async def run(self, trace: Any) -> CheckResult:
        return await metered(self._similarity(trace))

    async def _similarity(self, trace: Any) -> CheckResult:
        model = self._embedding_model
        if isinstance(model, EmbeddingModel) and not model.model:
            return CheckResult.error(NO_EMBEDDING_MODEL_MESSAGE)
        reference = provided_or_resolve(
            trace, key=self.reference_text_key, value=self.reference_text
        )
        where = {"reference_text_key": self.reference_text_key, "reference_text": reference}
        if isinstance(reference, NoMatch):
            return CheckResult.error(
                f"No value found for reference text key '{self.reference_text_key}'.", where
            )
        if reference is None or reference == "":
            return CheckResult.error("No reference text found", where)
        actual = resolve(trace, self.target_key)
        where = {"actual_answer": actual, "target_key": self.target_key}
        if isinstance(actual, NoMatch):
            return CheckResult.error(
                f"No value found for actual answer key '{self.target_key}'.", where
            )
        if actual is None or actual == "":
            return CheckResult.error("No actual answer found", where)
        for label, key, value in (
            ("reference text", self.reference_text_key, reference),
            ("actual answer", self.target_key, actual),
        ):
            if isinstance(value, list | tuple | set | dict):
                # A wildcard path gave several values: a repr is not what anybody wrote.
                return CheckResult.failure(
                    f"Value for {label} key '{key}' must be a single value, but found "
                    f"{type(value).__name__}. Use a key that resolves to one value.",
                    {
                        "reference_text_key": self.reference_text_key,
                        "target_key": self.target_key,
                        "value": str(value),
                    },
                )
        actual, reference = str(actual), str(reference)
        details: dict[str, Any] = {
            "threshold": self.threshold,
            "actual_answer": actual,
            "reference_text": reference,
            "model": getattr(model, "model", None) or type(model).__name__,
        }
        try:
            actual_vector, reference_vector = await self.get_embeddings([actual, reference])
            similarity = cosine_similarity(actual_vector, reference_vector)
        except ProviderError as exc:
            return CheckResult.error(str(exc), details)
        except ValueError as exc:
            return CheckResult.error(
                f"The embedding model returned vectors that cannot be compared: {exc}", details
            )
        details["similarity"] = similarity
        metrics = [Metric(name="similarity", value=similarity)]
        if similarity >= self.threshold:
            return CheckResult.success(
                f"The cosine similarity with the reference answer is {similarity:.2f} which "
                f"is greater than the threshold {self.threshold:.2f}",
                details,
                metrics,
            )
        return CheckResult.failure(
            f"The cosine similarity with the reference answer is {similarity:.2f} which is "
            f"less than the threshold {self.threshold:.2f}",
            details,
            metrics,
        )


def cosine_similarity(a: Sequence[float] | Any, b: Sequence[float] | Any) -> float:
    """Cosine of the angle between two vectors (lists, tuples or numpy arrays).

    Raises ValueError for vectors of different lengths, empty ones or a null vector.
    """
    left = [float(x) for x in a]
    right = [float(y) for y in b]
    if len(left) != len(right):
        raise ValueError(f"vectors of different lengths ({len(left)} and {len(right)})")
    norm = math.sqrt(math.fsum(x * x for x in left)) * math.sqrt(math.fsum(y * y for y in right))
    if norm == 0:
        raise ValueError("Cannot calculate cosine similarity for null vectors")
    return math.fsum(x * y for x, y in zip(left, right, strict=True)) / norm
