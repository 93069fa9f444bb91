"""The reference library's `utils.inference` module: the target type-hint helpers under
their names there (`_infer_input_type`, `_infer_trace_type`), over core/inference.py and
core/trace.py."""

from __future__ import annotations

from .inference import infer_input_type, parameter_hints
from .inference import infer_input_type as _infer_input_type
from .inference import parameter_hints as _get_param_hints
from .trace import infer_trace_type
from .trace import infer_trace_type as _infer_trace_type

__all__ = [
    "_get_param_hints",
    "_infer_input_type",
    "_infer_trace_type",
    "infer_input_type",
    "infer_trace_type",
    "parameter_hints",
]
