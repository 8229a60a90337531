"""litellm-sanitize (docs/peers.md): litellm's sanitize_messages_for_tool_calling over OpenAI chat
messages. It acts only when litellm.modify_params is set, as the proxy's modify_params setting
does; the bundled model cost map is used so that importing litellm asks no server."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from serve import serve  # noqa: E402

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm  # noqa: E402
from litellm.litellm_core_utils.prompt_templates.factory import (  # noqa: E402
    sanitize_messages_for_tool_calling,
)

litellm.modify_params = True

serve(lambda request: {"messages": sanitize_messages_for_tool_calling(request["messages"])})
