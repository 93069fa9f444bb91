"""`checkspec calibrate`: how far a suite's LLM judges agree with a person's labels.

A check may carry `expect: pass | fail` (core/check.py): a person's verdict on the
scenario's recorded output, allowed only on checks that call a model and only where the
scenario's answers are recorded (engine/spec says where not, as located errors).
Calibrating runs only the labelled checks, each on the trace its scenario's recorded
answers make, never calling the target: one job per labelled check (and per repeat),
through an executor, so judges and user code run in worker processes (run.py).

- `labels.py`: the labelled checks of the selected scenarios and the scenario a
  calibration of one of them runs (its steps up to the check, replayed).
- `metrics.py`: the pure arithmetic: confusion matrix (a failing verdict is the positive
  class), agreement, precision, recall, Cohen's kappa, self-consistency.
- `run.py`: running the labels through an executor, per judge model; `Calibration`.
- `render.py`: text, markdown, JSON and the HTML page.
- `history`: calibrations are kept in the run history (engine/history/store.py) and
  `checkspec compare` says when a judge's agreement dropped.
"""

# The formats of `checkspec calibrate` (here: building the parser loads nothing else).
FORMATS = ("text", "json", "markdown", "html")
