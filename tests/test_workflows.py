"""Static checks of the action's metadata, its container and every workflow this repository ships.

Nothing here needs Docker or the network: ``action.yml`` is validated against SchemaStore's
published schema (copied to ``tests/fixtures/actions/``), the Dockerfile and ``.dockerignore`` are
read as text, and the workflows (ours and the users' examples) are checked for least privilege,
pinned third-party actions and the dangerous triggers.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from gate import action

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "tests" / "fixtures" / "actions" / "github-action.schema.json"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
EXAMPLES = sorted((ROOT / "examples").rglob("*.yml"))
ALL_WORKFLOWS = WORKFLOWS + EXAMPLES

SHA_PIN = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[^@\s]+)?@[0-9a-f]{40}$")
# Our own action in the examples: pinned like any third-party action, with a placeholder commit.
OWN_ACTION = re.compile(r"^sourcegate/sourcegate@[0-9a-f]{40}$")


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path} is not a mapping"
    return data


def _on(workflow: dict[str, Any]) -> Any:
    # YAML 1.1 reads the bare key `on` as the boolean True.
    return workflow.get("on", workflow.get(True))


def _triggers(workflow: dict[str, Any]) -> set[str]:
    on = _on(workflow)
    if isinstance(on, str):
        return {on}
    if isinstance(on, list):
        return set(on)
    return set(on or {})


def _steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in workflow["jobs"].items() for step in job.get("steps", [])]


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_there_are_workflows_and_examples_to_check() -> None:
    names = {_rel(p) for p in ALL_WORKFLOWS}
    assert {".github/workflows/ci.yml", ".github/workflows/self-test.yml", ".github/workflows/release.yml",
            "examples/sourcegate.yml", "examples/fork-safe/gate.yml",
            "examples/fork-safe/comment.yml"} <= names


# --------------------------------------------------------------------------------------------
# action.yml


@pytest.fixture(scope="module")
def metadata() -> dict[str, Any]:
    return _load(ROOT / "action.yml")


def test_action_yml_is_valid_against_the_published_schema(metadata: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(metadata)


def test_the_schema_rejects_what_github_would_reject(metadata: dict[str, Any]) -> None:
    # The validation above means something only if the schema can fail: a docker action without
    # an image, or an unknown top-level key, must not pass.
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    broken = {**metadata, "runs": {"using": "docker"}}
    assert not validator.is_valid(broken)
    assert not validator.is_valid({**metadata, "unknown": 1})


def test_the_action_is_a_container_built_from_the_dockerfile(metadata: dict[str, Any]) -> None:
    assert metadata["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert set(metadata["branding"]) == {"icon", "color"}


# --------------------------------------------------------------------------------------------
# The release: its action.yml runs the published image, by digest

RELEASE = ROOT / ".github" / "workflows" / "release.yml"
PIN_SCRIPT = ROOT / ".github" / "scripts" / "pin_action_image.py"
DIGEST = "sha256:" + "0123456789abcdef" * 4


def _pin_module() -> Any:
    spec = importlib.util.spec_from_file_location("pin_action_image", PIN_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_release_publishes_the_image_then_tags_a_commit_whose_action_runs_it_by_digest() -> None:
    release = _load(RELEASE)
    assert "workflow_dispatch" in _triggers(release) and "push" not in _triggers(release)
    image, action_job = release["jobs"]["image"], release["jobs"]["action"]
    build = next(s for s in image["steps"] if str(s.get("uses", "")).startswith("docker/build-push-action@"))
    assert build["id"] == "build" and build["with"]["push"] is True
    assert image["outputs"]["digest"] == "${{ steps.build.outputs.digest }}"
    assert action_job["needs"] == "image" and action_job["permissions"] == {"contents": "write"}
    steps = action_job["steps"]
    checkout = steps[0]
    assert checkout["with"]["ref"] == "${{ github.sha }}"  # the commit the image was built from
    pin = next(i for i, s in enumerate(steps) if ".github/scripts/pin_action_image.py action.yml" in s.get("run", ""))
    assert steps[pin]["env"]["DIGEST"] == "${{ needs.image.outputs.digest }}"
    assert '"docker://ghcr.io/${REPOSITORY,,}@$DIGEST"' in steps[pin]["run"]
    tag = next(i for i, s in enumerate(steps) if "HEAD:refs/tags/v$VERSION" in s.get("run", ""))
    assert pin < tag and "git commit" in steps[tag]["run"] and "action.yml" in steps[tag]["run"]
    assert "--force" not in steps[tag]["run"] and " -f " not in steps[tag]["run"]  # a release tag never moves


def test_the_release_action_yml_pulls_the_published_image_and_changes_nothing_else(tmp_path: Path) -> None:
    pin = _pin_module()
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    image = f"docker://ghcr.io/sourcegate/sourcegate@{DIGEST}"
    released = pin.pinned(text, image)
    before, after = yaml.safe_load(text), yaml.safe_load(released)
    assert after["runs"] == {"using": "docker", "image": image}
    assert {**after, "runs": before["runs"]} == before
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(after)
    # As the workflow runs it: a process of its own, rewriting the file in place.
    file = tmp_path / "action.yml"
    file.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(PIN_SCRIPT), str(file), image], capture_output=True, text=True)
    assert done.returncode == 0 and file.read_text(encoding="utf-8") == released


@pytest.mark.parametrize("image", ["docker://ghcr.io/sourcegate/sourcegate:1.4.0",  # a tag moves: not a pin
                                   "ghcr.io/sourcegate/sourcegate@" + DIGEST,
                                   "docker://ghcr.io/Sourcegate/sourcegate@" + DIGEST,
                                   "docker://ghcr.io/sourcegate/sourcegate@sha256:abc"])
def test_the_release_refuses_an_image_not_named_by_digest(image: str, tmp_path: Path) -> None:
    file = tmp_path / "action.yml"
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    file.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(PIN_SCRIPT), str(file), image], capture_output=True, text=True)
    assert done.returncode == 2 and "by digest" in done.stderr
    assert file.read_text(encoding="utf-8") == text  # nothing half-written


def test_a_released_action_yml_is_not_released_again() -> None:
    pin = _pin_module()
    released = pin.pinned((ROOT / "action.yml").read_text(encoding="utf-8"), f"docker://ghcr.io/a/b@{DIGEST}")
    with pytest.raises(ValueError, match="found 0"):
        pin.pinned(released, f"docker://ghcr.io/a/b@{DIGEST}")


def test_inputs_and_outputs_match_what_the_entrypoint_reads_and_writes(metadata: dict[str, Any]) -> None:
    assert list(metadata["inputs"]) == list(action.INPUT_NAMES)
    assert list(metadata["outputs"]) == list(action.OUTPUT_NAMES)
    for name, spec in {**metadata["inputs"], **metadata["outputs"]}.items():
        assert spec.get("description", "").strip(), f"{name} has no description"


def test_input_defaults_agree_with_the_entrypoint(metadata: dict[str, Any]) -> None:
    inputs = metadata["inputs"]
    env = {action.input_env_name(k): str(v["default"])
           for k, v in inputs.items() if "${{" not in str(v["default"])}
    parsed = action.read_inputs(env)
    assert parsed == action.Inputs(), "action.yml defaults must mean the same as an unset input"
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert not any(spec.get("required") for spec in inputs.values())


def test_no_input_is_interpolated_into_a_shell(metadata: dict[str, Any]) -> None:
    runs = metadata["runs"]
    assert "args" not in runs and "entrypoint" not in runs and "env" not in runs


# --------------------------------------------------------------------------------------------
# Dockerfile and .dockerignore


@pytest.fixture(scope="module")
def dockerfile() -> str:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    # Join continuation lines so each instruction is one line.
    return re.sub(r"\\\n", " ", text)


def _instructions(dockerfile: str) -> list[tuple[str, str]]:
    out = []
    for line in dockerfile.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_the_base_image_is_pinned_by_version_tag_and_digest(dockerfile: str) -> None:
    [arg] = [rest for word, rest in _instructions(dockerfile)
             if word == "ARG" and rest.startswith("PYTHON_IMAGE=")]
    image = arg.split("=", 1)[1]
    assert re.fullmatch(r"python:3\.12\.\d+-slim-[a-z]+@sha256:[0-9a-f]{64}", image), image
    froms = [rest for word, rest in _instructions(dockerfile) if word == "FROM"]
    assert froms and all(f.startswith("${PYTHON_IMAGE}") for f in froms)


def test_no_frontend_image_is_pulled_unpinned(dockerfile: str) -> None:
    # A `# syntax=` parser directive makes BuildKit pull that frontend image before the build.
    for line in dockerfile.splitlines():
        if not line.startswith("#"):
            break
        match = re.match(r"#\s*syntax\s*=\s*(\S+)", line, flags=re.IGNORECASE)
        assert match is None or "@sha256:" in match.group(1), f"unpinned frontend {match.group(1)}"
    # nothing needs a newer frontend: no heredocs, no RUN --mount, no COPY --link or --chmod
    assert "<<" not in dockerfile
    assert not re.search(r"^\s*(RUN|COPY|ADD)\s+--(mount|link|chmod|parents|exclude)", dockerfile, re.MULTILINE)


def test_the_entrypoint_is_the_action_module_in_exec_form(dockerfile: str) -> None:
    entrypoints = [rest for word, rest in _instructions(dockerfile) if word == "ENTRYPOINT"]
    assert [json.loads(e) for e in entrypoints] == [["python", "-m", "gate.action"]]


def test_the_image_keeps_no_caches_and_installs_only_from_the_lock(dockerfile: str) -> None:
    runs = [rest for word, rest in _instructions(dockerfile) if word == "RUN"]
    installs = [part.strip() for r in runs for part in r.split("&&") if "pip" in part and " install " in part]
    # Every package from a lock, checked against its hashes; the project itself only as the wheel
    # this stage built, without dependencies (they are the lock's); never a package by name.
    assert installs
    for command in installs:
        locked = re.search(r"install --require-hashes --no-deps -r requirements(-build)?\.txt$", command)
        own_wheel = re.search(r"install --no-deps /tmp/wheel/sourcegate-\*\.whl$", command)
        assert locked or own_wheel, command
    assert "PIP_NO_CACHE_DIR=1" in dockerfile
    builds = [part for r in runs for part in r.split("&&") if " wheel " in part]
    assert builds and all("--no-deps --no-build-isolation" in b for b in builds)
    for r in runs:
        if "apt-get install" in r:
            assert "--no-install-recommends" in r and "rm -rf /var/lib/apt/lists/*" in r
    # Root, as GitHub requires of container actions (see the comment in the Dockerfile).
    assert not any(word == "USER" for word, _ in _instructions(dockerfile))
    assert not any(word == "ADD" for word, _ in _instructions(dockerfile))


def _docker_ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule, enough for our file: the last matching pattern wins; '!' re-includes;
    a pattern that matches a parent folder matches everything in it."""
    ignored = False
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for raw in patterns:
        negate = raw.startswith("!")
        pattern = raw[1:] if negate else raw
        pattern = pattern.rstrip("/")
        if pattern.startswith("**/"):
            hit = any(fnmatch.fnmatch(p, pattern[3:]) for p in parts)
        elif "**" in pattern:
            hit = any(fnmatch.fnmatch(p, pattern.replace("**/", "*/").replace("**", "*")) for p in prefixes)
        else:
            hit = any(fnmatch.fnmatch(p, pattern) and p.count("/") == pattern.count("/") for p in prefixes)
        if hit:
            ignored = not negate
    return ignored


def test_dockerignore_keeps_tests_venv_and_git_out_and_the_package_in() -> None:
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    for path in (".git/HEAD", ".venv/bin/python", "tests/test_action.py",
                 "cached-snapshots/example/golden.yaml", "examples/sourcegate.yml",
                 ".github/workflows/ci.yml", "gate/__pycache__/cli.cpython-312.pyc", "docs/action.md"):
        assert _docker_ignored(path, patterns), f"{path} would be sent to the image build"
    for path in ("pyproject.toml", "README.md", "requirements.txt", "requirements-build.txt", "gate/cli.py",
                 "gate/schemas/report.json", "gate/action/__main__.py"):
        assert not _docker_ignored(path, patterns), f"{path} is needed by the image build"


def test_every_file_the_dockerfile_copies_from_the_context_exists(dockerfile: str) -> None:
    for word, rest in _instructions(dockerfile):
        if word == "COPY" and "--from=" not in rest:
            *sources, _dest = rest.split()
            for src in sources:
                assert (ROOT / src).exists(), f"COPY {src}: no such file in the repository"


# --------------------------------------------------------------------------------------------
# Workflows


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=_rel)
def test_every_workflow_sets_least_privilege_permissions(path: Path) -> None:
    workflow = _load(path)
    assert "permissions" in workflow, "no top-level permissions: the token would get the repository default"
    top = workflow["permissions"]
    assert top != "write-all" and (top == {} or top == "read-all" or isinstance(top, dict))
    if isinstance(top, dict):
        assert set(top.values()) <= {"read", "none"}, "write scopes belong on the job that needs them"
    for name, job in workflow["jobs"].items():
        perms = job.get("permissions", {})
        assert perms != "write-all", f"job {name} asks for write-all"


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=_rel)
def test_every_third_party_action_is_pinned_to_a_full_commit_sha(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    for job, step in _steps(_load(path)):
        uses = step.get("uses")
        if uses is None or uses.startswith("./"):
            continue
        assert not uses.startswith("docker://") or "@sha256:" in uses, f"{job}: unpinned image {uses}"
        assert SHA_PIN.match(uses), f"{job}: {uses} is not pinned to a 40-hex commit"
        # The pin carries the version it stands for, for the reader and for Dependabot.
        # (every line that uses it: a workflow may use one action in several jobs)
        found = [ln for ln in lines if f"uses: {uses}" in ln]
        assert found and all(re.search(r"#\s*v\d", line) for line in found), \
            f"{job}: {uses} has no '# vX.Y.Z' comment"


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=_rel)
def test_no_pull_request_target_and_no_credentials_left_in_checkouts(path: Path) -> None:
    workflow = _load(path)
    assert "pull_request_target" not in _triggers(workflow)
    for job, step in _steps(workflow):
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, f"{job}: persist-credentials"


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=_rel)
def test_no_expression_is_expanded_inside_a_shell_script(path: Path) -> None:
    for job, step in _steps(_load(path)):
        assert "${{" not in step.get("run", ""), f"{job}: pass values through env:, not into the script"


def test_workflow_run_jobs_never_check_out_or_run_pull_request_code() -> None:
    privileged = [p for p in ALL_WORKFLOWS if "workflow_run" in _triggers(_load(p))]
    assert [_rel(p) for p in privileged] == ["examples/fork-safe/comment.yml"]
    for path in privileged:
        for job, step in _steps(_load(path)):
            assert not str(step.get("uses", "")).startswith("actions/checkout@"), f"{job} checks out code"


def test_the_fork_safe_pair_is_wired_together() -> None:
    gate = _load(ROOT / "examples" / "fork-safe" / "gate.yml")
    comment = _load(ROOT / "examples" / "fork-safe" / "comment.yml")
    assert _triggers(gate) == {"pull_request"}
    assert _on(comment)["workflow_run"]["workflows"] == [gate["name"]]
    [gate_job] = gate["jobs"].values()
    assert gate_job["permissions"] == {"contents": "read"}
    [upload] = [s for _, s in _steps(gate) if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    [download] = [s for _, s in _steps(comment)
                  if str(s.get("uses", "")).startswith("actions/download-artifact@")]
    assert upload["with"]["name"] == download["with"]["name"]
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    [post] = [s for _, s in _steps(comment) if OWN_ACTION.match(str(s.get("uses", "")))]
    assert post["with"]["comment-from"] == download["with"]["path"]
    # The PR number comes from the step that asks GitHub, never from the artifact.
    assert post["with"]["pr-number"] == "${{ steps.pr.outputs.number }}"


def test_the_fork_safe_gate_uploads_its_report_folder_whatever_became_of_the_step() -> None:
    # A gate that could not run has an empty report-path: an upload conditioned on it is skipped, and
    # whatever the step did write is lost to the commenter. The folder goes up on always().
    gate = _load(ROOT / "examples" / "fork-safe" / "gate.yml")
    [action] = [s for _, s in _steps(gate) if OWN_ACTION.match(str(s.get("uses", "")))]
    [upload] = [s for _, s in _steps(gate) if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert upload["if"] == "always()"
    assert upload["with"]["path"].rstrip("/") == action["with"].get("report-dir", "sourcegate-report")
    # an empty folder (the gate could not run) is said in the log, not a second error
    assert upload["with"]["if-no-files-found"] == "warn"


def _own_action_steps() -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for path in ALL_WORKFLOWS:
        for _, step in _steps(_load(path)):
            uses = str(step.get("uses", ""))
            if uses == "./" or OWN_ACTION.match(uses):
                out.append((path, step))
    return out


def test_workflows_use_only_inputs_and_outputs_the_action_declares(metadata: dict[str, Any]) -> None:
    steps = _own_action_steps()
    assert len(steps) >= 5
    for path, step in steps:
        unknown = set(step.get("with", {})) - set(metadata["inputs"])
        assert not unknown, f"{_rel(path)}: unknown inputs {unknown}"
    for path in ALL_WORKFLOWS:
        text = path.read_text(encoding="utf-8")
        ids = {step.get("id") for p, step in steps if p == path}
        for step_id, output in re.findall(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", text):
            if step_id in ids:
                assert output in metadata["outputs"], f"{_rel(path)}: unknown output {output}"


def _always(condition: Any) -> bool:
    return isinstance(condition, str) and condition.replace("${{", "").strip().startswith("always()")


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=_rel)
def test_a_job_that_gates_after_other_jobs_runs_whatever_became_of_them(path: Path) -> None:
    # A job whose `needs` failed is skipped, and a required check that is skipped counts as passed:
    # the merge job must run and name the missing shard instead.
    for name, job in _load(path)["jobs"].items():
        gates = [s for s in job.get("steps", []) if OWN_ACTION.match(str(s.get("uses", "")))
                 and "merge-from" in s.get("with", {})]
        if gates and job.get("needs"):
            assert _always(job.get("if")), f"{_rel(path)}: job {name} is skipped when a shard fails"


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=_rel)
def test_what_a_gate_step_wrote_is_uploaded_even_when_it_failed(path: Path) -> None:
    for name, job in _load(path)["jobs"].items():
        steps = job.get("steps", [])
        gate = next((i for i, s in enumerate(steps)
                     if str(s.get("uses", "")) == "./" or OWN_ACTION.match(str(s.get("uses", "")))), None)
        if gate is None:
            continue
        for step in steps[gate + 1:]:
            if str(step.get("uses", "")).startswith("actions/upload-artifact@"):
                assert _always(step.get("if")), f"{_rel(path)}: {name}: {step.get('name')} skipped on failure"


def test_the_resnapshot_pull_request_can_be_gated() -> None:
    # GitHub starts no workflow for what GITHUB_TOKEN does: a pull request it opens is never gated.
    path = ROOT / "examples" / "resnapshot.yml"
    [opener] = [s for _, s in _steps(_load(path)) if "gh pr create" in s.get("run", "")]
    token = opener["env"]["GH_TOKEN"]
    assert re.fullmatch(r"\$\{\{ secrets\.[A-Z_]+ \|\| github\.token \}\}", token), token
    for text in (path.read_text(encoding="utf-8"), (ROOT / "docs" / "snapshots.md").read_text(encoding="utf-8")):
        flat = " ".join(text.replace("#", " ").split())
        assert "Allow GitHub Actions to create and approve pull requests" in flat
        assert "pull_request" in flat and "GitHub App" in flat


def test_the_self_test_asserts_on_the_example_set_with_fail_on_none() -> None:
    steps = [s for p, s in _own_action_steps() if p.name == "self-test.yml"]
    assert steps[0]["with"] == {"golden-set": "cached-snapshots/example", "judge": "replay",
                                "comment": "false", "fail-on": "none"}
    text = (ROOT / ".github" / "workflows" / "self-test.yml").read_text(encoding="utf-8")
    assert '[ "$VERDICT" = "fail" ]' in text and '[ "$HARD_FAILURES" -gt 0 ]' in text


def _included(path: Path) -> str:
    """How a docs page shows an example workflow: included from its one committed file (make docs
    builds the site with the snippet's path checked)."""
    return f'```yaml\n--8<-- "{_rel(path)}"\n```'


def test_the_docs_include_every_example_workflow_as_committed() -> None:
    docs = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    for path in EXAMPLES:
        assert _included(path) in docs, f"docs/action.md does not include {_rel(path)}"


def test_the_fork_safe_doc_includes_the_fork_safe_pair() -> None:
    docs = (ROOT / "docs" / "fork-safe.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "examples" / "fork-safe").glob("*.yml")):
        assert _included(path) in docs, f"docs/fork-safe.md does not include {_rel(path)}"


def test_no_page_keeps_a_copy_of_an_example_workflow() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in EXAMPLES:
        body = path.read_text(encoding="utf-8")
        assert not [p.name for p in pages if body in p.read_text(encoding="utf-8")], _rel(path)


DOCS = sorted((ROOT / "docs").glob("*.md"))
DOCKER_PIN = re.compile(r"^docker://[^@\s]+@sha256:\S+$")


@pytest.mark.parametrize("path", DOCS, ids=_rel)
def test_workflow_snippets_in_the_docs_follow_the_same_rules(path: Path) -> None:
    # Readers copy these: the rules the example files are held to hold for every snippet too.
    text = path.read_text(encoding="utf-8")
    for uses in re.findall(r"^\s*(?:-\s+)?uses:\s*(\S+)", text, flags=re.MULTILINE):
        assert uses == "./" or SHA_PIN.match(uses) or DOCKER_PIN.match(uses), f"{_rel(path)}: unpinned {uses}"
    # sourcegate is not published on a package index: `pip install sourcegate` in a snippet would
    # install whatever someone else publishes under that name.
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL):
        assert not re.search(r"pip install [\"']?sourcegate\b", block), f"{_rel(path)}: pip install sourcegate"
        assert "pull_request_target" not in block, f"{_rel(path)}: a snippet uses pull_request_target"


def _make_recipe(target: str) -> str:
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    recipe = []
    for line in lines[start + 1:]:
        if line and not line.startswith(("\t", " ")):
            break
        recipe.append(line)
    return "\n".join(recipe)


def test_make_lint_runs_every_linter_and_make_test_runs_lint() -> None:
    lint = _make_recipe("lint")
    for tool in ("ruff check gate tests", "mypy", "check-jsonschema --schemafile $(ACTION_SCHEMA) action.yml",
                 "check-jsonschema --builtin-schema vendor.github-workflows $(WORKFLOWS)",
                 "zizmor --offline", "actionlint $(WORKFLOWS)"):
        assert tool in lint, f"make lint does not run {tool}"
    assert "$(MAKE) --no-print-directory lint" in _make_recipe("test")


# --------------------------------------------------------------------------------------------
# The trust boundary: the pull request's code and the verdict are never in one job

RUN_ACTION = re.compile(r"^sourcegate/sourcegate/run@[0-9a-f]{40}$")
PR_EXAMPLES = [p for p in EXAMPLES if "pull_request" in _triggers(_load(p))]


def _checks_out(job: dict[str, Any]) -> bool:
    return any(str(s.get("uses", "")).startswith("actions/checkout@") for s in job.get("steps", []))


def _runs_pull_request_code(step: dict[str, Any]) -> bool:
    """A step that can run code of the checkout: a script, a local action, or the agent re-run."""
    uses = str(step.get("uses", ""))
    return "run" in step or uses.startswith("./") or bool(RUN_ACTION.match(uses))


def _decides(step: dict[str, Any]) -> bool:
    """A step that computes a verdict or a part of one (a shard): the gate action, but in comment mode."""
    return bool(OWN_ACTION.match(str(step.get("uses", "")))) and "comment-from" not in step.get("with", {})


def test_there_are_pull_request_examples_that_run_the_agent_and_that_gate() -> None:
    assert {_rel(p) for p in PR_EXAMPLES} >= {"examples/run-agent.yml", "examples/sharded.yml",
                                              "examples/sourcegate.yml", "examples/fork-safe/gate.yml"}
    steps = [s for p in PR_EXAMPLES for _, s in _steps(_load(p))]
    assert any(RUN_ACTION.match(str(s.get("uses", ""))) for s in steps) and any(_decides(s) for s in steps)


@pytest.mark.parametrize("path", PR_EXAMPLES, ids=_rel)
def test_no_job_that_decides_runs_code_of_the_pull_request(path: Path) -> None:
    # Code that runs in a job can change whatever the job does after it (its files, .git, the
    # variables of later steps): the verdict is computed only in a job where none of it ran.
    for name, job in _load(path)["jobs"].items():
        steps = job.get("steps", [])
        if _checks_out(job) and any(_runs_pull_request_code(s) for s in steps):
            assert not any(_decides(s) for s in steps), f"{_rel(path)}: job {name} runs PR code and decides"


def test_the_agent_job_hands_only_its_traces_to_a_gate_job_that_reads_them_as_data() -> None:
    workflow = _load(ROOT / "examples" / "run-agent.yml")
    jobs = workflow["jobs"]
    [agent_name] = [n for n, j in jobs.items() if any(RUN_ACTION.match(str(s.get("uses", ""))) for s in j["steps"])]
    [gate_name] = [n for n, j in jobs.items() if any(_decides(s) for s in j["steps"])]
    agent, gate = jobs[agent_name], jobs[gate_name]
    # The agent's job: read-only, the agent's own key in the agent's step alone, its traces uploaded.
    assert agent["permissions"] == {"contents": "read"}
    [run] = [s for s in agent["steps"] if RUN_ACTION.match(str(s.get("uses", "")))]
    keyed = [s for s in agent["steps"] if "secrets." in json.dumps(s)]
    assert keyed == [run] and list(run["env"]) == ["ANTHROPIC_API_KEY"]
    [upload] = [s for s in agent["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert upload["with"]["path"].rstrip("/") == run["with"]["out"] and upload["if"] == "always()"
    # The gate's job: after the agent's whatever became of it, the traces downloaded into a folder of
    # their own (outside the golden set) and named in `runs`.
    assert gate["needs"] == agent_name and _always(gate["if"])
    [download] = [s for s in gate["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact@")]
    [decide] = [s for s in gate["steps"] if _decides(s)]
    assert download["with"]["name"] == upload["with"]["name"] and "run-id" not in download["with"]
    assert decide["with"]["runs"] == download["with"]["path"]
    golden = decide["with"]["golden-set"]
    assert not (decide["with"]["runs"] + "/").startswith(golden.rstrip("/") + "/")
    assert gate["steps"].index(download) < gate["steps"].index(decide)


def test_the_sharded_workflow_runs_no_code_of_the_pull_request_at_all() -> None:
    # Its partial reports carry the judge's answers, which the merge takes as the shards say them.
    workflow = _load(ROOT / "examples" / "sharded.yml")
    for name, job in workflow["jobs"].items():
        assert not any(_runs_pull_request_code(s) for s in job["steps"]), f"job {name} runs PR code"
