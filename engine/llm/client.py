"""Every call to an LLM or embedding provider goes through here.

Models written `openai/NAME` (an OpenAI-compatible endpoint: OpenAI itself, a proxy, a
local server) are called straight through the openai SDK, one shared client per endpoint
and event loop; every other provider goes through litellm. litellm costs 2.5 s to import
and about twice the SDK's CPU a call (bench/README.md, "CPU of a judged call"); the
`llm_client` setting `litellm` sends everything through litellm. litellm is imported on
first use, never at engine import, and told not to fetch anything (cost maps, header
catalogs) before it loads.
Calls get our own bounded retries with exponential backoff on provider errors, a
per-event-loop concurrency limit, and a per-event-loop cache of successful answers
(one run is one event loop), so identical judge calls in a run cost one request.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import re
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar

from ..core import redact
from . import dry_run, limits, snapshot, usage, verdict_cache
from .answers import extract_json_object
from .endpoints import EmbeddingModel, Generator, _Endpoint
from .errors import ProviderError

T = TypeVar("T")

# Beyond the provider's own timeout: a hard stop so a stuck connection cannot hang a run.
_TIMEOUT_GRACE = 5.0
_CACHE_SIZE = 2048
_MESSAGE_LIMIT = 500
_OFFLINE_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_OFFLINE_MODE": "true",
}

_litellm_module: ModuleType | None = None
# Models that rejected response_format: later calls go without it.
_no_json_mode: set[str] = set()


class _NoRetries(int):
    """Zero retries that is truthy: litellm's embedding path reads `max_retries or 2`,
    which would turn a plain 0 into the SDK's own retries on top of ours."""

    def __bool__(self) -> bool:
        return True


NO_SDK_RETRIES = _NoRetries(0)


@dataclass
class _LoopState:
    semaphores: dict[int, asyncio.Semaphore] = field(default_factory=dict)
    cache: OrderedDict[Hashable, asyncio.Future[Any]] = field(default_factory=OrderedDict)
    # openai SDK clients by endpoint: their connection pool belongs to this event loop.
    clients: dict[tuple[str | None, str | None, float], Any] = field(default_factory=dict)


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
    weakref.WeakKeyDictionary()
)


def _state() -> _LoopState:
    loop = asyncio.get_running_loop()
    state = _loops.get(loop)
    if state is None:
        state = _loops[loop] = _LoopState()
    return state


# The repeat a scenario's calls belong to (`checkspec run --repeat K`): 0 for the first run,
# which caches as any run does; 1..K-1 for the repeats, whose calls neither read nor fill
# the verdict cache and share answers only within their own repeat (a stochastic judge is
# asked again each time).
_repeat: contextvars.ContextVar[int] = contextvars.ContextVar("checkspec_repeat", default=0)


async def in_repeat(number: int, work: Awaitable[T]) -> T:
    """Await `work` as repeat `number` of its scenario (0: the first run)."""
    _repeat.set(number)  # this task's own context: the caller's is untouched
    return await work


def clear_cache() -> None:
    """Forget every cached answer (all event loops)."""
    for state in list(_loops.values()):
        state.cache.clear()


# litellm and the openai SDK both import httpx. Two threads importing them at once (the
# warm-up's litellm beside a first call's openai) could see httpx partially initialised
# ("partially initialized module 'httpx' has no attribute 'URL'"); one lock keeps the
# imports of either one thread's at a time.
_import_lock = threading.RLock()


def _litellm() -> ModuleType:
    global _litellm_module
    if _litellm_module is None:
        with _import_lock:
            if _litellm_module is None:
                for name, value in _OFFLINE_ENV.items():
                    os.environ.setdefault(name, value)
                import litellm

                litellm.telemetry = False
                litellm.suppress_debug_info = True  # no "Give Feedback" banners on errors
                _litellm_module = litellm
    return _litellm_module


def litellm_module() -> ModuleType:
    """litellm, imported offline (no price map or header catalog fetched): for the questions
    only it can answer before a run (llm/routable.py: can it route this model's name?)."""
    return _litellm()


def sent_directly(model: str | None) -> bool:
    """Whether calls to `model` go straight to an OpenAI-compatible endpoint (the openai
    SDK, `openai/NAME`), not through litellm."""
    return _direct_name(model) is not None


def _openai() -> ModuleType:
    """The openai SDK, imported under the lock the warm-up's litellm import holds."""
    module = sys.modules.get("openai")
    if module is not None and getattr(module, "AsyncOpenAI", None) is not None:
        return module
    with _import_lock:
        import openai

        return openai


def warm_up(model: str | None = None) -> None:
    """Import what calls to `model` need now, in a background thread, so a first call does
    not wait for it (a batch job such as `checkspec generate` reads its input meanwhile):
    the openai SDK alone for a model sent straight to its endpoint, else litellm."""
    if _direct_name(model):
        threading.Thread(target=_openai, name="openai-import", daemon=True).start()
    else:
        threading.Thread(target=_litellm, name="litellm-import", daemon=True).start()


def price_map() -> Mapping[str, Any]:
    """litellm's local price map (model -> input_cost_per_token, output_cost_per_token...):
    litellm's own when it is loaded, else its file read as JSON (no import)."""
    if _litellm_module is not None:
        model_cost: Mapping[str, Any] = _litellm_module.model_cost
        return model_cost
    return usage.litellm_price_file()


# -- the direct path -----------------------------------------------------------------------

_DIRECT_PREFIX = "openai/"


def set_llm_client(mode: str) -> None:
    """`auto`: `openai/` models through the openai SDK, the rest through litellm;
    `litellm`: everything through litellm (the `llm_client` setting). Outside a run (a
    run's is its settings'): recorded in the snapshot's CodeDefaults."""
    snapshot.set_code_defaults(llm_client=mode)


def _direct_name(model: str | None) -> str | None:
    """The name to send straight to an OpenAI-compatible endpoint, or None (litellm)."""
    direct = snapshot.effective().llm_client != "litellm"
    if not direct or not model or not model.startswith(_DIRECT_PREFIX):
        return None
    return model[len(_DIRECT_PREFIX) :] or None


def _sdk_client(endpoint: _Endpoint) -> Any:
    """The event loop's openai SDK client for `endpoint` (made at its first call).

    Like litellm's openai provider: no api_base means OPENAI_BASE_URL, else OpenAI's; no
    key means OPENAI_API_KEY (the SDK says so when neither is set). Retries are ours.
    """
    openai = _openai()

    key = (endpoint.api_base, endpoint.secret(), endpoint.timeout)
    clients = _state().clients
    client = clients.get(key)
    if client is None:
        client = clients[key] = openai.AsyncOpenAI(
            base_url=endpoint.api_base or snapshot.effective().sdk_api_base or None,
            api_key=endpoint.secret(),
            timeout=endpoint.timeout,
            max_retries=0,
        )
    return client


async def _direct_chat(
    generator: Generator, name: str, prompt: str, response_format: dict[str, Any] | None
) -> Any:
    body: dict[str, Any] = {"model": name, "messages": [{"role": "user", "content": prompt}]}
    if response_format:
        body["response_format"] = response_format
    if generator.temperature is not None:
        body["temperature"] = generator.temperature
    return await _sdk_post(generator, "/chat/completions", body)


async def _sdk_post(endpoint: _Endpoint, path: str, body: dict[str, Any]) -> Any:
    """The SDK's request (auth, base URL, its errors with status and headers) with the
    body sent as given and the answer kept as parsed JSON: its typed layer (the request's
    transform and the response's models) is a third of its CPU a call, and we read three
    fields of the answer."""
    return await _sdk_client(endpoint).post(path, cast_to=object, body=body)


# -- public calls ------------------------------------------------------------------------


async def complete_json(
    generator: Generator,
    prompt: str,
    validate: Callable[[dict[str, Any]], Any] | None = None,
) -> dict[str, Any]:
    """The JSON object the model answers to `prompt` (one user message).

    `validate` runs on the object before it is cached; raising there rejects the answer,
    so only usable answers are reused. Raises ProviderError or VerdictError.
    """
    key = ("chat", generator.model, generator.api_base, generator.temperature, prompt)
    if (plan := dry_run.active()) is not None:
        return _planned(plan, key, generator.model, [prompt])

    async def compute() -> dict[str, Any]:
        tokens = limits.estimate_tokens(prompt)
        text = await _with_retries(generator, lambda: _chat_once(generator, prompt), tokens)
        data = extract_json_object(text)
        if validate is not None:
            validate(data)
        return data

    return await _cached(key, compute)


async def embed(model: EmbeddingModel, texts: list[str]) -> list[list[float]]:
    """One embedding vector per text. Raises ProviderError."""
    key = ("embed", model.model, model.api_base, tuple(texts))
    if (plan := dry_run.active()) is not None:
        return _planned(plan, key, model.model, texts)
    tokens = sum(limits.estimate_tokens(text) for text in texts)
    return await _cached(
        key, lambda: _with_retries(model, lambda: _embed_once(model, texts), tokens)
    )


def _planned(plan: dry_run.Plan, key: Hashable, model: str | None, texts: list[str]) -> Any:
    """A dry run's call: a stored answer is counted cached and given; else counted, not sent."""
    counted = plan.of(model)
    stored = verdict_cache.get(verdict_cache.key_of(*key))  # type: ignore[misc]
    if stored is not None:
        counted.cached += 1
        return stored
    counted.calls += 1
    counted.prompt_tokens += _token_count(model, texts)
    raise dry_run.NotSent(f"not sent: dry run ({model})")


def _token_count(model: str | None, texts: list[str]) -> int:
    """litellm's count of the prompt's tokens (its tokenizer for the model, offline)."""
    messages = [{"role": "user", "content": text} for text in texts]
    try:
        return int(_litellm().token_counter(model=model or "", messages=messages))
    except Exception:  # a model litellm cannot count for: about four characters a token
        return sum(len(text) // 4 for text in texts)


# -- one attempt -----------------------------------------------------------------------


def _chat_kwargs(generator: Generator, prompt: str) -> dict[str, Any]:
    """litellm's arguments for one user message to `generator`."""
    return {
        "model": generator.model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": generator.temperature,
        "api_base": generator.api_base,
        "api_key": generator.secret(),
        "timeout": generator.timeout,
        # Retries are ours (bounded, with backoff): litellm and the SDKs must not add theirs.
        "num_retries": 0,
        "max_retries": NO_SDK_RETRIES,
    }


async def _chat_once(generator: Generator, prompt: str) -> str | None:
    """One request, in JSON mode where the model takes it (a refusal turns it off)."""
    if (name := _direct_name(generator.model)) is not None:
        json_mode = None if generator.model in _no_json_mode else {"type": "json_object"}
        if json_mode is not None:
            try:
                response = await _direct_chat(generator, name, prompt, json_mode)
            except Exception as exc:
                if not _rejects_json_mode(exc):
                    raise
                if _reached_provider(exc):  # the provider's refusal was a request of its own
                    usage.record_failed()
                _no_json_mode.add(str(generator.model))
            else:
                return _recorded(generator, response)
        return _recorded(generator, await _direct_chat(generator, name, prompt, None))
    litellm = _litellm()
    kwargs = _chat_kwargs(generator, prompt)
    json_mode = _json_mode(litellm, generator.model)
    if json_mode is not None:
        try:
            response = await litellm.acompletion(**kwargs, response_format=json_mode)
        except Exception as exc:
            if not _rejects_json_mode(exc):
                raise
            if _reached_provider(exc):  # litellm's own refusal (UnsupportedParams) sent nothing
                usage.record_failed()
            _no_json_mode.add(str(generator.model))
        else:
            return _recorded(generator, response)
    return _recorded(generator, await litellm.acompletion(**kwargs))


def _json_mode(litellm: ModuleType, model: str | None) -> dict[str, str] | None:
    if not model or model in _no_json_mode:
        return None
    try:
        name, provider, _, _ = litellm.get_llm_provider(model)
        params = litellm.get_supported_openai_params(model=name, custom_llm_provider=provider)
    except Exception:
        return None  # unknown to litellm: ask without it rather than fail
    return {"type": "json_object"} if params and "response_format" in params else None


def _rejects_json_mode(exc: Exception) -> bool:
    litellm = _litellm_module  # set when the call went through litellm
    if litellm is not None and isinstance(exc, litellm.UnsupportedParamsError):
        return True
    return getattr(exc, "status_code", None) in (400, 422) and "response_format" in str(exc)


def _content(response: Any) -> str | None:
    if isinstance(response, Mapping):  # the direct path's parsed JSON
        choices = response.get("choices") or []
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, Mapping) else None
        content = message.get("content") if isinstance(message, Mapping) else None
        return content if content is None or isinstance(content, str) else str(content)
    choices = getattr(response, "choices", None) or []
    if not choices:
        return None
    content = choices[0].message.content
    return content if content is None or isinstance(content, str) else str(content)


async def _embed_once(model: EmbeddingModel, texts: list[str]) -> list[list[float]]:
    if (name := _direct_name(model.model)) is not None:
        response = await _sdk_post(model, "/embeddings", {"model": name, "input": texts})
    else:
        response = await _litellm().aembedding(
            model=model.model,
            input=texts,
            api_base=model.api_base,
            api_key=model.secret(),
            timeout=model.timeout,
            num_retries=0,
            max_retries=NO_SDK_RETRIES,
        )
    limits.settle(usage.record_request(model.model, response, price_map()))
    data = response.get("data") if isinstance(response, Mapping) else response.data
    if not isinstance(data, list):
        raise ProviderError("the embedding model's answer has no list of vectors")
    vectors = [_vector(item) for item in data]
    if len(vectors) != len(texts):
        raise ProviderError(f"the embedding model returned {len(vectors)} vectors for {len(texts)}")
    return vectors


def _vector(item: Any) -> list[float]:
    values = item["embedding"] if isinstance(item, dict) else item.embedding
    return [float(v) for v in values]


# -- retries, concurrency, cache -------------------------------------------------------


async def _with_retries(
    endpoint: _Endpoint, attempt: Callable[[], Awaitable[T]], tokens: int = 0
) -> T:
    attempts = endpoint.max_retries + 1
    semaphore = _semaphore(endpoint.max_concurrency)
    # Held against the run's budget while the call is in flight (at most its estimate).
    cost = _estimated_cost(endpoint.model, tokens) if limits.gated() else 0.0
    for number in range(1, attempts + 1):
        pause = endpoint.retry_backoff * 2 ** (number - 1)
        try:
            # The slots (this process's, the run's limits) are held for the request only,
            # not while backing off; the timeout starts once the request may go.
            async with semaphore, limits.turn(endpoint.model, tokens, cost):
                async with asyncio.timeout(endpoint.timeout + _TIMEOUT_GRACE):
                    return await attempt()
        except ProviderError:
            raise
        except Exception as exc:
            if _reached_provider(exc):
                usage.record_failed()
            if number == attempts or not _retryable(exc):
                raise ProviderError(_describe(exc, endpoint, number)) from exc
            pause = max(pause, retry_after(exc) or 0.0)
        await asyncio.sleep(pause)
    raise AssertionError("unreachable")


def _estimated_cost(model: str | None, tokens: int) -> float:
    """Dollars a call of `tokens` (prompt estimate plus the answer's bound) may cost."""
    price = usage.price_of(model, price_map())
    if price is None:
        return 0.0  # no known price: the budget cannot count it
    prompt = max(0, tokens - limits.ANSWER_TOKENS)
    return prompt * price[0] + limits.ANSWER_TOKENS * price[1]


_MAX_RETRY_AFTER = 120.0


def retry_after(exc: BaseException) -> float | None:
    """The seconds a 429 (or 503) answer's Retry-After header asks to wait, if any."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    headers = headers or getattr(exc, "litellm_response_headers", None) or {}
    try:
        raw = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except (TypeError, ValueError):
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(str(raw))
        except (TypeError, ValueError):
            return None
        import datetime

        seconds = (when - datetime.datetime.now(datetime.UTC)).total_seconds()
    return min(max(seconds, 0.0), _MAX_RETRY_AFTER)


def _reached_provider(exc: BaseException) -> bool:
    """Whether a failed attempt was a request the provider saw: an HTTP answer is among its
    causes (a 429, a 500, a refused option), or it timed out once sent. A connection that
    could not be made sent nothing, nor did litellm's own refusals before any request (an
    unknown provider, credentials in the URL): litellm reports those with a status of its
    own and a placeholder answer, so only the SDK's and httpx's errors are taken as one."""
    import httpx

    if _not_connected(exc) is not None:
        return False
    openai = _openai()
    for link in _causes(exc):
        if isinstance(link, TimeoutError | httpx.TimeoutException | openai.APITimeoutError):
            return True
        if isinstance(link, httpx.HTTPStatusError):
            return True
        if isinstance(link, openai.APIStatusError) and not type(link).__module__.startswith(
            "litellm"
        ):
            return True
    return False


def _causes(exc: BaseException) -> list[BaseException]:
    """`exc` and what it was raised from, outermost first (litellm wraps the SDK's error,
    which wraps httpx's, which wraps the socket's)."""
    chain: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and len(chain) < 16 and all(link is not c for c in chain):
        chain.append(link)
        link = link.__cause__ or link.__context__
    return chain


def _not_connected(exc: BaseException) -> BaseException | None:
    """The cause saying no connection was made (refused, no such host, unreachable), if
    that is why the attempt failed: nothing was sent."""
    import socket

    import httpx  # a dependency of litellm and of the openai SDK (loaded with either)

    for link in _causes(exc):
        if isinstance(
            link,
            httpx.ConnectError | httpx.ConnectTimeout | ConnectionRefusedError | socket.gaierror,
        ):
            return link
        if type(link).__name__ == "ClientConnectorError":  # aiohttp's, under litellm
            return link
    return None


def _network_url(exc: BaseException, endpoint: _Endpoint) -> str:
    """The address a failed connection was for, without credentials or query: the
    request's (the openai SDK and httpx keep it), else the endpoint's base."""
    import httpx

    openai = _openai()
    for link in _causes(exc):
        # Only the transport's own errors: litellm's carry a placeholder request.
        if not isinstance(link, httpx.TransportError | openai.APIConnectionError):
            continue
        try:
            request = getattr(link, "request", None)
        except RuntimeError:  # httpx: an error made without its request
            request = None
        url = getattr(request, "url", None)
        if url is not None and getattr(url, "host", None):
            return shown_url(str(url))
    base = endpoint.api_base
    if base is None and _direct_name(endpoint.model) is not None:
        base = snapshot.effective().sdk_api_base or "https://api.openai.com/v1"
    return shown_url(base) if base else f"{endpoint.model}'s provider (its default address)"


def shown_url(url: str) -> str:
    """`url` as a message may show it: no user:password, no query (keys travel there),
    no fragment."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "(an address that does not parse)"
    if ":" in host:  # IPv6
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _retryable(exc: Exception) -> bool:
    """Worth another try: rate limits, server errors, timeouts, lost connections."""
    if isinstance(exc, TimeoutError | ConnectionError):
        return True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in (408, 429) or status >= 500
    openai = _openai()
    import httpx  # a dependency of litellm and of the openai SDK (loaded with it)

    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):  # timeouts too
        return True
    litellm = _litellm_module  # set when the call went through litellm
    return litellm is not None and isinstance(exc, litellm.APIConnectionError | litellm.Timeout)


def _describe(exc: Exception, endpoint: _Endpoint, attempts: int) -> str:
    message = str(exc) or type(exc).__name__
    if isinstance(exc, TimeoutError) and not str(exc):
        within = f"within {endpoint.timeout + _TIMEOUT_GRACE:g}s"
        message = f"no answer from {_network_url(exc, endpoint)} {within}"
    elif (refused := _not_connected(exc)) is not None:
        # "Connection error." alone does not say where: the address, then the cause.
        innermost = _causes(exc)[-1]  # the socket's own words, not a wrapper's
        reason = str(innermost) or str(refused) or type(refused).__name__
        message = f"cannot connect to {_network_url(exc, endpoint)}: {reason}"
    elif _is_network_error(exc):
        message = f"{_network_url(exc, endpoint)}: {message}"  # first: long ones are cut
    # The endpoint's own key (even a short one), then every secret the process holds and
    # those of URLs: an endpoint may echo any of them (core/redact.py).
    message = snapshot.redactor().text(mask_secret(message, endpoint.secret()))
    if len(message) > _MESSAGE_LIMIT:
        message = message[:_MESSAGE_LIMIT] + "..."
    tries = f"after {attempts} attempts" if attempts > 1 else "(not retried)"
    return f"The call to {endpoint.model} failed {tries}: {message}"


def _is_network_error(exc: BaseException) -> bool:
    """A connection lost or timed out (not an HTTP answer): the address says where."""
    import httpx

    return not isinstance(getattr(exc, "status_code", None), int) and any(
        isinstance(link, httpx.TransportError | ConnectionError) for link in _causes(exc)
    )


def mask_secret(message: str, secret: str | None) -> str:
    """`message` with each whole occurrence of `secret` masked (core/redact.py's `mask`).

    Only where it stands as a token of its own: a short key such as "E" must not turn
    "OpenAIException" into "OpenAI***xception".
    """
    if not secret:
        return message
    edge = r"[A-Za-z0-9_\-]"
    shown = redact.mask(secret)
    return re.sub(rf"(?<!{edge}){re.escape(secret)}(?!{edge})", lambda _: shown, message)


def _semaphore(limit: int) -> asyncio.Semaphore:
    semaphores = _state().semaphores
    semaphore = semaphores.get(limit)
    if semaphore is None:
        semaphore = semaphores[limit] = asyncio.Semaphore(limit)
    return semaphore


async def _cached(key: Hashable, compute: Callable[[], Awaitable[T]]) -> T:
    """Share one computation per key and loop; failed ones are forgotten, not cached.

    Answers are also kept between runs (verdict_cache.py): a stored one needs no request.
    """
    cache = _state().cache
    round_ = _repeat.get()
    if round_:
        key = ("repeat", round_, key)
    future = cache.get(key)
    if future is None and round_:
        future = asyncio.ensure_future(compute())
        cache[key] = future
        future.add_done_callback(lambda done: _forget_failure(cache, key, done))
        _evict(cache)
    elif future is None:
        stored_key = verdict_cache.key_of(*key)  # type: ignore[misc]
        stored = verdict_cache.get(stored_key)
        if stored is not None:
            usage.record_cached()
            return stored
        future = asyncio.ensure_future(_and_store(compute, stored_key))
        cache[key] = future
        future.add_done_callback(lambda done: _forget_failure(cache, key, done))
        _evict(cache)
    else:
        cache.move_to_end(key)
        usage.record_cached()  # answered by (or waiting on) the same call of this run
    # shield: a caller cancelled mid-wait must not cancel the call others are waiting on.
    return await asyncio.shield(future)


async def _and_store(compute: Callable[[], Awaitable[T]], stored_key: str) -> T:
    value = await compute()  # a provider error or a rejected answer raises: nothing stored
    verdict_cache.put(stored_key, value)
    return value


def _forget_failure(
    cache: OrderedDict[Hashable, asyncio.Future[Any]], key: Hashable, done: asyncio.Future[Any]
) -> None:
    if (done.cancelled() or done.exception() is not None) and cache.get(key) is done:
        del cache[key]


def _evict(cache: OrderedDict[Hashable, asyncio.Future[Any]]) -> None:
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


# -- structured output -------------------------------------------------------------------

# Models that refused a `json_schema` response_format: later calls put the schema in the
# prompt instead (JSON mode, when they take it).
_no_schema_mode: set[str] = set()
SCHEMA_INSTRUCTION = (
    "\n\nAnswer with one JSON object, and nothing else, that validates against this JSON Schema:\n"
)


class AnswerError(ValueError):
    """The model's answers did not validate, after the retries an invalid answer gets."""

    def __init__(self, problem: str, raw: str | None, attempts: int) -> None:
        self.problem = problem
        self.raw = raw
        self.attempts = attempts
        clip = "none" if raw is None else repr(raw.strip()[:300])
        super().__init__(
            f"the model's answer is not valid after {attempts} attempt(s): {problem} "
            f"(last answer: {clip})"
        )


async def complete_structured(
    generator: Generator,
    prompt: str,
    schema: dict[str, Any],
    *,
    name: str = "answer",
    validate: Callable[[dict[str, Any]], Any] | None = None,
    invalid_retries: int = 2,
) -> dict[str, Any]:
    """The JSON object the model answers to `prompt`, valid against `schema`.

    Asks for structured output (`response_format` of type `json_schema`); a provider that
    refuses it is asked again in JSON mode with the schema in the prompt (and so for the
    rest of the process). An answer that is not valid (not JSON, not the schema, refused
    by `validate`) is asked for again up to `invalid_retries` times, then AnswerError.
    Valid answers are cached (in the run and, through verdict_cache, between runs) under
    the prompt and the schema. Raises ProviderError or AnswerError.
    """
    import jsonschema

    schema_text = json.dumps(schema, sort_keys=True)
    key = (
        "structured",
        generator.model,
        generator.api_base,
        generator.temperature,
        prompt,
        schema_text,
    )
    if (plan := dry_run.active()) is not None:
        return _planned(plan, key, generator.model, [prompt])
    checker = jsonschema.Draft202012Validator(schema)

    async def compute() -> dict[str, Any]:
        tokens = limits.estimate_tokens(prompt + schema_text)
        problem, raw = "", None
        for _ in range(invalid_retries + 1):
            raw = await _with_retries(
                generator, lambda: _structured_once(generator, prompt, schema, name), tokens
            )
            try:
                data = extract_json_object(raw)
            except ValueError as exc:
                problem = str(getattr(exc, "problem", exc))
                continue
            error = jsonschema.exceptions.best_match(checker.iter_errors(data))
            if error is not None:
                where = "/".join(str(p) for p in error.absolute_path) or "the answer"
                problem = f"{where}: {error.message}"
                continue
            try:
                if validate is not None:
                    validate(data)
            except ValueError as exc:
                problem = str(exc)
                continue
            return data
        raise AnswerError(problem, raw, invalid_retries + 1)

    return await _cached(key, compute)


async def _structured_once(
    generator: Generator, prompt: str, schema: dict[str, Any], name: str
) -> str | None:
    model = str(generator.model)
    if model not in _no_schema_mode:
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": False},
        }
        try:
            if (direct := _direct_name(generator.model)) is not None:
                response = await _direct_chat(generator, direct, prompt, response_format)
            else:
                response = await _litellm().acompletion(
                    **_chat_kwargs(generator, prompt), response_format=response_format
                )
        except Exception as exc:
            if not _rejects_json_mode(exc):
                raise
            if _reached_provider(exc):
                usage.record_failed()
            _no_schema_mode.add(model)
        else:
            return _recorded(generator, response)
    # Refused: the schema goes in the prompt, asked as any JSON answer is.
    return await _chat_once(generator, prompt + SCHEMA_INSTRUCTION + json.dumps(schema))


def _recorded(generator: Generator, response: Any) -> str | None:
    """The answer's text, its usage recorded as every call's is (usage.py, limits)."""
    limits.settle(usage.record_request(generator.model, response, price_map()))
    return _content(response)


__all__ = [
    "AnswerError",
    "ProviderError",
    "clear_cache",
    "complete_json",
    "complete_structured",
    "embed",
]
