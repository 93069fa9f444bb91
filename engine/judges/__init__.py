"""LLM judges and embedding checks; importing this package registers them.

Importing it does not import litellm: that happens on the first model call.
"""

from ..llm.client import clear_cache
from ..llm.endpoints import (
    EmbeddingModel,
    Generator,
    get_default_embedding_model,
    get_default_generator,
    set_default_embedding_model,
    set_default_generator,
)
from ..llm.errors import ProviderError
from ..llm.prompts import PromptError
from .answer_relevance import AnswerRelevance
from .backends import BaseJudge, LLMChatJudge, SOMJudge, get_default_judge, set_default_judge
from .base import BaseLLMCheck, CheckInputError, render_prompt, template_syntax_error
from .conformity import Conformity
from .contradiction import Contradiction
from .groundedness import Groundedness
from .hub import HubCheck, HubConformity, HubCorrectness, HubGroundedness
from .judge import LLMJudge
from .mixins import WithEmbeddingMixin, WithGeneratorMixin, WithJudgeMixin
from .semantic_similarity import SemanticSimilarity
from .toxicity import TOXICITY_CATEGORIES, Toxicity
from .verdict import LLMCheckResult, VerdictError

__all__ = [
    "TOXICITY_CATEGORIES",
    "AnswerRelevance",
    "BaseJudge",
    "BaseLLMCheck",
    "CheckInputError",
    "Conformity",
    "Contradiction",
    "EmbeddingModel",
    "Generator",
    "Groundedness",
    "HubCheck",
    "HubConformity",
    "HubCorrectness",
    "HubGroundedness",
    "LLMChatJudge",
    "LLMCheckResult",
    "LLMJudge",
    "PromptError",
    "ProviderError",
    "SOMJudge",
    "SemanticSimilarity",
    "Toxicity",
    "VerdictError",
    "WithEmbeddingMixin",
    "WithGeneratorMixin",
    "WithJudgeMixin",
    "clear_cache",
    "get_default_embedding_model",
    "get_default_generator",
    "get_default_judge",
    "render_prompt",
    "set_default_embedding_model",
    "set_default_generator",
    "set_default_judge",
    "template_syntax_error",
]
