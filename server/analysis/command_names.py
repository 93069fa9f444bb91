"""The commands the server offers (code lenses and clients call them by these names).

A module of its own, importing nothing: the server registers its commands before it
answers `initialize`, without loading the analysis.
"""

RUN_SCENARIO = "checkspec.runScenario"  # arguments: [uri, scenario index]
RUN_FILE = "checkspec.runFile"  # arguments: [uri]
SHOW_LAST_RUN = "checkspec.showLastRun"  # arguments: [uri, scenario index]
# arguments: [{persona | preset | docs: [paths] | like: path, output: path, count, topics, types,
# turns, seed, append, force}]; answers {status, output, count, summary, messages}
GENERATE = "checkspec.generate"
# arguments: [{docs: [paths]}] or [] for presets; answers {topics: [{name, chunks}]} / {presets}
LIST_TOPICS = "checkspec.listTopics"
LIST_PRESETS = "checkspec.listPresets"
# arguments: [uri, [scenario indexes], operation, value?]; answers a WorkspaceEdit (JSON)
CURATE = "checkspec.curate"
# Editor-side commands the curation code actions carry (the VS Code extension asks for a
# tag, a file or a text with a quick pick or an input box, then calls CURATE):
# arguments [uri, [scenario indexes]].
PICK_TAG = "checkspec.curate.pickTag"
PICK_FILE = "checkspec.curate.pickFile"
ASK_COMMENT = "checkspec.curate.askComment"
LIST_TAGS = "checkspec.listTags"  # no arguments; answers {tag: count} over the workspace
# arguments: [uri]; answers {html, title, base, head} (the compare page of the file's last
# two recorded runs) or {error}
COMPARE_WITH_PREVIOUS = "checkspec.compareWithPrevious"
# arguments: [uri, [scenario indexes]]: runs them against their target in the worker
# processes and applies (workspace/applyEdit) the edit writing each interaction's live
# outputs; answers {recorded, drifts, skipped, applied, edit}
RECORD_OUTPUTS = "checkspec.recordOutputs"
# arguments: [uri]: judges the file's labelled checks (`expect:`) on their recorded answers
# in the worker processes, as `checkspec calibrate` does, keeps the calibration in the
# history; answers {labels, judges: [numbers], text, cancelled} or {error}
CALIBRATE_FILE = "checkspec.calibrateFile"
