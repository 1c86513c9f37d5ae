"""The scripted judge as a responder for the fake APIs: the ``scripted`` provider's rules on the wire.

The rules live in :mod:`gate.judge.providers.scripted`; this answers a fake server's request with them,
so a test can bend one reply (a fooled or broken judge) and send it through a real SDK.
"""

from __future__ import annotations

from gate.judge.providers.scripted import answer
from tests.support.llm_wire import Reply, Request, text_reply, tool_reply


def scripted_judge(request: Request) -> Reply:
    """The responder: answers each of sourcegate's tools by the scripted provider's rules."""
    tool_input = answer(request.tool_name, request.user_text)
    if tool_input is None:
        return text_reply(request, "I can only answer sourcegate's judge tools.")
    return tool_reply(request, tool_input)
