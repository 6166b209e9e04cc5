"""Whether flash-attn 2 can run in a Python on this machine's GPUs: one check, run in that Python.

A model loads with ``attn_implementation=flash_attention_2``, and padding removal imports
``flash_attn.bert_padding``, only where flash-attn imports, torch sees a CUDA GPU and every GPU
has compute capability 8.0 or more (flash-attn 2's floor); anywhere else the first model load
fails. Only the interpreter that trains can tell, so the check is a script run there in a
subprocess, and the harness process never initialises CUDA (it would hold memory on a GPU the
trainer then needs). The verl backend runs it when it chooses its attention
(`harness.backends.verl.target`) and ``harness doctor``'s probe runs it to report it
(`harness.doctor.probes`): the same code, so the two cannot disagree.
"""

from __future__ import annotations

__all__ = ["FLASH_CHECK", "FLASH_SCRIPT"]

FLASH_CHECK = """\
def flash():
    try:
        import flash_attn, flash_attn.bert_padding
    except Exception as err:
        why = " ".join(str(err).split())
        return False, "flash_attn does not import (%s: %s)" % (type(err).__name__, why)
    import torch
    if not torch.cuda.is_available():
        return False, "torch %s sees no CUDA GPU" % torch.__version__
    caps = [torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())]
    old = ["GPU %d is sm_%d%d" % (i, a, b) for i, (a, b) in enumerate(caps) if a < 8]
    if old:
        return False, "flash-attn 2 needs compute capability >= 8.0; " + ", ".join(old)
    return True, "flash_attn %s on %d GPU(s) sm_%d%d+" % (
        flash_attn.__version__, len(caps), *min(caps))
"""
"""Defines ``flash() -> (usable, reason)`` for a probe script that includes it."""

FLASH_SCRIPT = f"""\
import json
{FLASH_CHECK}usable, reason = flash()
print(json.dumps({{"flash_attn": usable, "flash_reason": reason}}))
"""
"""Run as ``<python> -c FLASH_SCRIPT``; prints one JSON line with ``flash()``'s answer."""
