"""examples/python/repairers.py's careful_repair behind the adapter template's loop, the way to
fuzz it without the Python API (peers/templates/adapter.py, its `handle` calling the repairer).
The baseline of benches/python_api.rs, and what tests/ctxfuzz/package_python.rs compares the API's
run with."""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(here, "../../examples/python"), os.path.join(here, "../../peers/templates")]
from adapter import serve  # noqa: E402
from repairers import careful_repair  # noqa: E402

serve(lambda request: {"messages": careful_repair(request["messages"])})
