"""What a model call raises when the provider fails."""


class ProviderError(RuntimeError):
    """The provider call failed (after the retries it was worth)."""


__all__ = ["ProviderError"]
