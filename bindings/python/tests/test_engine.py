"""Engine loading, errors, and the Decision object."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import toolgate
from conftest import EXAMPLE, POLICIES, cli_eval

PUSH = {"agent": "code-assistant", "server": "git", "tool": "git_push",
        "args": {"repo_path": "/x"}, "tool_use_id": "toolu_01"}


def test_load_file_folder_list_and_source_agree():
    text = EXAMPLE.read_text()
    from_file = toolgate.Engine.load(EXAMPLE)
    from_str_path = toolgate.Engine.load(str(EXAMPLE))
    from_list = toolgate.Engine.load([EXAMPLE])
    # The policy hash covers rule locations, so the source must carry the same file name.
    from_source = toolgate.Engine.from_source(text, filename=str(EXAMPLE))
    assert len({e.policy_hash for e in (from_file, from_str_path, from_list, from_source)}) == 1
    assert len(from_file.policy_hash) == 64
    assert from_file.agents == ["code-assistant", "reviewer", "shell-helper", "sandboxed"]


def test_bundle_round_trip_and_magic_bytes(tmp_path: Path, example: toolgate.Engine):
    data = example.to_bundle()
    assert data.startswith(b"TOOLGATE")
    assert toolgate.Engine.from_bundle(data).policy_hash == example.policy_hash
    path = tmp_path / "p.bundle"
    path.write_bytes(data)
    assert toolgate.Engine.load(path).policy_hash == example.policy_hash


def test_cli_bundle_gives_the_same_policy_hash(cli: Path, tmp_path: Path):
    out = tmp_path / "all.bundle"
    subprocess.run([str(cli), "compile", str(POLICIES), "-o", str(out)], check=True,
                   capture_output=True, timeout=120)
    from_cli = toolgate.Engine.load(out)
    from_source = toolgate.Engine.load(POLICIES)
    assert from_cli.policy_hash == from_source.policy_hash
    assert toolgate.Engine.from_bundle(out.read_bytes()).policy_hash == from_source.policy_hash
    d = from_cli.decide_request(PUSH)
    assert d.policy_hash == from_source.policy_hash
    assert d.to_dict() == from_source.decide_request(PUSH).to_dict()


@pytest.mark.parametrize("cut", [0, 8, 20, -1])
def test_bad_bundles_raise_bundle_error(example: toolgate.Engine, cut: int):
    data = example.to_bundle()
    with pytest.raises(toolgate.BundleError) as err:
        toolgate.Engine.from_bundle(data[:cut])
    assert err.value.code.startswith("toolgate::bundle::")
    assert isinstance(err.value, toolgate.Error)


def test_corrupt_bundle_file_names_the_path(example: toolgate.Engine, tmp_path: Path):
    data = bytearray(example.to_bundle())
    data[-3] ^= 0xFF
    path = tmp_path / "corrupt.bundle"
    path.write_bytes(bytes(data))
    with pytest.raises(toolgate.BundleError) as err:
        toolgate.Engine.load(path)
    assert str(path) in str(err.value)


def test_missing_path_is_a_load_error(tmp_path: Path):
    with pytest.raises(toolgate.LoadError) as err:
        toolgate.Engine.load(tmp_path / "nope.policy")
    assert isinstance(err.value, OSError) and isinstance(err.value, toolgate.Error)
    assert "nope.policy" in str(err.value)


def test_policy_error_is_the_cli_report(cli: Path, tmp_path: Path):
    path = tmp_path / "bad.policy"
    path.write_text("tool t\nagent a {\n  grant *:read\n  allow u\n}\n")
    with pytest.raises(toolgate.PolicyError) as err:
        toolgate.Engine.load(path)
    report = subprocess.run([str(cli), "check", str(path)], capture_output=True, text=True,
                            timeout=60, env={"NO_COLOR": "1"}).stderr
    assert str(err.value) and report.startswith(str(err.value))
    codes = [d.code for d in err.value.diagnostics]
    assert "toolgate::wildcard_domain" in codes
    d = next(d for d in err.value.diagnostics if d.code == "toolgate::wildcard_domain")
    assert (d.severity, d.file, d.line, d.column) == ("error", str(path), 3, 9)
    assert d.help and "domain" in d.help
    assert d == toolgate.Diagnostic(*d)  # a plain (code, severity, message, file, line, column, help)
    assert len(d) == 7


def test_from_source_errors_name_the_filename():
    with pytest.raises(toolgate.PolicyError) as err:
        toolgate.Engine.from_source("agent a { grant *:read }", filename="mine.policy")
    assert "mine.policy:1:17" in str(err.value)
    assert err.value.diagnostics[0].file == "mine.policy"


def test_decision_fields_match_the_cli(cli: Path, example: toolgate.Engine):
    d = example.decide("code-assistant", "git_push", {"repo_path": "/x"}, server="git",
                       tool_use_id="toolu_01")
    (want,) = cli_eval(cli, EXAMPLE, ['{"agent": "code-assistant", "server": "git", "tool": "git_push", "args": {"repo_path": "/x"}, "tool_use_id": "toolu_01"}'])
    assert d.to_dict() == want
    assert (d.decision, d.reason, d.permission, d.argument, d.rule, d.tool_use_id) == (
        "deny", "permission_missing", "net:http", None, None, "toolu_01")
    assert d.message == want["message"] and d.policy_hash == want["policy_hash"]
    assert d.allowed is False
    (tool_result,) = cli_eval(cli, EXAMPLE, ['{"agent": "code-assistant", "server": "git", "tool": "git_push", "args": {"repo_path": "/x"}, "tool_use_id": "toolu_01"}'], "--format", "tool-result")
    assert d.to_tool_result() == tool_result
    assert d.to_tool_result("other")["tool_use_id"] == "other"


def test_rule_ref(example: toolgate.Engine):
    d = example.decide("code-assistant", "Bash", {"command": "sudo ls"})
    assert d.reason == "denied_by_rule"
    rule = d.rule
    assert rule is not None
    # The deny that names `sudo`, wherever example.policy has it.
    with open(EXAMPLE) as f:
        line = next(i for i, text in enumerate(f, 1) if 'matches shell "sudo ...' in text)
    assert (rule.agent, rule.effect, rule.target, rule.line) == ("code-assistant", "deny", "Bash", line)
    assert rule.file.endswith("example.policy")
    assert rule.to_dict() == d.to_dict()["rule"]
    assert str(rule).startswith("deny Bash (")
    assert d.message == "Destructive shell commands are disabled for this session."


def test_decisions_are_immutable_and_have_no_truth_value(example: toolgate.Engine):
    d = example.decide("reviewer", "read_file", {"path": "/etc/hosts"})
    assert d.allowed and d.reason == "allowed_by_rule"
    with pytest.raises(AttributeError):
        d.reason = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        example.policy_hash = "x"  # type: ignore[misc]
    with pytest.raises(TypeError, match="decision.allowed"):
        bool(d)
    assert d == example.decide("reviewer", "read_file", {"path": "/etc/hosts"})
    assert d != example.decide("reviewer", "read_file", {"path": "/etc/hosts"}, tool_use_id="x")


def test_tools_listing_matches_the_cli(cli: Path, example: toolgate.Engine):
    listed = subprocess.run([str(cli), "tools", str(EXAMPLE), "--agent", "code-assistant"],
                            capture_output=True, text=True, check=True, timeout=60).stdout.split()
    tools = example.tools("code-assistant")
    assert tools is not None
    assert [str(t) for t in tools] == listed
    assert (tools[0].server, tools[0].tool) == ("git", "git_log")
    assert tools[-1].server is None
    assert example.tools("nobody") is None


def test_decide_json_uses_the_strict_parser(example: toolgate.Engine):
    d = example.decide_json('{"agent": "reviewer", "tool": "read_file", "tool": "x"}')
    assert d.reason == "bad_request" and "duplicate key" in d.message
