"""Run ``python -m llama_cpp.server`` with llama.cpp's weight-repacking buffers turned off.

Why a wrapper: a llama-cpp-python built from source with ``GGML_NATIVE`` (pip's default) uses
Intel AMX tiles when the CPU advertises them. On the virtual machines this project's CI runs on,
the CPU advertises AMX but executing an AMX tile instruction faults, and the server dies with a
general-protection fault on its first request. AMX kernels are only reached through the "extra"
(repacking) buffer types, so turning those off (``use_extra_bufts = False``, a plain
``llama_model_params`` field that the server's settings do not expose) avoids them; generation is
otherwise unchanged. Arguments are those of ``python -m llama_cpp.server``.
"""

from __future__ import annotations

import llama_cpp.llama_cpp as llama_lib

_default_params = llama_lib.llama_model_default_params


def _params_without_extra_buffers() -> llama_lib.llama_model_params:
    params = _default_params()
    params.use_extra_bufts = False
    return params


if __name__ == "__main__":
    llama_lib.llama_model_default_params = _params_without_extra_buffers  # type: ignore[assignment]
    from llama_cpp.server.__main__ import main

    main()
