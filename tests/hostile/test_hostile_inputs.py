"""Hostile file content and arguments through the real CLI: coded errors, never a traceback.

Bad `\\u` escapes and deep nesting in frontmatter are parser errors with a line and a reason in
every command (verify, status, load, rehash, search); Windows device names are refused as ids
on every platform; `verify` without a memory root fails; a role with a newline is refused;
`save --force` that wrote nothing exits non-zero; a full disk (a real tiny tmpfs in a private
mount namespace) is a coded `storage.full` error with the `--json` envelope.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engram.store import frontmatter
from engram.store.ids import is_reserved, slugify, validate_id
from tests.conftest import engram_cmd, subprocess_env
from tests.helpers import memory_text, run_cli, run_json, unshare_works, write_memory

BAD_ESCAPES = ["\\uZZZZab", "\\u12", "\\u", "\\ud800", "\\u_1_2", "\\u+1ab", "\\u 1ab"]


@pytest.fixture
def root(project: Path) -> Path:
    from engram.cli.main import main

    assert main(["init"]) == 0
    root = project / ".agents" / ".engram"
    write_memory(root, "run-smoke-suite", content="- Run the smoke suite before tagging a release.")
    return root


def _hand_written(root: Path, name: str, frontmatter_lines: str) -> Path:
    path = root / "rules" / f"{name}.md"
    path.write_text(f"---\nid: {name}\ntype: rule\n{frontmatter_lines}\n---\n\n# T\n\n"
                    "## Content\n\n- Tag releases after the smoke suite.\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("escape", BAD_ESCAPES)
def test_bad_unicode_escape_is_one_parser_error_everywhere(
        root: Path, capsys: pytest.CaptureFixture[str], escape: str) -> None:
    _hand_written(root, "bad-escape", f'author: "{escape}"')
    code, env = run_json("verify", capsys=capsys)
    assert code == 4
    [bad] = [f for f in env["data"]["files"] if f["status"] == "INVALID"]
    assert (bad["file"], bad["line"]) == ("rules/bad-escape.md", 4)
    assert "escape" in bad["reason"]
    code, env = run_json("status", capsys=capsys)
    assert code == 0
    [invalid] = env["data"]["invalid"]
    assert (invalid["line"], "escape" in invalid["reason"]) == (4, True)
    code, out, _ = run_cli("rehash", "--all", capsys=capsys)
    assert code == 4 and "not approved (invalid): workspace:rules/bad-escape.md:4:" in out
    assert "rules/bad-escape.md" not in json.loads(
        (root / "memory.hashes.json").read_text())
    code, out, _ = run_cli("load", "smoke suite release", capsys=capsys)
    assert code == 0 and "Run the smoke suite" in out


def test_deep_nesting_is_a_parser_error_in_every_command(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = "\n".join(" " * (2 * i) + f"k{i}:" for i in range(600)) + " x"
    _hand_written(root, "deep-map", "meta:\n" + "\n".join("  " + ln for ln in deep.split("\n")))
    lists = "\n".join(" " * (2 * i) + "- " for i in range(600))
    _hand_written(root, "deep-list", "tags:\n" + lists)
    for args in (["verify"], ["status"], ["load", "smoke"], ["search", "smoke"],
                 ["route", "tag a release"], ["rehash", "--all"], ["notes"]):
        code, out, err = run_cli(*args, capsys=capsys)
        assert "Traceback" not in err and "RecursionError" not in out + err, args
        assert code in (0, 1, 4), (args, out, err)
    code, env = run_json("verify", capsys=capsys)
    reasons = {f["file"]: f.get("reason", "") for f in env["data"]["files"]}
    assert "nests more than" in reasons["rules/deep-map.md"]


def test_deeply_nested_json_files_never_end_in_recursion_error(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nested = '{"a":' * 900 + "1" + "}" * 900
    for name in ("engram.config.json", "usage.json", "pending-approvals.json"):
        (root / name).write_text(nested)
        for args in (["status"], ["load", "smoke"], ["config", "list"], ["verify"]):
            code, out, err = run_cli(*args, capsys=capsys)
            assert "RecursionError" not in out + err and code in (0, 1, 2, 4), (name, args, err)


@pytest.mark.parametrize("name", ["con", "PRN", "aux", "nul", "Nul", "com1", "COM9", "lpt1",
                                  "lpt9", "con.txt", "nul.tar.gz", "aux.md"])
def test_windows_device_names_are_refused_as_ids(root: Path, capsys: pytest.CaptureFixture[str],
                                                 name: str) -> None:
    code, _, err = run_cli("load", "--id", name, capsys=capsys)
    assert code == 2 and "Windows device name" in err
    code, _, err = run_cli("save", "--force", f"TYPE: rule | TEXT: Pin it | UPDATE: {name}",
                           capsys=capsys)
    assert code == 2 and "Windows device name" in err
    (root / "rules" / f"{name}.md").write_text(memory_text("placeholder").replace(
        "id: placeholder", f"id: {name}"))
    code, env = run_json("verify", capsys=capsys)
    assert any(f["status"] == "INVALID" and "Windows device name" in f["reason"]
               for f in env["data"]["files"])
    assert not list(root.glob(f"*/{name}.md.*"))


def test_a_memory_titled_like_a_device_gets_a_portable_id(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, env = run_json("save", "--force", "knowledge", "Con", capsys=capsys)
    assert code == 0
    [written] = env["data"]["written"]
    assert not is_reserved(written["id"]) and (root / "knowledge" / f"{written['id']}.md").exists()


@given(st.text(alphabet="conprauxlt0123456789.-_CONPRAUXLT", min_size=1, max_size=12))
@settings(max_examples=300, deadline=None)
def test_no_slug_or_valid_id_is_a_device_name(text: str) -> None:
    slug = slugify(text)
    assert not slug or not is_reserved(slug)
    try:
        value = validate_id(text)
    except Exception:  # noqa: BLE001 - refusing is the point; the id type is checked below
        return
    assert not is_reserved(value)


def test_verify_without_a_memory_root_fails(project: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli("verify", capsys=capsys)
    assert code == 1 and "no memory root" in err and "engram init" in err
    assert "all 0" not in out
    code, env = run_json("verify", capsys=capsys)
    assert env["ok"] is False and env["diagnostics"][0]["code"] == "root.missing"


@pytest.mark.parametrize("args", [
    ["set-role", "dev\nops"],
    ["set-role", "backend", "Bad Role!"],
    ["config", "set", "roles", "Bad Role!"],
    ["config", "set", "roles", "dev\nops"],
    ["save", "--force", "--role", "dev\nops", "Use the staging cluster for load tests"],
    ["save", "--force", "TYPE: rule | TEXT: Use the staging cluster | ROLE: dev ops"],
])
def test_roles_are_checked_once_and_a_newline_is_refused(
        root: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    before = (root / "engram.config.json").read_bytes()
    code, _, err = run_cli(*args, capsys=capsys)
    assert code == 2 and "invalid role" in err and "fix:" in err
    assert (root / "engram.config.json").read_bytes() == before
    assert not (root / "rules" / "use-the-staging-cluster-for-load-tests.md").exists()


def test_config_set_and_set_role_store_the_same_value(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("config", "set", "roles", "Backend, ops", capsys=capsys)[0] == 0
    by_config = json.loads((root / "engram.config.json").read_text())
    assert run_cli("set-role", "backend,OPS", capsys=capsys)[0] == 0
    assert json.loads((root / "engram.config.json").read_text()) == by_config
    assert by_config["roles"] == ["backend", "ops"]


def test_save_force_that_writes_nothing_because_all_deferred_exits_1(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, env = run_json("save", "--force", "knowledge",
                         "Release tags must follow the smoke suite run.", capsys=capsys)
    assert code == 1 and env["ok"] is False
    assert env["data"]["written"] == [] and env["data"]["deferred"]
    assert env["diagnostics"][-1]["code"] == "save.deferred"
    code, out, _ = run_cli("save", "--force", "knowledge",
                           "Release tags must follow the smoke suite run.", capsys=capsys)
    assert code == 1 and "nothing was saved: every candidate was deferred" in out


ESCAPED = st.builds(lambda head, digits, tail: f"{head}\\u{digits}{tail}",
                    st.text(alphabet="ab \\", max_size=3),
                    st.text(alphabet="0123456789abcdefABCDEFdDxyz_+ -", max_size=6),
                    st.text(alphabet="ab\\u", max_size=3))


@given(ESCAPED)
@example("\\uZZZZab")
@example("\\ud800")
@example("\\u00e9")
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_double_quoted_escapes_raise_only_the_parser_error(body: str) -> None:
    try:
        value = frontmatter.parse(f'a: "{body}"')
    except frontmatter.FrontmatterError as exc:
        assert exc.line == 1 and exc.reason
    else:
        value["a"].encode("utf-8")  # never a lone surrogate


@given(st.integers(min_value=1, max_value=3000), st.sampled_from(["map", "list", "mixed"]))
@example(2000, "map")
@example(2000, "list")
@settings(max_examples=60, deadline=None)
def test_any_nesting_depth_parses_or_raises_the_parser_error(depth: int, shape: str) -> None:
    lines = ["top:"]
    for i in range(1, depth + 1):
        pad = "  " * i
        use_list = shape == "list" or (shape == "mixed" and i % 2)
        lines.append(f"{pad}- " if use_list else f"{pad}k{i}:")
    try:
        frontmatter.parse("\n".join(lines))
    except frontmatter.FrontmatterError as exc:
        assert exc.line >= 1


@pytest.mark.skipif(not unshare_works(), reason="no private mount namespace (unshare -rm)")
@pytest.mark.parametrize("left_kb", [40, 100])
def test_a_really_full_disk_is_a_coded_storage_error_for_save_and_load(
        tmp_path: Path, left_kb: int) -> None:
    """A 1 MB tmpfs filled up to `left_kb`: SQLite's "database or disk is full" and ENOSPC
    both come out as `storage.full` in the --json envelope, exit 1, no traceback."""
    mount = tmp_path / "disk"
    mount.mkdir()
    cmd = " ".join(f"'{a}'" for a in engram_cmd())
    script = f"""
set -e
mount -t tmpfs -o size=1m tmpfs '{mount}'
mkdir '{mount}/p' && cd '{mount}/p'
{cmd} init >/dev/null
for i in 1 2 3; do {cmd} save -f "Always run the tests number $i before release" >/dev/null; done
avail=$(df --output=avail -k '{mount}' | tail -1)
dd if=/dev/zero of='{mount}/fill' bs=1k count=$((avail - {left_kb})) 2>/dev/null || true
set +e
{cmd} save -f --json "Never deploy on Fridays without the on-call engineer" \
    >'{tmp_path}/save.json' 2>'{tmp_path}/save.err'
echo $? >'{tmp_path}/save.rc'
rm -rf .agents/.engram/.cache
{cmd} load --json release >'{tmp_path}/load.json' 2>'{tmp_path}/load.err'
echo $? >'{tmp_path}/load.rc'
"""
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True,
                          text=True, timeout=120, check=False,
                          env=subprocess_env(HOME=str(tmp_path / "home"),
                                             ENGRAM_CONFIG_DIR=str(tmp_path / "cfg"),
                                             ENGRAM_NO_AUTO_UPGRADE="1"))
    assert done.returncode == 0, done.stderr
    for step in ("save", "load"):
        err = (tmp_path / f"{step}.err").read_text()
        assert "Traceback" not in err, err
        rc = int((tmp_path / f"{step}.rc").read_text())
        envelope = json.loads((tmp_path / f"{step}.json").read_text())
        if rc != 0:
            assert rc == 1 and envelope["ok"] is False
            assert envelope["diagnostics"][0]["code"] == "storage.full"
        else:
            assert envelope["ok"] is True
    # A full disk may leave room for the memory but not the cache: the cache is then bypassed
    # (issue 27 class 2), so a save may succeed; either outcome is coded (checked above).
