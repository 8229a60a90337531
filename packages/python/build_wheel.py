"""Writes the ctxfuzz wheel from an already-built binary and the `ctxfuzz` package beside this file.

    python3 packages/python/build_wheel.py --binary PATH --platform TAG --out DIR

The version, summary and licence are the crate's, read from Cargo.toml (the one place a version
is written).

A wheel is a zip (PEP 427): the package's modules at the root, the binary under
`ctxfuzz-V.data/scripts/` (pip puts it on the environment's PATH, executable), and
`ctxfuzz-V.dist-info/` with METADATA, WHEEL and RECORD (every file's sha256 and size). The standard
library writes it; no build backend compiles anything (docs/decisions.md). The Python code is pure,
the binary is not, so the tag is `py3-none-PLATFORM`. Entries are written in a fixed order with a
fixed time, so the same inputs give the same bytes. Prints the wheel's path.
"""

import argparse
import base64
import hashlib
import os
import re
import sys
import tomllib
import zipfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent / "ctxfuzz"
CARGO_TOML = PACKAGE.parents[2] / "Cargo.toml"
# 1980-01-01, the earliest time a zip entry can hold: no build time leaks into the wheel.
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def crate():
    """(version, description, licence) of the root crate."""
    with open(CARGO_TOML, "rb") as file:
        manifest = tomllib.load(file)
    package = manifest["package"]
    return package["version"], package["description"], manifest["workspace"]["package"]["license"]


def metadata(version, summary, licence):
    return (
        "Metadata-Version: 2.1\n"
        "Name: ctxfuzz\n"
        f"Version: {version}\n"
        f"Summary: {summary}\n"
        f"License: {licence}\n"
        "Requires-Python: >=3.9\n"
    )


def wheel_file(platform):
    return (
        "Wheel-Version: 1.0\n"
        "Generator: ctxfuzz packages/python/build_wheel.py\n"
        "Root-Is-Purelib: false\n"
        f"Tag: py3-none-{platform}\n"
    )


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def add(wheel, name, data, executable=False):
    info = zipfile.ZipInfo(name, FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    wheel.writestr(info, data)
    return record_line(name, data)


def build(binary, platform, out):
    version, summary, licence = crate()
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        sys.exit(f"build_wheel.py: version {version!r} is not a release number PEP 440 reads as written (N.N.N)")
    if not os.access(binary, os.X_OK):
        sys.exit(f"build_wheel.py: {binary}: no executable binary there (build it first: cargo build --release)")
    data_dir, info_dir = f"ctxfuzz-{version}.data", f"ctxfuzz-{version}.dist-info"
    path = Path(out) / f"ctxfuzz-{version}-py3-none-{platform}.whl"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".whl.partial")
    with zipfile.ZipFile(partial, "w") as wheel:
        record = [
            add(wheel, f"ctxfuzz/{module.name}", module.read_bytes())
            for module in sorted(PACKAGE.glob("*.py"))
        ]
        record.append(add(wheel, f"{data_dir}/scripts/ctxfuzz", Path(binary).read_bytes(), executable=True))
        record.append(add(wheel, f"{info_dir}/METADATA", metadata(version, summary, licence).encode()))
        record.append(add(wheel, f"{info_dir}/WHEEL", wheel_file(platform).encode()))
        record.append(f"{info_dir}/RECORD,,\n")
        add(wheel, f"{info_dir}/RECORD", "".join(record).encode())
    partial.replace(path)  # a wheel half written is never taken for one
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--platform", required=True, help="the wheel's platform tag")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    print(build(args.binary, args.platform, args.out))


if __name__ == "__main__":
    main()
