"""Input generators: simulated users and dataset prompts that feed multi-turn interactions."""

from .base import BaseLLMGenerator, LLMGenerator
from .dataset import DatasetInputGenerator
from .user import UserSimulator

__all__ = ["BaseLLMGenerator", "DatasetInputGenerator", "LLMGenerator", "UserSimulator"]
