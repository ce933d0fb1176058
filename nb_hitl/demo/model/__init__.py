"""The demo model: what ``ScriptedModel.demo()`` answers, offline and deterministic.

``_responder.py`` is the plan it follows for any prompt (``demo_responder``), ``_prompt.py``
reads a formatted prompt (the question, steers, a continuation, how the last reply ended) and
``_topics.py`` holds what it knows. This sub-package belongs to the model layer (see
``tests/test_layers.py``): it may import message and model names, nothing above, so the model
package can reach it from ``ScriptedModel.demo()``.
"""

from __future__ import annotations

from ._responder import PICK_UP, demo_responder

__all__ = ["PICK_UP", "demo_responder"]
