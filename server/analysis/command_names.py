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
