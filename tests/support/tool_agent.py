"""Agents that call a tool, as a user writes them, for the capture tests and bench: the
source of a module a test writes into its workspace (`agent.py`).

`AGENT`: on the bare openai SDK (one tool call, then the answer; no tracing code), with
variants a test needs (`answer_chat`: a `str` parameter, as a dataset row's target;
`answer_saying_its_tools`: the Hub format's answer with its own metadata;
`answer_or_apologise`: it catches a refused model call). `FRAMEWORK_AGENT`: the same
agent on pydantic-ai. Both read the stub's address from OPENAI_BASE_URL.
"""

AGENT = '''
"""A support agent on the openai SDK: it looks the order up, then answers."""
import json

from openai import OpenAI

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Where an order is.",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        },
    }
]


def lookup_order(order_id):
    return f"order {order_id} ships tomorrow"


def answer(question):
    client = OpenAI()
    messages = [{"role": "user", "content": question}]
    reply = client.chat.completions.create(model="stub-model", messages=messages, tools=TOOLS)
    message = reply.choices[0].message
    while message.tool_calls:
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = lookup_order(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        reply = client.chat.completions.create(model="stub-model", messages=messages, tools=TOOLS)
        message = reply.choices[0].message
    return message.content


def answer_chat(question: str) -> str:  # a str parameter: a dataset row's last user message
    return answer(question)


def answer_saying_its_tools(question: str):  # the Hub format's answer with its own metadata
    content = answer(question)
    return {"response": {"role": "assistant", "content": content}, "metadata": {"tools_called": ["mine"]}}


def answer_or_apologise(question):
    try:
        return answer(question)
    except Exception:  # the model refused the request: the agent says so, it does not crash
        return "Sorry, I cannot help right now."
'''

# The same agent on a framework (pydantic-ai): its own spans (GenAI conventions, the tool
# run as an execute_tool span) and, under its model calls, the openai SDK's.
FRAMEWORK_AGENT = '''
import os

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


def lookup_order(order_id: str) -> str:
    """Where an order is."""
    return f"order {order_id} ships tomorrow"


def answer(question: str) -> str:
    provider = OpenAIProvider(base_url=os.environ["OPENAI_BASE_URL"], api_key="test-key")
    agent = Agent(OpenAIChatModel("stub-model", provider=provider), tools=[lookup_order])
    return agent.run_sync(question).output
'''
