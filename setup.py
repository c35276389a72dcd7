"""Ships ``docs/`` inside the wheel, as ``service/docs/`` (package data), so that an installed
service serves its pages (the players' rules, the contract, the digests) without the checkout.

Everything else about the build is in ``pyproject.toml``.  ``docs/`` stays at the repository's
root, where people read it; the build step copies its Markdown files into the built package
(``service.http.docs.docs_dir`` finds them there).  An editable install reads ``docs/`` in the
checkout instead, so it copies nothing.  ``MANIFEST.in`` puts ``docs/`` in the source
distribution, so a wheel built from it has them too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DOCS = Path(__file__).resolve().parent / "docs"


class BuildWithDocs(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        if not DOCS.is_dir():
            raise SystemExit(f"{DOCS} is missing: the wheel would serve no documentation")
        target = Path(self.build_lib) / "service" / "docs"
        for source in sorted(DOCS.rglob("*.md")):
            dest = target / source.relative_to(DOCS)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)


setup(cmdclass={"build_py": BuildWithDocs})
