"""langchain-cutoff (docs/peers.md): langchain's SummarizationMiddleware._find_safe_cutoff_point over
LangChain messages, with the target as the cutoff index. The message dicts
({"type": "human"|"ai"|"tool"|"system", "content", "tool_calls", "tool_call_id"}) become real
langchain_core message objects through messages_from_dict, which takes {"type", "data"}."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from serve import serve  # noqa: E402

from langchain.agents.middleware.summarization import SummarizationMiddleware  # noqa: E402
from langchain_core.messages import messages_from_dict  # noqa: E402


def cut(request):
    messages = messages_from_dict(
        {"type": message["type"], "data": {k: v for k, v in message.items() if k != "type"}}
        for message in request["messages"]
    )
    return {"boundary": SummarizationMiddleware._find_safe_cutoff_point(messages, request["target"])}


serve(cut)
