"""The OpenAI Agents SDK adapter, run through the SDK's own Runner and guardrail machinery
with a scripted Model (an implementation of the SDK's Model interface that asks for tool
calls, so no network and no LLM are involved)."""

from __future__ import annotations

import json
from typing import Any, List

import pytest

pytest.importorskip("agents")

from agents import Agent, ModelResponse, RunConfig, Runner, Usage, function_tool  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

import toolgate  # noqa: E402
import toolgate.openai_agents  # noqa: E402

POLICY = """
tool run_shell(command) needs proc:exec
agent assistant {
  grant proc:exec
  allow run_shell where command matches "npm run *"
  deny  run_shell where command contains "sudo " because "sudo is not available to this agent."
}
"""


class ScriptedModel(Model):
    """Asks for one tool call, then answers with the tool output it was given."""

    def __init__(self, arguments: str) -> None:
        self.arguments = arguments
        self.inputs: List[Any] = []

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, *, previous_response_id=None, conversation_id=None,
                           prompt=None, **kwargs) -> ModelResponse:  # type: ignore[override]
        self.inputs.append(input)
        if len(self.inputs) == 1:
            call = ResponseFunctionToolCall(type="function_call", call_id="call_1", name="run_shell",
                                            arguments=self.arguments, id="fc_1", status="completed")
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        outputs = [i for i in input if isinstance(i, dict) and i.get("type") == "function_call_output"]
        text = ResponseOutputText(type="output_text", text=str(outputs[-1]["output"]), annotations=[])
        msg = ResponseOutputMessage(type="message", id="msg_1", role="assistant", status="completed",
                                    content=[text])
        return ModelResponse(output=[msg], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):  # type: ignore[override]
        raise NotImplementedError("the test does not stream")


def run(arguments: str) -> tuple:
    engine = toolgate.Engine.from_source(POLICY, filename="agents.policy")
    ran: List[str] = []

    @function_tool(tool_input_guardrails=[toolgate.openai_agents.tool_input_guardrail(engine, "assistant")])
    def run_shell(command: str) -> str:
        """Runs a shell command."""
        ran.append(command)
        return f"ran {command}"

    model = ScriptedModel(arguments)
    agent = Agent(name="assistant", instructions="x", tools=[run_shell], model=model)
    result = Runner.run_sync(agent, "go", run_config=RunConfig(tracing_disabled=True))
    return result, ran, engine


def test_allowed_call_runs():
    result, ran, _ = run(json.dumps({"command": "npm run build"}))
    assert ran == ["npm run build"]
    assert result.final_output == "ran npm run build"
    (g,) = result.tool_input_guardrail_results
    assert g.output.behavior["type"] == "allow"
    assert g.output.output_info["reason"] == "allowed_by_rule"


def test_denied_call_is_rejected_with_the_decision_message():
    result, ran, _ = run(json.dumps({"command": "sudo reboot"}))
    assert ran == []
    assert result.final_output == "sudo is not available to this agent."
    (g,) = result.tool_input_guardrail_results
    assert g.output.behavior == {"type": "reject_content", "message": "sudo is not available to this agent."}
    assert g.output.output_info["reason"] == "denied_by_rule"


def test_duplicate_keys_in_the_arguments_are_refused():
    result, ran, _ = run('{"command": "npm run build", "command": "sudo reboot"}')
    assert ran == []
    (g,) = result.tool_input_guardrail_results
    assert g.output.output_info["reason"] == "bad_request"
    assert "duplicate key" in g.output.behavior["message"]


def test_decide_json_args_reads_strictly():
    engine = toolgate.Engine.from_source(POLICY)
    assert engine.decide_json_args("assistant", "run_shell", '{"command": "npm run x"}').allowed
    assert engine.decide_json_args("assistant", "run_shell", "[1]").message == "bad request: `args` must be an object"
    assert engine.decide_json_args("assistant", "run_shell", '{"command": NaN}').reason == "bad_request"
    d = engine.decide_json_args("assistant", "run_shell", "", tool_use_id="c1")
    assert (d.reason, d.argument, d.tool_use_id) == ("missing_argument", "command", "c1")
