"""The commands the server offers (code lenses and clients call them by these names).

A module of its own, importing nothing: the server registers its commands before it
answers `initialize`, without loading the analysis.
"""

RUN_SCENARIO = "checkspec.runScenario"  # arguments: [uri, scenario index]
RUN_FILE = "checkspec.runFile"  # arguments: [uri]
SHOW_LAST_RUN = "checkspec.showLastRun"  # arguments: [uri, scenario index]
