"""GPU smoke check: what a GPU machine with torch and transformers (no verl, vLLM or Ray) can run.

NO GPU RUN HAS BEEN MADE WITH THIS SCRIPT. The task that wrote it was not lent a GPU machine;
the script has only been run with ``--device cpu`` (in an environment with transformers and
tokenizers), as a check of its code path. Nothing here tests verl or vLLM: their wheels do not
fit on the lent machines, and the verl backend is tested on CPU (tests/harness/verl, .ci/verl).

Two parts, each timed, printed side by side:

1. learner -- one round of the CPU learner's GRPO (`harness.backends.cpu`) with torch's default
   device set to ``--device``. The learner has no device setting of its own, so on CUDA this
   shows whether its tensors follow the default device; a failure is printed, not hidden.
2. evaluation path -- the path every backend's answers take, with a language model: a tiny
   Qwen3-architecture model (``transformers.Qwen3Config``, random weights, a few hundred
   thousand parameters) and a byte-level BPE tokenizer trained on the testbed's own prompts and
   reference answers (nothing is downloaded); a few supervised steps on reference answers
   (teacher forcing, prompt tokens masked); then greedy generation through the chat template on
   validation instances, and the texts parsed and verified by `mapf_env` into an `EvalReport`,
   exactly as the harness scores a backend's answers. A model this small is not expected to
   solve anything: the check is that every stage runs on the device and the verifier reports.

Usage: ``python benchmarks/gpu_smoke.py --device cuda [--quick]`` (``pip install transformers
tokenizers`` where they are missing).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import torch

from harness.backends.cpu import CpuBackend, CpuLearnerSettings
from mapf_env import (
    EnvConfig,
    EvalReport,
    Instance,
    generate,
    load_suite,
    reference_answer,
    render_prompt,
    verify,
)

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}<|end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def learner(device: str, samples: int) -> str:
    data = generate(EnvConfig.uniform(samples=samples), seed=0, workers=1).instances
    started = time.perf_counter()
    try:
        with torch.device(device):
            backend = CpuBackend(CpuLearnerSettings(precision="fp32", threads=None))
            training = backend.train_round(data, epochs=1, seed=0)
    except Exception as err:  # a finding to report, not to hide
        return f"FAILED on {device}: {type(err).__name__}: {err}"
    last = training.steps[-1]
    return (
        f"{len(training.steps)} steps on {samples} instances in "
        f"{time.perf_counter() - started:.1f}s; last step valid rate {last.valid_rate:.2f}"
    )


def train_tokenizer(corpus: Sequence[str], vocab_size: int, chat_template: str) -> Any:
    """A byte-level BPE trained on `corpus` (decoding is exact for any text), wrapped as a
    transformers fast tokenizer with `chat_template`: a real tokenizer without a download."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<pad>", "<|end|>"],
        show_progress=False,
    )
    core.train_from_iterator(corpus, trainer=trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="<|end|>")
    tok.chat_template = chat_template
    return tok


def tokenizer_for(instances: Sequence[Instance]) -> Any:
    corpus = []
    for inst in instances:
        corpus += [m["content"] for m in render_prompt(inst)] + [reference_answer(inst)]
    return train_tokenizer(corpus, 800, CHAT_TEMPLATE)


def tiny_qwen3(tok: Any, device: str) -> Any:
    from transformers import Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=16,
        max_position_embeddings=4096,
        pad_token_id=tok.pad_token_id,
        eos_token_id=tok.eos_token_id,
    )
    torch.manual_seed(0)
    return Qwen3ForCausalLM(config).to(device)


def prompt_ids(tok: Any, inst: Instance) -> list[int]:
    ids: list[int] = tok.apply_chat_template(
        render_prompt(inst), add_generation_prompt=True, tokenize=True
    )
    return ids


def sft(
    model: Any, tok: Any, data: Sequence[Instance], steps: int, device: str
) -> tuple[float, float]:
    """Teacher-forced steps on reference answers; (first, last) loss."""
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    model.train()
    for step in range(steps):
        inst = data[step % len(data)]
        prompt = prompt_ids(tok, inst)
        answer = tok(reference_answer(inst) + "<|end|>", add_special_tokens=False)["input_ids"]
        ids = torch.tensor([prompt + answer], device=device)
        labels = ids.clone()
        labels[0, : len(prompt)] = -100
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
        losses.append(float(loss.detach()))
    model.eval()
    return losses[0], losses[-1]


def evaluate(
    model: Any, tok: Any, instances: Sequence[Instance], device: str, budget: int
) -> EvalReport:
    verdicts = []
    with torch.no_grad():
        for inst in instances:
            ids = torch.tensor([prompt_ids(tok, inst)], device=device)
            out = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=budget,
                do_sample=False,
                pad_token_id=tok.pad_token_id,
                eos_token_id=tok.eos_token_id,
            )
            text = tok.decode(out[0, ids.shape[1] :], skip_special_tokens=True)
            verdicts.append((inst.size, verify(inst, text)))
    return EvalReport.from_verdicts(verdicts)


def evaluation_path(device: str, quick: bool) -> list[str]:
    train = generate(EnvConfig.uniform(samples=64), seed=1, workers=1).instances
    validation = [item.instance for item in load_suite("validation").items]
    sample = validation[:: 50 if quick else 10]
    lines = []
    started = time.perf_counter()
    tok = tokenizer_for([*train, *validation[:40]])
    model = tiny_qwen3(tok, device)
    params = sum(p.numel() for p in model.parameters())
    lines.append(f"tiny Qwen3: {params:,} parameters, vocab {len(tok)}, on {device}")
    first, last = sft(model, tok, train, 20 if quick else 200, device)
    lines.append(f"supervised steps: loss {first:.2f} -> {last:.2f}")
    report = evaluate(model, tok, sample, device, budget=48 if quick else 160)
    failures = {kind: count for kind, count in report.failures.items() if count}
    lines.append(
        f"greedy on {len(sample)} validation instances, verified: valid "
        f"{report.overall.valid_rate:.2f}, optimal {report.overall.optimal_rate:.2f}, "
        f"first failing checks {failures}"
    )
    lines.append(f"evaluation path took {time.perf_counter() - started:.1f}s")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--quick", action="store_true", help="A smaller run (CI-sized).")
    args = parser.parse_args()
    name = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "cpu"
    print(f"# gpu_smoke on {args.device} ({name}), torch {torch.__version__}")
    print(f"1. CPU learner, one round: {learner(args.device, 200 if args.quick else 2000)}")
    for line in evaluation_path(args.device, args.quick):
        print(f"2. {line}")


if __name__ == "__main__":
    main()
