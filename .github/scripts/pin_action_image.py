"""Name the released image by digest in action.yml: ``image: Dockerfile`` becomes ``image: docker://REF``.

The release workflow runs it on the commit it releases, once the image is published, so that the
release's ``action.yml`` pulls that image (``docker://ghcr.io/OWNER/REPO@sha256:...``) instead of
building the Dockerfile on every run. Standard library only: it runs on a bare runner.

    python3 .github/scripts/pin_action_image.py action.yml docker://ghcr.io/owner/repo@sha256:<64 hex>
"""

from __future__ import annotations

import re
import sys

IMAGE_LINE = re.compile(r"^(  image: )Dockerfile[ \t]*$", re.MULTILINE)
"""The one ``image:`` of ``runs:`` in action.yml as main has it."""
PUBLISHED = re.compile(r"^docker://ghcr\.io/[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._/-]*@sha256:[0-9a-f]{64}$")
"""A published image named by digest (GHCR names are lower case)."""


def pinned(text: str, image: str) -> str:
    """``text`` (an action.yml) running ``image`` instead of building the Dockerfile."""
    if not PUBLISHED.match(image):
        raise ValueError(f"not an image named by digest: {image!r} (expected docker://ghcr.io/OWNER/REPO@sha256:...)")
    new, count = IMAGE_LINE.subn(lambda m: m.group(1) + image, text)
    if count != 1:
        raise ValueError(f"expected one `image: Dockerfile` line under runs:, found {count}")
    return new


def main(argv: list[str]) -> int:
    """Rewrite the action.yml named in ``argv`` in place; exit 2 on a wrong image or file."""
    if len(argv) != 2:
        print("usage: pin_action_image.py ACTION_YML docker://ghcr.io/OWNER/REPO@sha256:DIGEST", file=sys.stderr)
        return 2
    path, image = argv
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        new = pinned(text, image)
    except ValueError as e:
        print(f"pin_action_image: {path}: {e}", file=sys.stderr)
        return 2
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"{path}: runs {image}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
