"""``python -m hotplate.agent``: the same as ``hotplate agent-hook``."""

import sys

from hotplate.agent.runner import main

sys.exit(main())
