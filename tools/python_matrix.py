"""`make pythons`: every extra CPython the machine has (pyenv's 3.12 and 3.13) installs the
package, generates the golden outputs identically (tests/golden, run by that interpreter: the
plugin runs on it) and passes a smoke subset. The full suite runs on the default interpreter.

A venv per interpreter lives under build/py/<version>, rebuilt when pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VERSIONS = ("3.12", "3.13")
SMOKE = [
    "tests/golden",
    "tests/unit/test_options.py",
    "tests/unit/test_import_public.py",
    "tests/unit/test_generate_command.py",
    "tests/behavior/test_wire.py",
]


def pyenv_root() -> Path | None:
    if os.environ.get("PYENV_ROOT"):
        return Path(os.environ["PYENV_ROOT"])
    if shutil.which("pyenv"):
        found = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=False)
        if found.returncode == 0:
            return Path(found.stdout.strip())
    return None


def interpreter(version: str) -> Path | None:
    """The newest pyenv CPython ``version``.x (free-threaded builds, ``t``, are not tried)."""
    root = pyenv_root()
    if root is None:
        return None
    found = sorted(root.glob(f"versions/{version}.*/bin/python{version}"),
                   key=lambda p: [int(part) for part in p.parts[-3].split(".") if part.isdigit()])
    return found[-1] if found else None


def venv(version: str, python: Path) -> Path:
    """build/py/<version> with the package (editable) and the smoke subset's test tools."""
    folder = REPO / "build" / "py" / version
    stamp = folder / ".installed"
    want = hashlib.sha256((REPO / "pyproject.toml").read_bytes() + str(python).encode()).hexdigest()
    if stamp.is_file() and stamp.read_text() == want:
        return folder / "bin" / "python"
    subprocess.run([str(python), "-m", "venv", "--clear", str(folder)], check=True)
    subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "-q", "-e", f"{REPO}[generate]",
                    "pytest", "hypothesis"], check=True)
    stamp.write_text(want)
    return folder / "bin" / "python"


def main() -> int:
    failed = []
    for version in VERSIONS:
        python = interpreter(version)
        if python is None:
            print(f"python {version}: not installed, skipped")
            continue
        print(f"python {version}: {python}", flush=True)
        result = subprocess.run([str(venv(version, python)), "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                                 *SMOKE], cwd=REPO, check=False)
        if result.returncode != 0:
            failed.append(version)
    if failed:
        print(f"failed on python {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
