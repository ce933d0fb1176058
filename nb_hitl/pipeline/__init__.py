"""Multi-agent pipelines (AgentScope 1.x names) that pause for the human on an interrupt."""

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
