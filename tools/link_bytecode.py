"""Link the bytecode compiled at install into the PYTHONPYCACHEPREFIX tree.

The test targets set PYTHONPYCACHEPREFIX (Makefile: the environment here sets
PYTHONDONTWRITEBYTECODE). Python then looks for bytecode only under the prefix, so on a
clean clone every process of the suite compiled litellm, ray, pydantic, ... afresh until
one of them had written it there (about 4.5 s of CPU a process importing them cold),
although pip had compiled all of it into site-packages' __pycache__ folders (and the
interpreter's installer the standard library into its own). This links
those files (hard links; copies across file systems) where the prefix is looked in.
Each .pyc names the size and time of its source, so Python still checks it is current.

    PYTHONPYCACHEPREFIX=build/pycache python tools/link_bytecode.py
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import sysconfig
from pathlib import Path


def linked(site: Path, skip: frozenset[str] = frozenset()) -> int:
    """Link each current-interpreter .pyc of `site` (less its top folders named in `skip`)
    to its place under the prefix; the number linked (those already there are left)."""
    suffix = f".{sys.implementation.cache_tag}.pyc"  # not .opt-1 / .opt-2
    count = 0
    for folder, dirs, files in os.walk(site):
        if folder == str(site):
            dirs[:] = [d for d in dirs if d not in skip]
        if os.path.basename(folder) != "__pycache__":
            continue
        for name in files:
            if not name.endswith(suffix):
                continue
            source = Path(folder).parent / (name[: -len(suffix)] + ".py")
            if not source.is_file():
                continue
            target = Path(importlib.util.cache_from_source(str(source)))
            if target.exists():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(os.path.join(folder, name), target)
            except OSError:
                shutil.copyfile(os.path.join(folder, name), target)
            count += 1
    return count


def main() -> int:
    if not sys.pycache_prefix:
        print("link_bytecode: PYTHONPYCACHEPREFIX is not set: nothing to do", file=sys.stderr)
        return 0
    paths = sysconfig.get_paths()
    # The standard library's too (under a prefix, asyncio, json, email... are compiled
    # afresh as well), less the interpreter's own site-packages and its test suite.
    stdlib = Path(paths["stdlib"])
    count = linked(stdlib, frozenset({"site-packages", "test", "idlelib", "tkinter"}))
    for site in sorted({Path(paths["purelib"]), Path(paths["platlib"])}):
        count += linked(site)
    print(f"linked {count} bytecode file(s) under {sys.pycache_prefix}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
