"""The generator, judge and embedding-model fields shared by checks and generators.

`WithJudgeMixin` keeps one source of truth: `judge`. `generator=` is still accepted (a
constructor argument, an attribute to set, a `model_copy` update) and becomes
`judge=LLMChatJudge(generator=...)`; `generator` reads back the judge's generator and
is never dumped, as in the reference library.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, model_validator

from ..llm.endpoints import GeneratorInput
from ..llm.model_fields import WithEmbeddingMixin, WithGeneratorMixin
from .backends import BaseJudge, JudgeInput, LLMChatJudge, get_default_judge


class WithJudgeMixin(WithGeneratorMixin):
    """A `judge` field (None: the default judge), with `generator` as its legacy spelling."""

    judge: JudgeInput = Field(
        default=None,
        description=(
            "Judge backend: an LLM (`{kind: llm, generator: ...}` or a model name) or a "
            "System One Model; when left out, the default judge (the default model)."
        ),
    )
    generator: GeneratorInput = Field(
        default=None,
        exclude=True,
        description=(
            "LLM used as judge (a model name or settings): the same as judge with kind llm; "
            "settings left out come from the default model."
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _one_of_generator_or_judge(cls, data: Any) -> Any:
        given = isinstance(data, dict) and data.get("generator") is not None
        if given and data.get("judge") is not None:
            raise ValueError("Cannot provide both 'generator' and 'judge'")
        return data

    @model_validator(mode="after")
    def _generator_and_judge_agree(self) -> Any:
        # Validated in its own field (so errors point at `generator`), then moved.
        if self.generator is not None and self.judge is None:
            object.__setattr__(self, "judge", LLMChatJudge(generator=self.generator))
            self.__pydantic_fields_set__.add("judge")
        judge = self.judge
        object.__setattr__(
            self, "generator", judge.generator if isinstance(judge, LLMChatJudge) else None
        )
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "generator":
            name, value = "judge", None if value is None else LLMChatJudge(generator=value)
        elif name == "judge" and value is not None:
            value = BaseJudge.parse(value)
        super().__setattr__(name, value)
        if name == "judge":
            generator = value.generator if isinstance(value, LLMChatJudge) else None
            object.__setattr__(self, "generator", generator)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        # model_copy skips validators: move a generator update to the judge here.
        patch = dict(update) if update is not None else None
        if patch is not None:
            if "generator" in patch and "judge" in patch:
                raise ValueError("Cannot provide both 'generator' and 'judge'")
            if "generator" in patch:
                generator = patch.pop("generator")
                patch["judge"] = None if generator is None else LLMChatJudge(generator=generator)
            elif patch.get("judge") is not None:
                patch["judge"] = BaseJudge.parse(patch["judge"])
        copied = super().model_copy(update=patch, deep=deep)
        judge = copied.judge
        object.__setattr__(
            copied, "generator", judge.generator if isinstance(judge, LLMChatJudge) else None
        )
        return copied

    @property
    def _judge(self) -> BaseJudge:
        """The configured judge, or the default one."""
        return self.judge if self.judge is not None else get_default_judge()


__all__ = ["WithEmbeddingMixin", "WithGeneratorMixin", "WithJudgeMixin"]
