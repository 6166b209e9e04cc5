"""The ``trl`` backend: GRPO with TRL's `GRPOTrainer` on a Hugging Face causal LM.

One GPU (the paper's recipe scaled to a 0.6B-1.7B model: the ``single_gpu`` preset) or a CPU
(a real but small model, SmolLM2-135M-Instruct from `model_files`, which proves the machinery:
at that size it does not learn this task). It trains, answers, checkpoints and serves its
checkpoints to the `self` and `base` designers. Importing this package imports no heavy
package; `backend.TrlBackend` does.
"""

from harness.backends.trl.settings import LoraSettings, TrlSettings

__all__ = ["LoraSettings", "TrlSettings"]
