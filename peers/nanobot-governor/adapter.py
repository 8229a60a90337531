"""nanobot-governor (docs/peers.md): nanobot's ContextGovernor.drop_orphan_tool_results, then
backfill_missing_tool_results, over OpenAI chat messages: the two repair steps of the governor's
prepare_for_model, in its order (both are static methods: no governor state is involved)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from serve import serve  # noqa: E402

from nanobot.agent.context_governance import ContextGovernor  # noqa: E402


def repair(request):
    messages = ContextGovernor.drop_orphan_tool_results(request["messages"])
    return {"messages": ContextGovernor.backfill_missing_tool_results(messages)}


serve(repair)
