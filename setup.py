"""Maps the repository folders onto the namespaced import names.

engine/ is imported as checkspec.engine, server/ as checkspec.server and schemas/
(generated JSON Schemas, data only) as checkspec.schemas. Sub-packages are found by
walking the folders so a new one needs no edit here.
"""

import re
from pathlib import Path

from setuptools import setup

ROOTS = {"checkspec.engine": "engine", "checkspec.server": "server", "checkspec.schemas": "schemas"}
# Folders of data files only (no __init__.py): declared as packages of their own, as
# setuptools wants for anything importable, with their files as that package's data.
DATA_ONLY = {
    "checkspec.engine.judges.prompts": "engine/judges/prompts",
    "checkspec.engine.html.assets": "engine/html/assets",
}


def _packages() -> tuple[list[str], dict[str, str]]:
    packages: list[str] = []
    package_dir: dict[str, str] = {}
    for name, folder in ROOTS.items():
        for init in sorted(Path(folder).rglob("__init__.py")):
            rel = init.parent.relative_to(folder).parts
            pkg = ".".join((name, *rel))
            packages.append(pkg)
            package_dir[pkg] = str(init.parent)
    for pkg, folder in DATA_ONLY.items():
        packages.append(pkg)
        package_dir[pkg] = folder
    return packages, package_dir


def _version() -> str:
    """engine/version.py's VERSION, read without importing the package."""
    text = Path("engine/version.py").read_text(encoding="utf-8")
    found = re.search(r'^VERSION = "([^"]+)"$', text, re.MULTILINE)
    if found is None:
        raise RuntimeError("engine/version.py does not set VERSION")
    return found.group(1)


packages, package_dir = _packages()
setup(
    version=_version(),
    packages=packages,
    package_dir=package_dir,
    package_data={
        "checkspec.schemas": ["*.json"],
        "checkspec.engine.judges.prompts": ["*.j2"],
        "checkspec.engine.generators.prompts": ["*.j2"],
        "checkspec.engine": ["py.typed"],
        "checkspec.engine.html.assets": ["*.html", "*.css", "*.js"],
        "checkspec.server": ["initialize_answers.json"],
    },
    include_package_data=True,
)
