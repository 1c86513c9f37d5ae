# The sourcegate container action (action.yml: runs.using docker, image Dockerfile), and the
# prebuilt image that .github/workflows/release.yml publishes to GHCR.
#
# Base: Debian 12 slim with CPython 3.12, pinned by exact version tag AND by digest, so a
# rebuild gets the same bytes (the digest wins when both are given; the tag is for humans and
# for Dependabot, which updates both together). To move to a newer base, change both. No
# `# syntax=` directive: it would pull a frontend image by a moving tag; every instruction here
# is one the builder's own frontend reads.
ARG PYTHON_IMAGE=python:3.12.12-slim-bookworm@sha256:593bd06efe90efa80dc4eee3948be7c0fde4134606dd40d8dd8dbcade98e669c

# ---- build: install sourcegate and its dependencies into a venv, from the lock
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore
# git comes from Debian here and only its main binary is copied on (see below).
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Only what the wheel needs: the metadata (pyproject.toml names README.md as the long
# description), the locks and the package. Tests, examples, the snapshots and .git stay out
# (.dockerignore).
COPY pyproject.toml README.md requirements.txt requirements-build.txt ./
COPY gate ./gate
# Every byte installed comes from the lock, checked against its hashes: the venv gets exactly
# requirements.txt (the runtime and the openai extra, for the judge-provider input's openai
# provider), and sourcegate's own wheel is built here by the locked build backend, without
# isolation (an isolated build would fetch whatever setuptools the registry serves that day) and
# without dependencies (they are the lock's). A venv without pip: the build stage's pip installs
# into it (pip --python). Every dependency ships wheels for x86_64 and aarch64, so no compiler is
# needed. Byte code is compiled now so the action starts fast and never writes into the read-only
# install at run time.
RUN python -m pip install --require-hashes --no-deps -r requirements-build.txt \
 && python -m pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/wheel . \
 && python -m venv --without-pip /opt/sourcegate \
 && python -m pip --python /opt/sourcegate/bin/python install --require-hashes --no-deps -r requirements.txt \
 && python -m pip --python /opt/sourcegate/bin/python install --no-deps /tmp/wheel/sourcegate-*.whl \
 && python -m pip --python /opt/sourcegate/bin/python check \
 && /opt/sourcegate/bin/python -c "import gate.action, gate.cli"

# ---- runtime: the slim base, the venv, and the git binary; no pip cache, apt lists or compiler
FROM ${PYTHON_IMAGE}
LABEL org.opencontainers.image.title="sourcegate" \
      org.opencontainers.image.description="Merge gate for search-augmented LLM agents: did the agent read what it cites?" \
      org.opencontainers.image.licenses="Apache-2.0"
# The gate reads the baseline from the PR's base commit (`git show BASE:path`, `git rev-parse`,
# `git diff --name-only`) and the action trusts the mounted workspace (`git config --global
# --add safe.directory`). All of these are builtins of the one `git` binary, which needs only
# libc, zlib and libpcre2 (all in the base). Debian's git package would also bring Perl, the
# remote helpers and the man pages: about 95 MB that the gate never runs.
COPY --from=build /usr/bin/git /usr/bin/git
COPY --from=build /opt/sourcegate /opt/sourcegate
ENV PATH=/opt/sourcegate/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
# Fail the build, not a user's workflow, if the copied git or the install is broken.
RUN git --version \
 && printf 'sourcegate' | git hash-object --stdin \
 && python -c "import gate.action, gate.cli, gate.github"
# No USER instruction: GitHub runs container actions as the image's default user and documents
# that actions must run as root to access GITHUB_WORKSPACE and the file-command files
# (/github/workspace and /github/file_commands are mounted from the runner, owned by another
# uid). The gate never executes code from the repository: it parses JSON and YAML with safe
# loaders and calls git with argument lists, never a shell.
ENTRYPOINT ["python", "-m", "gate.action"]
