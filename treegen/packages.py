"""The optional packages treegen imports where it uses them, and the name pip installs each by on this
platform: every hint to install one (verify's for a target or a library, the importers' for a pickle) says
it through :func:`pip_name`."""
from __future__ import annotations

import platform

PIP_NAMES = {"sklearn": "scikit-learn"}  # where a package is installed by another name than it is imported by
# Where XGBoost has wheels without CUDA (xgboost-cpu; the plain package brings 351 MB of NCCL on Linux x86-64),
# as (platform.system(), platform.machine()): pyproject.toml's [xgboost] extra chooses by the same rule
XGBOOST_CPU_PLATFORMS = {("Linux", "x86_64"), ("Linux", "aarch64"), ("Windows", "AMD64")}


def package_hint(package: str, extra: str) -> str:
    """How to install a package treegen runs a target or a library with (treegen itself is not on PyPI:
    that name is another project's, so ``pip install 'treegen[EXTRA]'`` would install it)."""
    return f"needs the {package} package: pip install {pip_name(package)} (treegen's [{extra}] extra)"


def pip_name(package: str) -> str:
    """The name to pip install an imported package by, on this platform."""
    if package == "xgboost" and (platform.system(), platform.machine()) in XGBOOST_CPU_PLATFORMS:
        return "xgboost-cpu"
    return PIP_NAMES.get(package, package)
