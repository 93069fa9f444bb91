"""Every model call: the one package that talks to LLM and embedding providers.

Judges, input generators (simulated users, LLM inputs) and embeddings call models only
through here; litellm is imported nowhere else, and only on the first call.

- snapshot.py: the run's settings snapshot (a context variable), the reading of the
  settings' variables (through engine/core/environment.py) and of what user code set
  with the reference API's setters, folded into each snapshot when it is made
- endpoints.py: which model a call goes to (read from the snapshot alone)
- client.py: the call itself (litellm; retries, timeouts, the in-run answer cache)
- limits.py: provider limits (parallel requests, requests and tokens per minute), shared
  by every worker of a run through the run's one limiter
- verdict_cache.py: answers kept between runs (SQLite)
- prompts.py, prompt_limits.py: prompt templates rendered in a sandbox, with bounds
- answers.py: the JSON object read out of a model's answer
- external.py: other libraries' generator and embedding objects, used by duck typing
- model_fields.py: the `generator` and `embedding_model` fields of checks and generators

Importing the package imports none of them.
"""
