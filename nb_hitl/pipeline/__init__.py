"""Multi-agent pipelines (AgentScope 1.x names) that pause for the human on an interrupt.

``MsgHub`` (``_msghub.py``) makes participants observe each other's replies; the sequential
and fanout pipelines (``_pipelines.py``) stop at an interrupted reply and ``resume()`` it;
``stream_printing_messages`` (``_streaming.py``). May import agent and everything below it;
never widgets or extension.
"""

from ._msghub import MsgHub
from ._pipelines import (
    FanoutPipeline,
    PipelinePause,
    SequentialPipeline,
    fanout_pipeline,
    resume,
    sequential_pipeline,
)
from ._streaming import stream_printing_messages

__all__ = [
    "FanoutPipeline",
    "MsgHub",
    "PipelinePause",
    "SequentialPipeline",
    "fanout_pipeline",
    "resume",
    "sequential_pipeline",
    "stream_printing_messages",
]
