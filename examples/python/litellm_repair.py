"""litellm's repairer as a proxy with `modify_params` runs it: sanitize_messages_for_tool_calling
over OpenAI chat messages (litellm==1.110.2, the pinned peer of docs/peers.md). The bundled model
cost map is used, so that importing litellm asks no server."""

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm  # noqa: E402
from litellm.litellm_core_utils.prompt_templates.factory import (  # noqa: E402
    sanitize_messages_for_tool_calling as repair,
)

litellm.modify_params = True
MARKER = "[System: Tool execution skipped/interrupted by user. No result provided for tool"

__all__ = ["MARKER", "repair"]
